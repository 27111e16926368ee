package ha_test

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
)

const groupAddr = "pve_ha_group.test"

func groupConfig(tg *acctest.Target, id, body string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_ha_group\" \"test\" {\n  group = %q\n%s}\n", id, body))
}

func groupCheckDestroyed(tg *acctest.Target, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.GetHAGroup(context.Background(), id)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("HA group %s still exists after destroy", id)
		}
		return nil
	}
}

// pve_ha_group on PVE 8.4: create, in-place updates (PVE prints the
// node list in its own order: no diff), import round trip, and the group
// deleted outside Terraform.
func TestAccHAGroup_pve84Lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	groupRuleNeedMajor(t, tg, 8)
	id := acctest.Name("tfacc")
	nodes := "  nodes = {\n    pve2 = 1\n    pve1 = 2\n    pve3 = 0\n  }\n"
	tg.Run(t, resource.TestCase{
		CheckDestroy: groupCheckDestroyed(tg, id+"-b"),
		Steps: []resource.TestStep{
			{
				// A bad node name is refused at plan time, naming the attribute.
				Config:      groupConfig(tg, id, "  nodes = {\n    \"pve_1\" = 1\n  }\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute nodes.*must be a node name`),
			},
			{
				Config: groupConfig(tg, id, nodes+"  restricted = true\n  comment = \"web\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("nodes"), knownvalue.MapExact(map[string]knownvalue.Check{
						"pve1": knownvalue.Int64Exact(2), "pve2": knownvalue.Int64Exact(1), "pve3": knownvalue.Int64Exact(0),
					})),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("nofailback"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					g, _, err := tg.Client.GetHAGroup(context.Background(), id)
					if err != nil {
						return err
					}
					if g.Nodes != "pve1:2,pve2:1,pve3" && tg.Sim != nil {
						return fmt.Errorf("PVE has nodes %q", g.Nodes)
					}
					return nil
				},
			},
			{
				Config: groupConfig(tg, id, "  nodes = {\n    pve1 = 1\n  }\n  nofailback = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("restricted"), knownvalue.Null()),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("comment"), knownvalue.Null()),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("nofailback"), knownvalue.Bool(true)),
				},
			},
			{
				ResourceName:      groupAddr,
				ImportState:       true,
				ImportStateId:     id,
				ImportStateVerify: true,
			},
			{
				// Deleted outside Terraform: the next plan creates it again.
				PreConfig: func() {
					if err := tg.Client.DeleteHAGroup(context.Background(), id); err != nil {
						t.Fatal(err)
					}
				},
				Config: groupConfig(tg, id, "  nodes = {\n    pve1 = 1\n  }\n  nofailback = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionCreate)},
				},
			},
			{
				// A new group id is a new group: PVE cannot rename one.
				Config: groupConfig(tg, id+"-b", "  nodes = {\n    pve1 = 1\n  }\n  nofailback = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: groupCheckDestroyed(tg, id),
			},
		},
	})
}

// PVE 9 with its groups migrated (any fresh PVE 9 cluster) refuses groups
// at plan time and points to pve_ha_rule.
func TestAccHAGroup_refusedOnPVE9(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	if tg.Sim == nil {
		t.Skip("needs a PVE 9 cluster without HA groups: the simulator")
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      groupConfig(tg, "prod", "  nodes = { pve1 = 1 }\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)HA Groups Replaced By HA Rules.*pve_ha_rule`),
		}},
	})
}
