package sdn_test

import (
	"context"
	"fmt"
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
