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
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const ruleAddr = "pve_ha_rule.test"

// ruleSeedHAResources puts HA resources into the simulator's
// ha/resources.cfg: the rules need managed resources, and their own
// resource is tested elsewhere.
func ruleSeedHAResources(t *testing.T, tg *acctest.Target, sids ...string) {
	t.Helper()
	if tg.Sim == nil {
		t.Skip("seeds HA resources in the simulator")
	}
	if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
		for _, sid := range sids {
			c.HA.Resources[sid] = &pvesim.HAResource{SID: sid, Props: map[string]string{"state": "started"}}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func ruleConfig(tg *acctest.Target, id, body string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_ha_rule\" \"test\" {\n  rule = %q\n%s}\n", id, body))
}

func ruleCheckDestroyed(tg *acctest.Target, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.GetHARule(context.Background(), id)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("HA rule %s still exists after destroy", id)
		}
		return nil
	}
}

// pve_ha_rule on PVE 9: a node-affinity rule created, changed in place
// (PVE's sorted node list and dropped priority 0 cause no diff; disabling
// and enabling again, which PVE does only by deleting disable), imported,
// deleted outside Terraform; then a type change replaces it.
func TestAccHARule_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	ruleSeedHAResources(t, tg, "vm:100", "vm:101", "ct:102")
	id := acctest.Name("tfacc")
	first := "  type = \"node-affinity\"\n  resources = [\"vm:101\", \"vm:100\"]\n  nodes = {\n    pve2 = 0\n    pve1 = 2\n  }\n  strict = true\n"
	second := "  type = \"node-affinity\"\n  resources = [\"vm:100\", \"ct:102\"]\n  nodes = {\n    pve1 = 1\n    pve2 = 1\n  }\n  disable = true\n  comment = \"web\"\n"
	enabled := "  type = \"node-affinity\"\n  resources = [\"vm:100\", \"ct:102\"]\n  nodes = {\n    pve1 = 1\n    pve2 = 1\n  }\n  disable = false\n  comment = \"web\"\n"
	apart := "  type = \"resource-affinity\"\n  resources = [\"vm:100\", \"ct:102\"]\n  affinity = \"negative\"\n"
	tg.Run(t, resource.TestCase{
		CheckDestroy: ruleCheckDestroyed(tg, id),
		Steps: []resource.TestStep{
			{
				Config: ruleConfig(tg, id, first),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ruleAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ruleAddr, tfjsonpath.New("nodes"), knownvalue.MapExact(map[string]knownvalue.Check{
						"pve1": knownvalue.Int64Exact(2), "pve2": knownvalue.Int64Exact(0),
					})),
					statecheck.ExpectKnownValue(ruleAddr, tfjsonpath.New("disable"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ruleAddr, tfjsonpath.New("affinity"), knownvalue.Null()),
				},
			},
			{
				Config: ruleConfig(tg, id, second),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ruleAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ruleAddr, tfjsonpath.New("strict"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ruleAddr, tfjsonpath.New("disable"), knownvalue.Bool(true)),
				},
			},
			{
				ResourceName:      ruleAddr,
				ImportState:       true,
				ImportStateId:     id,
				ImportStateVerify: true,
			},
			{
				Config: ruleConfig(tg, id, enabled),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ruleAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ruleAddr, tfjsonpath.New("disable"), knownvalue.Bool(false)),
				},
				Check: func(*terraform.State) error {
					r, _, err := tg.Client.GetHARule(context.Background(), id)
					if err != nil {
						return err
					}
					if r.Disable != nil {
						return fmt.Errorf("PVE still has disable = %v", *r.Disable)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteHARule(context.Background(), id); err != nil {
						t.Fatal(err)
					}
				},
				Config: ruleConfig(tg, id, enabled),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ruleAddr, plancheck.ResourceActionCreate)},
				},
			},
			{
				Config: ruleConfig(tg, id, apart),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ruleAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
			{
				// PVE's own feasibility check: a resource in two
				// node-affinity rules is refused with PVE's reason.
				Config: ruleConfig(tg, id, apart) + fmt.Sprintf(
					"resource \"pve_ha_rule\" \"a\" {\n  rule = \"%s-a\"\n  type = \"node-affinity\"\n  resources = [\"vm:101\"]\n  nodes = { pve1 = 1 }\n}\n"+
						"resource \"pve_ha_rule\" \"b\" {\n  rule = \"%s-b\"\n  type = \"node-affinity\"\n  resources = [\"vm:101\"]\n  nodes = { pve2 = 1 }\n  depends_on = [pve_ha_rule.a]\n}\n", id, id),
				ExpectError: regexp.MustCompile(`(?s)resource 'vm:101' is already used.*in another node affinity rule`),
			},
		},
	})
}

// PVE 8.4 has no HA rules: refused at plan time, naming pve_ha_group.
func TestAccHARule_pve84Refused(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	groupRuleNeedMajor(t, tg, 8)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      ruleConfig(tg, "r1", "  type = \"resource-affinity\"\n  resources = [\"vm:100\", \"vm:101\"]\n  affinity = \"positive\"\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)HA Rules Need PVE 9.*pve_ha_group`),
		}},
	})
}
