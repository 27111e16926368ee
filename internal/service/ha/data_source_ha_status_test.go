package ha_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

const haStatusAddr = "data.pve_ha_status.test"

func haStatusConfig(tg *acctest.Target) string {
	return haResourceConfig(tg, "vmid", 100, "state", "started") + `
data "pve_ha_status" "test" {
  depends_on = [pve_ha_resource.test]
}
`
}

// waitHAService polls the HA status until the service runs on a node other
// than avoid, as a client watching HA would, and returns that node.
func waitHAService(tg *acctest.Target, sid, avoid string) (string, error) {
	var last string
	for range 20 {
		entries, err := tg.Client.HAStatus(context.Background())
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.SID == sid {
				last = e.Node + "/" + e.State
				if e.Node != avoid && e.State == "started" {
					return e.Node, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s still %s after 20 polls", sid, last)
}

// The data source shows the manager and the resource; after the guest's
// node fails, HA recovers the guest on another node and the HA resource's
// plan stays empty.
func TestAccHAStatus_nodeFailure(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	haSeedGuests(t, tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkHAResourceGone(tg, "vm:100"),
		Steps: []resource.TestStep{
			{
				Config: haStatusConfig(tg),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("quorate"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("master_node"), knownvalue.StringExact("pve1")),
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("armed_state"), knownvalue.StringExact("armed")),
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("nodes"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("resources").AtSliceIndex(0).AtMapKey("sid"), knownvalue.StringExact("vm:100")),
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("resources").AtSliceIndex(0).AtMapKey("request_state"), knownvalue.StringExact("started")),
					statecheck.ExpectKnownValue(haStatusAddr, tfjsonpath.New("resources").AtSliceIndex(0).AtMapKey("node"), knownvalue.StringExact("pve1")),
				},
			},
			{
				PreConfig: func() {
					if err := tg.Sim.SetNodeOffline("pve1"); err != nil {
						t.Fatal(err)
					}
				},
				Config: haStatusConfig(tg),
				Check: func(*terraform.State) error {
					node, err := waitHAService(tg, "vm:100", "pve1")
					if err != nil {
						return err
					}
					g, ok := tg.Sim.Guest(100)
					if !ok || g.Node != node || g.Status != "running" {
						return fmt.Errorf("guest 100 after recovery: %+v, want running on %s", g, node)
					}
					return nil
				},
			},
		},
	})
}
