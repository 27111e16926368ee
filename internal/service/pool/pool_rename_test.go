package pool_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// poolWithGuest is a pool with a stopped VM in it that refers to the pool
// by its poolid.
func poolWithGuest(tg *acctest.Target, poolID string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_pool" "test" {
  poolid  = %q
  comment = "renamed along"
}
resource "pve_vm" "member" {
  node    = "pve1"
  name    = "tfacc-pool-member"
  started = false
  pool    = pve_pool.test.poolid
  disks   = { scsi0 = { storage = "local-lvm", size = 1 } }
}
`, poolID))
}

// poolMembers lists the VMIDs of a pool's guests; found is false when the
// pool does not exist.
func poolMembers(tg *acctest.Target, poolID string) (vmids []int, found bool, err error) {
	pool, found, err := tg.Client.GetPool(context.Background(), poolID)
	if err != nil || !found {
		return nil, found, err
	}
	for _, m := range pool.Members {
		if m.Type == pveapi.GuestTypeQemu || m.Type == pveapi.GuestTypeLXC {
			vmids = append(vmids, m.VMID.Int())
		}
	}
	return vmids, true, nil
}

// A pool with members is renamed in place: the new pool takes the members,
// the old one goes, and the guest that refers to it follows in the same
// apply.
func TestAccPool_renameWithMembers(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	before, after := acctest.Name("tfacc-old"), acctest.Name("tfacc-new")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkPoolDestroyed(tg, after),
		Steps: []resource.TestStep{
			{Config: poolWithGuest(tg, before)},
			{
				Config: poolWithGuest(tg, after),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("pve_pool.test", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("pve_vm.member", plancheck.ResourceActionUpdate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("pve_pool.test", tfjsonpath.New("id"), knownvalue.StringExact(after)),
					statecheck.ExpectKnownValue("pve_pool.test", tfjsonpath.New("comment"), knownvalue.StringExact("renamed along")),
					statecheck.ExpectKnownValue("pve_vm.member", tfjsonpath.New("pool"), knownvalue.StringExact(after)),
				},
				Check: func(s *terraform.State) error {
					if _, found, err := poolMembers(tg, before); err != nil || found {
						return fmt.Errorf("old pool %s still exists (%w)", before, err)
					}
					vmids, found, err := poolMembers(tg, after)
					if err != nil || !found || len(vmids) != 1 || fmt.Sprint(vmids[0]) != s.RootModule().Resources["pve_vm.member"].Primary.Attributes["vmid"] {
						return fmt.Errorf("new pool %s: found %v, members %v (%w)", after, found, vmids, err)
					}
					return nil
				},
			},
		},
	})
}

// A rename says at plan time what moves and what PVE deletes with the old
// pool; one with nested pools is refused before anything changes.
func TestAccPool_renamePlanWarnsAndRefusesNested(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	parent := acctest.Name("tfacc-parent")
	child := parent + "/inner"
	config := func(poolID string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_pool" "test" {
  poolid = %q
}
resource "pve_pool" "child" {
  poolid = "%s/inner"
  depends_on = [pve_pool.test]
}
`, poolID, parent))
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(parent)},
			{
				Config:      config(parent + "-x"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Pool With Nested Pools Cannot Be Renamed.*` + regexp.QuoteMeta(child)),
			},
		},
	})
}
