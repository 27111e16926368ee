package sdn_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// pve_sdn_zones and pve_sdn_vnets list the applied objects with each
// node's status, filtered by type and zone.
func TestAccSDNDataSources(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	lab := labConfig(tg, zone, "")
	ds := lab + `
data "pve_sdn_zones" "simple" {
  type       = "simple"
  depends_on = [pve_sdn_applier.this]
}

data "pve_sdn_vnets" "lab" {
  zone       = pve_sdn_zone.lab.zone
  depends_on = [pve_sdn_applier.this]
}
`
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: lab},
			{
				Config: ds,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.pve_sdn_zones.simple", tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"zone": knownvalue.StringExact(zone), "type": knownvalue.StringExact("simple"),
							"pending_state": knownvalue.Null(), "ipam": knownvalue.StringExact("pve"),
							"status": knownvalue.MapPartial(map[string]knownvalue.Check{"pve1": knownvalue.StringExact("available")}),
						}),
					})),
					statecheck.ExpectKnownValue("data.pve_sdn_vnets.lab", tfjsonpath.New("vnets"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"vnet": knownvalue.StringExact(zone + "d"), "zone": knownvalue.StringExact(zone),
							"status": knownvalue.MapPartial(map[string]knownvalue.Check{"pve1": knownvalue.StringExact("available")}),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"vnet": knownvalue.StringExact(zone + "w"), "alias": knownvalue.StringExact("web tier"),
						}),
					})),
				},
			},
		},
	})
}
