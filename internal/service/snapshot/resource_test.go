package snapshot_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// guest makes a guest outside Terraform, running when start is set.
func guest(t *testing.T, tg *acctest.Target, typ string, vmid int, start bool) {
	t.Helper()
	ctx := context.Background()
	params := url.Values{"scsi0": {"local-lvm:4"}, "memory": {"512"}}
	if typ == pveapi.GuestTypeLXC {
		params = url.Values{"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"}, "rootfs": {"local-lvm:4"}}
	}
	upid, err := tg.Client.CreateGuest(ctx, "pve1", typ, vmid, params)
	tg.Outside(t, "create guest", upid, err)
	if start {
		upid, err = tg.Client.GuestStatusAction(ctx, "pve1", typ, vmid, "start", nil)
		tg.Outside(t, "start guest", upid, err)
	}
}

func snapshotConfig(tg *acctest.Target, typeName string, vmid int, name, extra string) string {
	return tg.Config(fmt.Sprintf(`
resource %q "test" {
  node = "pve1"
  vmid = %d
  name = %q
%s}
`, typeName, vmid, name, extra))
}

// checkGone checks the snapshot is deleted and the guest still there.
func checkGone(tg *acctest.Target, typ string, vmid int, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.FindSnapshot(context.Background(), "pve1", typ, vmid, name)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("snapshot %s of %d still exists after destroy", name, vmid)
		}
		return nil
	}
}

// The snapshot of a running VM with its RAM: created by a task, its
// description changed in place, imported by NODE/VMID/NAME and VMID/NAME
// with an empty plan, replaced when vmstate changes, deleted on destroy
// without touching the VM.
func TestAccVMSnapshot_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	const vmid = 140
	guest(t, tg, pveapi.GuestTypeQemu, vmid, true)
	addr := "pve_vm_snapshot.test"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkGone(tg, pveapi.GuestTypeQemu, vmid, "before_upgrade"),
		Steps: []resource.TestStep{
			{
				Config: snapshotConfig(tg, "pve_vm_snapshot", vmid, "before_upgrade", "  description = \"first\\n\"\n  vmstate = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(fmt.Sprintf("pve1/%d/before_upgrade", vmid))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("vmstate"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("parent"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("snaptime"), knownvalue.NotNull()),
				},
			},
			{
				Config: snapshotConfig(tg, "pve_vm_snapshot", vmid, "before_upgrade", "  description = \"second\"\n  vmstate = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					snap, _, err := tg.Client.FindSnapshot(context.Background(), "pve1", pveapi.GuestTypeQemu, vmid, "before_upgrade")
					if err != nil {
						return err
					}
					if snap.Description != "second" {
						return fmt.Errorf("description in PVE = %q, want second", snap.Description)
					}
					return nil
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     fmt.Sprintf("pve1/%d/before_upgrade", vmid),
				ImportStateVerify: true,
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     fmt.Sprintf("%d/before_upgrade", vmid),
				ImportStateVerify: true,
			},
			{
				// Dropping the description clears it in place.
				Config: snapshotConfig(tg, "pve_vm_snapshot", vmid, "before_upgrade", "  vmstate = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.Null()),
				},
			},
			{
				Config: snapshotConfig(tg, "pve_vm_snapshot", vmid, "before_upgrade", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("vmstate"), knownvalue.Bool(false)),
				},
			},
		},
	})
}

// A container's snapshot: its description reads back with a newline
// appended, which is no change; import by VMID/NAME; deleted outside
// Terraform, it is planned again.
func TestAccContainerSnapshot_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	const vmid = 141
	guest(t, tg, pveapi.GuestTypeLXC, vmid, false)
	addr := "pve_container_snapshot.test"
	config := snapshotConfig(tg, "pve_container_snapshot", vmid, "pre", "  description = \"before the upgrade\"\n")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkGone(tg, pveapi.GuestTypeLXC, vmid, "pre"),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("before the upgrade")),
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     fmt.Sprintf("%d/pre", vmid),
				ImportStateVerify: true,
			},
			{
				PreConfig: func() {
					upid, err := tg.Client.DeleteSnapshot(context.Background(), "pve1", pveapi.GuestTypeLXC, vmid, "pre")
					tg.Outside(t, "delete snapshot", upid, err)
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

// With Terraform 1.12 or later a snapshot's identity is in the state, and
// an import block with its identity (the node left out) imports it with
// an empty plan.
func TestAccVMSnapshot_importByIdentity(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	const vmid = 143
	guest(t, tg, pveapi.GuestTypeQemu, vmid, false)
	config := snapshotConfig(tg, "pve_vm_snapshot", vmid, "by_identity", "  description = \"imported by identity\"\n")
	tg.Run(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			acctest.NeedsTerraform("1.12.0", "Importing by resource identity"),
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("pve_vm_snapshot.test", map[string]knownvalue.Check{
						"vmid": knownvalue.Int64Exact(vmid), "name": knownvalue.StringExact("by_identity"), "node": knownvalue.StringExact("pve1"),
					}),
				},
			},
			{
				Config:          config,
				ResourceName:    "pve_vm_snapshot.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}
