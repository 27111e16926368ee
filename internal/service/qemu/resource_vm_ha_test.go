package qemu_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// haVM is a running VM on node with its disk on shared storage, as an HA
// guest has: HA recovers it on another node.
func haVM(node string, extra ...string) string {
	return fmt.Sprintf(`
  node = %q
  name = "tfacc-ha"
  disks   = { scsi0 = { storage = "shared-nfs", size = 2 } }
  network = { net0 = { bridge = "vmbr0" } }
%s
`, node, strings.Join(extra, "\n"))
}

// haRequestedState checks the state the VM's HA resource requests.
func haRequestedState(tg *acctest.Target, vm *vmRef, want string) statecheck.StateCheck {
	return vm.Check(func() error {
		var res map[string]any
		if err := tg.Client.Get(context.Background(), fmt.Sprintf("/cluster/ha/resources/vm:%d", vm.VMID), nil, &res); err != nil {
			return err
		}
		if res["state"] != want {
			return fmt.Errorf("HA resource state %v, want %s", res["state"], want)
		}
		return nil
	})
}

// putUnderHA adds the VM to HA's resources, started, and lets HA settle.
func putUnderHA(t *testing.T, tg *acctest.Target, sim *pvesim.Sim, vmid int) {
	t.Helper()
	sid := fmt.Sprintf("vm:%d", vmid)
	if err := tg.Client.Post(context.Background(), "/cluster/ha/resources", url.Values{"sid": {sid}, "state": {"started"}}, nil); err != nil {
		t.Fatalf("add HA resource: %v", err)
	}
	for range 4 {
		sim.HAStep()
	}
}

// awaitHAMove runs HA's rounds until the guest has left node and HA has
// it started again.
func awaitHAMove(t *testing.T, sim *pvesim.Sim, vmid int, node string) string {
	t.Helper()
	for range 12 {
		sim.HAStep()
		var onto, state string
		sim.View(func(c *pvesim.Cluster) {
			if g := c.Guests[vmid]; g != nil {
				onto = g.Node
			}
			if sd := c.HA.Manager.Services[fmt.Sprintf("vm:%d", vmid)]; sd != nil {
				state = sd.State
			}
		})
		if onto != node && state == "started" {
			return onto
		}
	}
	t.Fatalf("HA did not move VM %d off %s", vmid, node)
	return ""
}

// migrateRequests counts the HA migrate requests of the VM and its direct
// migrations.
func migrateRequests(sim *pvesim.Sim, vmid int) (viaHA, direct int) {
	for _, r := range sim.Requests() {
		if r.Method != http.MethodPost {
			continue
		}
		switch {
		case r.Path == fmt.Sprintf("/cluster/ha/resources/vm:%d/migrate", vmid):
			viaHA++
		case strings.HasSuffix(r.Path, fmt.Sprintf("/qemu/%d/migrate", vmid)):
			direct++
		}
	}
	return viaHA, direct
}

// A VM under HA that HA recovered on another node after its node failed:
// the next plan is empty (state keeps the declared node, requests follow
// the VM). Declaring the node HA chose sends nothing; declaring another
// migrates through HA's own request, never a direct migration. A stop and
// a start go through HA and are waited for. The destroy at the end stops
// the VM through HA and purges its HA resource.
func TestAccVM_haMovedGuestPlansNothingAndMigratesThroughHA(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(state *terraform.State) error {
			if err := checkVMDestroyed(vm)(state); err != nil {
				return err
			}
			// The destroy purged the VM's HA resource with it.
			var resources []map[string]any
			if err := tg.Client.Get(context.Background(), "/cluster/ha/resources", nil, &resources); err != nil {
				return err
			}
			if len(resources) != 0 {
				return fmt.Errorf("HA resources left after the destroy: %v", resources)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, haVM("pve1")), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// pve1 fails; HA fences it and starts the VM elsewhere.
				PreConfig: func() {
					putUnderHA(t, tg, sim, vm.VMID)
					if err := sim.SetNodeOffline("pve1"); err != nil {
						t.Fatal(err)
					}
					// HA picks the node with the fewest services, the
					// first by name on a tie.
					if to := awaitHAMove(t, sim, vm.VMID, "pve1"); to != "pve2" {
						t.Fatalf("HA moved the VM to %s, the test expects pve2", to)
					}
				},
				Config: vmConfig(tg, haVM("pve1")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve1")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				},
			},
			{
				// Declaring where HA put it: an update that moves nothing.
				PreConfig: func() { sim.ResetCounters() },
				Config:    vmConfig(tg, haVM("pve2")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.Check(func() error {
						if vm.Node != "pve2" {
							return fmt.Errorf("state node %s, want pve2 where HA put it", vm.Node)
						}
						if viaHA, direct := migrateRequests(sim, vm.VMID); viaHA+direct != 0 {
							return fmt.Errorf("%d HA and %d direct migrations for a VM already on its node", viaHA, direct)
						}
						return nil
					}),
				},
			},
			{
				// A deliberate move: requested through HA, and waited for.
				PreConfig: func() { sim.ResetCounters() },
				Config:    vmConfig(tg, haVM("pve3")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve3")),
					vm.Check(func() error {
						if viaHA, direct := migrateRequests(sim, vm.VMID); viaHA != 1 || direct != 0 {
							return fmt.Errorf("%d HA migrate requests and %d direct migrations, want 1 and 0", viaHA, direct)
						}
						guest, found, err := tg.Client.FindGuest(context.Background(), vm.VMID)
						if err != nil || !found || guest.Node != "pve3" || guest.HAState != "started" {
							return fmt.Errorf("cluster lists VM %d as %+v (found=%v, err=%w)", vm.VMID, guest, found, err)
						}
						return nil
					}),
				},
			},
			{
				// Power of an HA guest: PVE passes the stop to HA, which
				// also sets the HA resource's state; the update waits
				// until the VM is down.
				Config: vmConfig(tg, haVM("pve3", "  started = false")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("stopped")),
					haRequestedState(tg, vm, "stopped"),
				},
			},
			{
				Config: vmConfig(tg, haVM("pve3")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					haRequestedState(tg, vm, "started"),
				},
			},
		},
	})
}
