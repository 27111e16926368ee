package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// strangerAt makes, outside Terraform, a VM named name at vmid on node: what
// PVE's nextid leads to once the guest that held the id was deleted.
func strangerAt(t *testing.T, tg *acctest.Target, node string, vmid int, name string) {
	t.Helper()
	ctx := context.Background()
	upid, err := tg.Client.CreateGuest(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{"name": {name}, "memory": {"512"}})
	if err == nil {
		_, err = tg.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatalf("create VM %d outside Terraform: %v", vmid, err)
	}
	t.Cleanup(func() {
		if upid, err := tg.Client.DeleteGuest(ctx, node, pveapi.GuestTypeQemu, vmid, true, true); err == nil {
			_, _ = tg.Client.WaitTask(ctx, upid)
		}
	})
}

// strangerIntact checks that the VM at vmid is still the stranger as it
// was made.
func strangerIntact(tg *acctest.Target, node string, vmid int, name string) error {
	config, err := tg.Client.GuestConfig(context.Background(), node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		return fmt.Errorf("the VM at VMID %d: %w", vmid, err)
	}
	if config["name"] != name || config["memory"] != "512" {
		return fmt.Errorf("the VM at VMID %d was changed: name %q memory %q", vmid, config["name"], config["memory"])
	}
	return nil
}

// strangerUntouched is strangerIntact after a step; *vmid is read when the
// check runs.
func strangerUntouched(tg *acctest.Target, node string, vmid *int, name string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error { return strangerIntact(tg, node, *vmid, name) })
}

// strangerUntouchedAfterDestroy is strangerIntact once the test's
// resources are destroyed.
func strangerUntouchedAfterDestroy(tg *acctest.Target, node string, vmid *int, name string) resource.TestCheckFunc {
	return func(*terraform.State) error { return strangerIntact(tg, node, *vmid, name) }
}

// A VM deleted outside Terraform whose VMID PVE then gave to another VM:
// the refresh tells the stranger by its creation time and SMBIOS UUID,
// drops the resource with a warning, and the plan creates a new VM rather
// than updating the stranger; destroy leaves the stranger alone too.
func TestAccVM_strangerAtVMIDIsNotOurs(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	var taken int

	tg.Run(t, resource.TestCase{
		CheckDestroy: resource.ComposeTestCheckFunc(checkVMDestroyed(vm), strangerUntouchedAfterDestroy(tg, "pve1", &taken, "stranger")),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, smallVM("pve1", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					acctest.CheckState(func(*tfjson.State) error {
						taken = vm.VMID
						destroyOutside(t, vm)
						strangerAt(t, tg, "pve1", taken, "stranger")
						return nil
					}),
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: vmConfig(tg, smallVM("pve1", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					strangerUntouched(tg, "pve1", &taken, "stranger"),
					acctest.CheckState(func(*tfjson.State) error {
						if vm.VMID == taken {
							return fmt.Errorf("the new VM has the stranger's VMID %d", taken)
						}
						return nil
					}),
				},
			},
		},
	})
}

// The same with vmid configured: the create the plan makes fails cleanly
// on the taken VMID, naming it, and the stranger is left as it was.
func TestAccVM_strangerAtConfiguredVMIDFailsCreate(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	vmid := 9310
	config := vmConfig(tg, smallVM("pve1", fmt.Sprintf("  vmid = %d", vmid)))

	tg.Run(t, resource.TestCase{
		CheckDestroy: strangerUntouchedAfterDestroy(tg, "pve1", &vmid, "stranger"),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					acctest.CheckState(func(*tfjson.State) error {
						destroyOutside(t, vm)
						strangerAt(t, tg, "pve1", vmid, "stranger")
						return nil
					}),
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)VMID Already In Use.*VMID\s+9310\s+is\s+taken`),
			},
			{
				Config:   config,
				PlanOnly: true,
				// The stranger is never taken for the resource's VM.
				ExpectNonEmptyPlan: true,
				ConfigStateChecks:  []statecheck.StateCheck{strangerUntouched(tg, "pve1", &vmid, "stranger")},
			},
		},
	})
}

// An imported VM records its identity at import: once it is replaced
// outside Terraform, the plan no longer takes the stranger for it.
func TestAccVM_importRecordsIdentity(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vmid := 9320
	strangerAt(t, tg, "pve1", vmid, "imported")
	config := vmConfig(tg, fmt.Sprintf("  node = \"pve1\"\n  vmid = %d\n  name = \"imported\"\n  memory = { size = 512 }\n", vmid))

	tg.Run(t, resource.TestCase{
		CheckDestroy: strangerUntouchedAfterDestroy(tg, "pve1", &vmid, "stranger"),
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       vmAddr,
				ImportState:        true,
				ImportStateId:      fmt.Sprintf("pve1/%d", vmid),
				ImportStatePersist: true,
			},
			{
				PreConfig: func() {
					ctx := context.Background()
					upid, err := tg.Client.DeleteGuest(ctx, "pve1", pveapi.GuestTypeQemu, vmid, true, true)
					if err == nil {
						_, err = tg.Client.WaitTask(ctx, upid)
					}
					if err != nil {
						t.Fatalf("delete VM %d outside Terraform: %v", vmid, err)
					}
					strangerAt(t, tg, "pve1", vmid, "stranger")
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)VMID Already In Use.*VMID\s+9320\s+is\s+taken`),
			},
		},
	})
}

// W11: another user's guest being created on the same node (nameless,
// locked for creation, no task of this provider's token on it) is none of
// this create's business: the named create neither waits for it until its
// timeout nor fails on its lock.
func TestAccVM_foreignCreateInProgressDoesNotBlockW11(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	vm := newVMRef(tg)
	if err := sim.AddGuest(pvesim.Guest{VMID: 990, Node: "pve1", Type: pvesim.QEMU, Status: "stopped",
		Config: map[string]string{"lock": "create"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.DeleteGuest(990) })

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{{
			Config:            vmConfig(tg, smallVM("pve1", `  timeouts = { create = "8s" }`)),
			ConfigStateChecks: []statecheck.StateCheck{vm.record()},
		}},
	})
}
