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
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const subnetAddr = "pve_sdn_subnet.s"

// subnetConfig is a simple zone with DHCP, a vnet, the subnet with body
// and an applier listing them.
func subnetConfig(tg *acctest.Target, zone, body string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_sdn_zone" "z" {
  zone = %[1]q
  type = "simple"
  ipam = "pve"
  dhcp = "dnsmasq"
}

resource "pve_sdn_vnet" "v" {
  vnet = "%[1]sn"
  zone = pve_sdn_zone.z.zone
}

resource "pve_sdn_subnet" "s" {
  vnet = pve_sdn_vnet.v.vnet
%[2]s}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.z, pve_sdn_vnet.v, pve_sdn_subnet.s]
}
`, zone, body))
}

// pve_sdn_subnet: created with a gateway, SNAT and a DHCP range, imported
// as VNET/CIDR, changed in place (range replaced, SNAT removed, a DNS
// prefix added), replaced by a CIDR change, recreated after someone
// deleted it.
func TestAccSDNSubnet_lifecycle(t *testing.T) {
	t.Parallel()
	testSubnetLifecycle(t, acctest.NewOnPVE(t, "9.1"))
}

// PVE 8.4 shows a staged dhcp-range as one string, its ranges sorted
// (pve-network 0.11.2 pending_config copies the encoded value): the same
// lifecycle holds there.
func TestAccSDNSubnet_lifecycle_pve84(t *testing.T) {
	t.Parallel()
	testSubnetLifecycle(t, acctest.NewOnPVE(t, "8.4"))
}

func testSubnetLifecycle(t *testing.T, tg *acctest.Target) {
	zone := sdnName()
	vnet := zone + "n"
	first := `  cidr    = "10.20.0.0/24"
  gateway = "10.20.0.1"
  snat    = true
  dhcp_range = [{ start_address = "10.20.0.100", end_address = "10.20.0.150" }]
`
	second := `  cidr    = "10.20.0.0/24"
  gateway = "10.20.0.254"
  dnszoneprefix = "web"
  dhcp_range = [
    { start_address = "10.20.0.10", end_address = "10.20.0.20" },
    { start_address = "10.20.0.30", end_address = "10.20.0.40" },
  ]
`
	other := "  cidr    = \"fd00:20::/64\"\n  gateway = \"fd00:20::1\"\n"
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: subnetConfig(tg, zone, first),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subnetAddr, tfjsonpath.New("sdn_id"), knownvalue.StringExact("subnet/"+vnet+"/10.20.0.0/24")),
					statecheck.ExpectKnownValue(subnetAddr, tfjsonpath.New("id"), knownvalue.StringExact(vnet+"/10.20.0.0/24")),
					statecheck.ExpectKnownValue(subnetAddr, tfjsonpath.New("dhcp_range").AtSliceIndex(0).AtMapKey("start_address"),
						knownvalue.StringExact("10.20.0.100")),
				},
			},
			{
				ResourceName:      subnetAddr,
				ImportState:       true,
				ImportStateId:     vnet + "/10.20.0.0/24",
				ImportStateVerify: true,
			},
			{
				Config: subnetConfig(tg, zone, second),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(subnetAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionUpdate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subnetAddr, tfjsonpath.New("snat"), knownvalue.Null()),
					statecheck.ExpectKnownValue(subnetAddr, tfjsonpath.New("dhcp_range").AtSliceIndex(1).AtMapKey("end_address"),
						knownvalue.StringExact("10.20.0.40")),
				},
			},
			{
				Config: subnetConfig(tg, zone, other),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subnetAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteSDNSubnet(context.Background(), vnet, pveapi.SubnetID(zone, "fd00:20::/64"), ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: subnetConfig(tg, zone, other),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subnetAddr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}
