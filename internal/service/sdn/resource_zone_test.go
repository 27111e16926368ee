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
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const zoneAddr = "pve_sdn_zone.z"

// zoneConfig is one zone with body and an applier listing it.
func zoneConfig(tg *acctest.Target, id, body string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_sdn_zone" "z" {
  zone = %q
%s}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.z]
}
`, id, body))
}

// zoneGone checks that neither the staged nor the running configuration
// has the zone.
func zoneGone(tg *acctest.Target, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, view := range []pvesim.SDNView{pvesim.SDNViewConfig, pvesim.SDNViewRunning} {
			for _, e := range tg.Sim.SDNEntries(pvesim.SDNZones, view) {
				if e.ID == id {
					return fmt.Errorf("zone %s still exists after destroy", id)
				}
			}
		}
		return nil
	}
}

// pve_sdn_zone: a vlan zone created and applied, imported, changed in
// place (an option removed, a node list PVE sorts, a boolean added),
// replaced by a type change, and recreated after someone deleted it.
func TestAccSDNZone_lifecycle(t *testing.T) {
	t.Parallel()
	testZoneLifecycle(t, acctest.NewOnPVE(t, "9.1"))
}

// The same on PVE 8.4, which has no SDN lock.
func TestAccSDNZone_lifecycle_pve84(t *testing.T) {
	t.Parallel()
	testZoneLifecycle(t, acctest.NewOnPVE(t, "8.4"))
}

func testZoneLifecycle(t *testing.T, tg *acctest.Target) {
	id := sdnName()
	first := "  type   = \"vlan\"\n  bridge = \"vmbr0\"\n  mtu    = 1400\n  nodes  = [\"pve1\"]\n"
	second := "  type   = \"vlan\"\n  bridge = \"vmbr0\"\n  nodes  = [\"pve2\", \"pve1\"]\n  bridge_disable_mac_learning = true\n"
	qinq := "  type   = \"qinq\"\n  bridge = \"vmbr0\"\n  tag    = 20\n  vlan_protocol = \"802.1ad\"\n"
	tg.Run(t, resource.TestCase{
		CheckDestroy: zoneGone(tg, id),
		Steps: []resource.TestStep{
			{
				Config: zoneConfig(tg, id, first),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(zoneAddr, tfjsonpath.New("sdn_id"), knownvalue.StringExact("zone/"+id)),
					statecheck.ExpectKnownValue(zoneAddr, tfjsonpath.New("mtu"), knownvalue.Int64Exact(1400)),
					statecheck.ExpectKnownValue("pve_sdn_applier.this", tfjsonpath.New("sdn_ids"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("zone/" + id)})),
				},
				Check: func(*terraform.State) error {
					if e, ok := sdnEntry(tg, pvesim.SDNZones, id); !ok || e.State != "" {
						return fmt.Errorf("the zone is not applied: %+v", e)
					}
					return nil
				},
			},
			{
				ResourceName:      zoneAddr,
				ImportState:       true,
				ImportStateId:     id,
				ImportStateVerify: true,
			},
			{
				Config: zoneConfig(tg, id, second),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(zoneAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionUpdate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(zoneAddr, tfjsonpath.New("mtu"), knownvalue.Null()),
					statecheck.ExpectKnownValue(zoneAddr, tfjsonpath.New("nodes"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("pve1"), knownvalue.StringExact("pve2")})),
				},
			},
			{
				Config: zoneConfig(tg, id, qinq),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(zoneAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteSDNZone(context.Background(), id, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: zoneConfig(tg, id, qinq),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(zoneAddr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

// A vxlan zone: its peers are a set (written sorted, read back as PVE
// keeps them), imported with an empty plan.
func TestAccSDNZone_vxlan(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	id := sdnName()
	body := "  type       = \"vxlan\"\n  peers      = [\"10.0.0.2\", \"10.0.0.1\", \"10.0.0.3\"]\n  vxlan_port = 4790\n  mtu        = 1450\n"
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: zoneConfig(tg, id, body),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(zoneAddr, tfjsonpath.New("peers"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact("10.0.0.1"), knownvalue.StringExact("10.0.0.2"), knownvalue.StringExact("10.0.0.3")})),
				},
			},
			{ResourceName: zoneAddr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
		},
	})
}

// A token without SDN.Allocate: the apply fails saying which privilege on
// which path to grant, and nothing is staged.
func TestAccSDNZone_needsSDNAllocate(t *testing.T) {
	t.Parallel()
	tg := acctest.NewRestricted(t, "9.1", []string{"SDN.Audit", "Sys.Audit"})
	id := sdnName()
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      zoneConfig(tg, id, "  type = \"simple\"\n"),
			ExpectError: regexp.MustCompile(`(?s)Unable To Create SDN Zone.*SDN\.Allocate`),
		}},
	})
	if len(tg.Sim.SDNEntries(pvesim.SDNZones, pvesim.SDNViewConfig)) != 0 || tg.Sim.SDNLockToken() != "" {
		t.Error("a refused run left a zone or the lock behind")
	}
}

// evpnConfig is an EVPN controller, an EVPN zone using it with exitnodes,
// a vnet in it and an applier listing all three.
func evpnConfig(tg *acctest.Target, ctl, zone, vnet, exitnodes string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_sdn_controller" "evpn" {
  controller = %[1]q
  type       = "evpn"
  asn        = 65000
  peers      = ["10.0.0.11", "10.0.0.12", "10.0.0.13"]
}

resource "pve_sdn_zone" "z" {
  zone              = %[2]q
  type              = "evpn"
  controller        = pve_sdn_controller.evpn.controller
  vrf_vxlan         = 10000
  exitnodes         = [%[4]s]
  advertise_subnets = true
}

resource "pve_sdn_vnet" "v" {
  vnet = %[3]q
  zone = pve_sdn_zone.z.zone
  tag  = 11000
}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_controller.evpn, pve_sdn_zone.z, pve_sdn_vnet.v]
}
`, ctl, zone, vnet, exitnodes))
}

// An EVPN zone on its controller, with a vnet: created and applied, its
// exit nodes changed in place, imported with PVE's generated gateway MAC,
// and destroyed with its controller in one apply.
func TestAccSDNZone_evpn(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	ctl, zone, vnet := sdnName(), sdnName(), sdnName()
	tg.Run(t, resource.TestCase{
		CheckDestroy: zoneGone(tg, zone),
		Steps: []resource.TestStep{
			{
				Config: evpnConfig(tg, ctl, zone, vnet, `"pve1"`),
				Check: func(*terraform.State) error {
					for _, z := range tg.Sim.SDNEntries(pvesim.SDNZones, pvesim.SDNViewRunning) {
						if z.ID == zone && z.Props["controller"] == ctl && z.Props["mac"] != "" {
							return nil
						}
					}
					return fmt.Errorf("zone %s is not running on controller %s with PVE's MAC", zone, ctl)
				},
			},
			{
				Config: evpnConfig(tg, ctl, zone, vnet, `"pve1", "pve2"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(zoneAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("pve_sdn_controller.evpn", plancheck.ResourceActionNoop),
				}},
			},
			{ResourceName: zoneAddr, ImportState: true, ImportStateId: zone, ImportStateVerify: true},
			{ResourceName: "pve_sdn_controller.evpn", ImportState: true, ImportStateId: ctl, ImportStateVerify: true},
		},
	})
}
