package sdn_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
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
	testVnetLifecycle(t, acctest.NewOnPVE(t, "9.1"))
}

// The same on PVE 8.4, which has no SDN lock.
func TestAccSDNVnet_lifecycle_pve84(t *testing.T) {
	t.Parallel()
	testVnetLifecycle(t, acctest.NewOnPVE(t, "8.4"))
}

func testVnetLifecycle(t *testing.T, tg *acctest.Target) {
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

// A vnet guests' NICs use is not destroyed or replaced: the plan refuses,
// naming the NICs; once the NIC is moved, the destroy goes ahead.
func TestAccSDNVnet_inUseRefused(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	config := vnetConfig(tg, zone, "  zone  = pve_sdn_zone.simple.zone\n")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					if err := tg.Sim.AddGuest(pvesim.Guest{VMID: 120, Node: "pve2", Type: pvesim.QEMU, Status: "stopped",
						Config: map[string]string{"name": "web1", "net1": "virtio=BC:24:11:00:00:01,bridge=" + zone + "n,firewall=1"}}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      vnetConfig(tg, zone, "  zone  = pve_sdn_zone.vlan.zone\n  tag = 7\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)SDN Vnet In Use.*Replacing vnet ` + zone + `n.*VM 120 on pve2 \(net1\)`),
			},
			{
				PreConfig: func() {
					if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
						c.Guests[120].Config["net1"] = "virtio=BC:24:11:00:00:01,bridge=vmbr0"
						return nil
					}); err != nil {
						t.Fatal(err)
					}
				},
				Config: vnetConfig(tg, zone, "  zone  = pve_sdn_zone.vlan.zone\n  tag = 7\n"),
			},
		},
	})
}
