package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

const (
	clonePath   = "/nodes/{node}/qemu/{vmid}/clone"
	migratePath = "/nodes/{node}/qemu/{vmid}/migrate"
)

// clonesBesideTemplate maps every VM PVE holds, the template aside, to its
// node.
func clonesBesideTemplate(tg *acctest.Target) (map[int]string, error) {
	resources, err := tg.Client.ClusterResources(context.Background(), "vm")
	if err != nil {
		return nil, err
	}
	found := map[int]string{}
	for _, r := range resources {
		if r.IsGuest() && r.VMID.Int() != templateVMID {
			found[r.VMID.Int()] = r.Node
		}
	}
	return found, nil
}

// oneFinishedCloneOn checks that PVE holds exactly one clone, on node,
// finished (no marker left), and that the whole test sent wantClones
// clone requests.
func oneFinishedCloneOn(tg *acctest.Target, vm *vmRef, node string, wantClones int) statecheck.StateCheck {
	return vm.configCheck(func(c map[string]string) error {
		clones, err := clonesBesideTemplate(tg)
		if err != nil {
			return err
		}
		if len(clones) != 1 || clones[vm.VMID] != node {
			return fmt.Errorf("want exactly VM %d on %s, PVE has %v", vm.VMID, node, clones)
		}
		if c["description"] != "golden image" {
			return fmt.Errorf("description %q: want the template's, without the clone marker", c["description"])
		}
		if n := tg.Sim.Count("POST", clonePath); n != wantClones {
			return fmt.Errorf("want %d clone requests, PVE saw %d", wantClones, n)
		}
		return nil
	})
}

// halfMadeClone clones the template on node as an apply that died right
// after the clone task would have left it: the planned name and the
// creation marker.
func halfMadeClone(t *testing.T, tg *acctest.Target, node string, vmid int, name string) {
	t.Helper()
	ctx := context.Background()
	upid, err := tg.Client.CloneGuest(ctx, node, pveapi.GuestTypeQemu, templateVMID, url.Values{
		"newid":       {fmt.Sprint(vmid)},
		"name":        {name},
		"full":        {"1"},
		"description": {guestops.WithCloneMarker("golden image", guestops.CloneMarker(guestops.VM, templateVMID))},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
}

// W13, W14: a cross-node clone from local storage whose migration fails
// is not tainted (Terraform would destroy the finished copy): it leaves
// the state, keeps its marker, and the next apply finds it on the source
// node, migrates it and finishes it, without cloning again.
func TestAccVMCloneFailedMigrationResumesW13W14(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: migratePath, Action: pvesim.FaultRespond,
		Status: 500, Message: "migration aborted: target node unreachable", Count: 1}); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	config := vmConfig(tg, fmt.Sprintf(`
  node  = "pve2"
  name  = "far-2"
  clone = { source_vmid = %d, source_node = "pve1" }
  cpu   = { cores = 3 }
`, templateVMID))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`migration aborted`),
			},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					oneFinishedCloneOn(tg, vm, "pve2", 1),
					vm.configCheck(func(c map[string]string) error {
						if c["cores"] != "3" {
							return fmt.Errorf("declared cores not written: %q", c["cores"])
						}
						if n := sim.Count("POST", migratePath); n != 2 {
							return fmt.Errorf("want the failed migration and one more, saw %d", n)
						}
						return nil
					}),
				},
			},
		},
	})
}

// W11, W13: an apply killed between the clone and the migration left the
// clone on the source node with the planned name and the marker, and
// nothing in state. The next apply, with an allocated VMID, takes it up
// and migrates it instead of cloning a second one.
func TestAccVMCloneAdoptsHalfMadeOnSourceNodeW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	halfMade := 150
	halfMadeClone(t, tg, "pve1", halfMade, "crash-2")
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve2"
  name  = "crash-2"
  clone = { source_vmid = %d, source_node = "pve1" }
`, templateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(int64(halfMade))),
				oneFinishedCloneOn(tg, vm, "pve2", 1),
				acctest.CheckState(func(*tfjson.State) error {
					if n := sim.Count("POST", migratePath); n != 1 {
						return fmt.Errorf("want one migration, saw %d", n)
					}
					return nil
				}),
			},
		}},
	})
}

// W13: a half-made clone of another name is someone else's: it is left
// alone and a new clone is made.
func TestAccVMCloneIgnoresOtherHalfMadeCloneW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	halfMadeClone(t, tg, "pve1", 150, "someone-else")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "mine-1"
  clone = { source_vmid = %d }
`, templateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(*tfjson.State) error {
					clones, err := clonesBesideTemplate(tg)
					if err != nil {
						return err
					}
					if len(clones) != 2 {
						return fmt.Errorf("want the other half-made clone and ours, PVE has %v", clones)
					}
					return nil
				}),
			},
		}},
	})
}
