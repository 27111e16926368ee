package sdn_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

const vnetAddr = "pve_sdn_vnet.v"

// vnetConfig is two zones (a simple and a vlan one), the vnet with body,
// and an applier listing them.
func vnetConfig(tg *acctest.Target, zone, body string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_sdn_zone" "simple" {
  zone = %[1]q
  type = "simple"
}

resource "pve_sdn_zone" "vlan" {
  zone   = "%[1]sv"
  type   = "vlan"
  bridge = "vmbr0"
}

resource "pve_sdn_vnet" "v" {
  vnet = "%[1]sn"
%[2]s}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.simple, pve_sdn_zone.vlan, pve_sdn_vnet.v]
}
`, zone, body))
}

// pve_sdn_vnet: created in a simple zone, imported, changed in place,
// moved to a vlan zone (a replacement), recreated after someone deleted it.
func TestAccSDNVnet_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	first := "  zone  = pve_sdn_zone.simple.zone\n  alias = \"first\"\n"
	second := "  zone  = pve_sdn_zone.simple.zone\n  isolate_ports = true\n  vlanaware = true\n"
	vlan := "  zone  = pve_sdn_zone.vlan.zone\n  tag   = 100\n"
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: vnetConfig(tg, zone, first),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vnetAddr, tfjsonpath.New("sdn_id"), knownvalue.StringExact("vnet/"+zone+"n")),
					statecheck.ExpectKnownValue(vnetAddr, tfjsonpath.New("alias"), knownvalue.StringExact("first")),
				},
			},
			{
				ResourceName:      vnetAddr,
				ImportState:       true,
				ImportStateId:     zone + "n",
				ImportStateVerify: true,
			},
			{
				Config: vnetConfig(tg, zone, second),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(vnetAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionUpdate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vnetAddr, tfjsonpath.New("alias"), knownvalue.Null()),
					statecheck.ExpectKnownValue(vnetAddr, tfjsonpath.New("isolate_ports"), knownvalue.Bool(true)),
				},
			},
			{
				Config: vnetConfig(tg, zone, vlan),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vnetAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteSDNVnet(context.Background(), zone+"n", ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: vnetConfig(tg, zone, vlan),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vnetAddr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}
