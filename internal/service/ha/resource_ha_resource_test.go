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

func checkHAResourceGone(tg *acctest.Target, sid string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.GetHAResource(context.Background(), sid)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("HA resource %s still exists", sid)
		}
		return nil
	}
}

// Create, update in place, import by sid and by VMID, and recreate after
// the resource disappeared outside Terraform.
func TestAccHAResource_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	haSeedGuests(t, tg)
	writes := acctest.NewPathWriteWatch(tg, "/cluster/ha/resources")
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkHAResourceGone(tg, "vm:100"),
		Steps: []resource.TestStep{
			{
				Config: haResourceConfig(tg, "vmid", 100, "state", "started", "comment", "web"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(haResourceAddr, plancheck.ResourceActionCreate),
						// The guest exists: type and sid are known at plan time.
						plancheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("sid"), knownvalue.StringExact("vm:100")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("type"), knownvalue.StringExact("vm")),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("id"), knownvalue.StringExact("vm:100")),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("max_restart"), knownvalue.Null()),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("failback"), knownvalue.Null()),
				},
			},
			{
				PreConfig: writes.Mark,
				Config:    haResourceConfig(tg, "vmid", 100, "state", "stopped", "max_restart", 3, "failback", false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(haResourceAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					writes.Exactly("PUT /cluster/ha/resources/vm:100"),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("state"), knownvalue.StringExact("stopped")),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("comment"), knownvalue.Null()),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("max_restart"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("failback"), knownvalue.Bool(false)),
				},
				Check: func(*terraform.State) error {
					res, _, err := tg.Client.GetHAResource(context.Background(), "vm:100")
					if err != nil {
						return err
					}
					if res.Comment != "" || res.State != "stopped" {
						return fmt.Errorf("PVE holds %+v", res)
					}
					return nil
				},
			},
			{
				ResourceName:      haResourceAddr,
				ImportState:       true,
				ImportStateId:     "vm:100",
				ImportStateVerify: true,
			},
			{
				ResourceName:      haResourceAddr,
				ImportState:       true,
				ImportStateId:     "100",
				ImportStateVerify: true,
			},
			{
				Config:          haResourceConfig(tg, "vmid", 100, "state", "stopped", "max_restart", 3, "failback", false),
				ResourceName:    haResourceAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "vm:100",
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(haResourceAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				// Deleted outside Terraform: the next plan creates it again.
				PreConfig: func() {
					if _, err := tg.Client.DeleteHAResource(context.Background(), "vm:100"); err != nil {
						t.Fatal(err)
					}
				},
				Config: haResourceConfig(tg, "vmid", 100, "state", "stopped", "max_restart", 3, "failback", false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(haResourceAddr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

// A container without type: the type is looked up; a wrong type is
// refused at plan time.
func TestAccHAResource_containerType(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	haSeedGuests(t, tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkHAResourceGone(tg, "ct:101"),
		Steps: []resource.TestStep{
			{
				Config:      haResourceConfig(tg, "vmid", 101, "type", "vm"),
				ExpectError: regexp.MustCompile(`(?s)HA Type Does Not Match The Guest.*type = "ct"`),
			},
			{
				Config: haResourceConfig(tg, "vmid", 101, "state", "ignored"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("sid"), knownvalue.StringExact("ct:101")),
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("type"), knownvalue.StringExact("ct")),
				},
			},
			{
				// Naming the type it already has changes nothing.
				Config: haResourceConfig(tg, "vmid", 101, "type", "ct", "state", "ignored"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(haResourceAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				// Another HA resource's write made the digest stale: the
				// update reads again and goes through.
				PreConfig: func() {
					if err := tg.Sim.InjectFault(pvesim.Fault{Method: "PUT", Path: "/cluster/ha/resources/ct:101", Action: pvesim.FaultRespond, Count: 1,
						Message: "update resources config failed: detected modified configuration - file changed by other user? Try again."}); err != nil {
						t.Fatal(err)
					}
				},
				Config: haResourceConfig(tg, "vmid", 101, "state", "stopped"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("state"), knownvalue.StringExact("stopped")),
				},
			},
		},
	})
}

// PVE 8.4: the group is an HA resource option (changed in place), and
// failback is refused at plan time.
func TestAccHAResource_groupPVE84(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	haSeedGuests(t, tg)
	if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
		c.HA.Groups["prefer1"] = &pvesim.HAGroup{ID: "prefer1", Props: map[string]string{"nodes": "pve1:2,pve2"}}
		c.HA.Groups["prefer2"] = &pvesim.HAGroup{ID: "prefer2", Props: map[string]string{"nodes": "pve2:2,pve1"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkHAResourceGone(tg, "vm:100"),
		Steps: []resource.TestStep{
			{
				Config:      haResourceConfig(tg, "vmid", 100, "failback", true),
				ExpectError: regexp.MustCompile(`(?s)Failback Needs PVE 9.*nofailback`),
			},
			{
				Config: haResourceConfig(tg, "vmid", 100, "group", "prefer1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("group"), knownvalue.StringExact("prefer1")),
				},
			},
			{
				Config: haResourceConfig(tg, "vmid", 100, "group", "prefer2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(haResourceAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("group"), knownvalue.StringExact("prefer2")),
				},
			},
			{
				ResourceName:      haResourceAddr,
				ImportState:       true,
				ImportStateId:     "100",
				ImportStateVerify: true,
			},
		},
	})
}
