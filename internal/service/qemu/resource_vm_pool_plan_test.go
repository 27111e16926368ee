package qemu_test

import (
	"context"
	"fmt"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// poolReadCheck fails a plan that read a pool more than once since mark,
// counting the simulator's GET /pools?poolid= requests.
type poolReadCheck struct {
	tg    *acctest.Target
	mark  *int
	pools []string
}

func (c poolReadCheck) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if c.tg.Sim == nil {
		return // a live node serves other clients too
	}
	reads := map[string]int{}
	for _, r := range c.tg.Sim.Requests()[*c.mark:] {
		if r.Method == "GET" && r.Path == "/pools" && len(r.Params["poolid"]) == 1 {
			reads[r.Params["poolid"][0]]++
		}
	}
	for _, pool := range c.pools {
		if reads[pool] != 1 {
			resp.Error = fmt.Errorf("the plan read pool %s %d times, want once (reads: %v)", pool, reads[pool], reads)
			return
		}
	}
}

// A plan of four VMs in two pools, each managed by a pve_pool, reads each
// pool once (the pve_pool's refresh; the VMs use its answer), and a VM
// taken out of its pool outside Terraform between two commands is seen
// and put back.
func TestAccVM_poolPlanReadsEachPoolOnceAndSeesOutsideChanges(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	poolA, poolB := acctest.Name("tfacc"), acctest.Name("tfacc")
	config := tg.Config(fmt.Sprintf(`
resource "pve_pool" "a" {
  poolid = %q
}
resource "pve_pool" "b" {
  poolid = %q
}
resource "pve_vm" "test" {
  count   = 4
  node    = "pve1"
  name    = "tfacc-pooled-${count.index}"
  started = false
  pool    = count.index %% 2 == 0 ? pve_pool.a.poolid : pve_pool.b.poolid
  disks = {
    scsi0 = { storage = "local-lvm", size = "256M" }
  }
}
`, poolA, poolB))
	mark := 0
	markRequests := func() {
		if tg.Sim != nil {
			mark = len(tg.Sim.Requests())
		}
	}
	firstVMID := 0
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config},
			{
				Config:    config,
				PreConfig: markRequests,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), poolReadCheck{tg: tg, mark: &mark, pools: []string{poolA, poolB}}},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(state *tfjson.State) error {
						var err error
						_, firstVMID, err = acctest.GuestFromState(state, "pve_vm.test[0]")
						return err
					}),
				},
			},
			{
				// Out of its pool outside Terraform: the next plan puts it back.
				Config: config,
				PreConfig: func() {
					if err := tg.Client.UpdatePool(context.Background(), pveapi.PoolUpdate{PoolID: poolA, VMs: []int{firstVMID}, Delete: true}); err != nil {
						t.Fatal(err)
					}
					markRequests()
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("pve_vm.test[0]", plancheck.ResourceActionUpdate),
						poolReadCheck{tg: tg, mark: &mark, pools: []string{poolA, poolB}},
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(*tfjson.State) error {
						pool, found, err := tg.Client.GetPool(context.Background(), poolA)
						if err != nil || !found {
							return fmt.Errorf("pool %s: found=%v err=%w", poolA, found, err)
						}
						for _, m := range pool.Members {
							if m.VMID.Int() == firstVMID {
								return nil
							}
						}
						return fmt.Errorf("VM %d is not back in pool %s", firstVMID, poolA)
					}),
				},
			},
		},
	})
}
