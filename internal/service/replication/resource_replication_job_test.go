package replication_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func jobConfig(tg *acctest.Target, target, extra string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_replication_job\" \"test\" {\n  vmid   = 100\n  target = %q\n%s}\n", target, extra))
}

func checkJobGone(tg *acctest.Target, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := tg.Client.GetReplicationJob(context.Background(), id)
		if pveapi.IsNoSuchReplicationJob(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("replication job %s still exists after destroy", id)
	}
}

// Create (job number 0 taken as the first free one), in-place updates,
// the import round trip, a target change that replaces the job under the
// same id in one apply (the destroy waits for PVE's removal run), and a
// job deleted outside Terraform.
func TestAccReplicationJob_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if tg.Sim == nil {
		t.Skip("needs a ZFS storage and VM 100 on the simulator")
	}
	addZFS(t, tg.Sim)
	createVM(t, tg.Client, 100, "local-zfs:4")
	tg.Sim.ReportStats()
	// PVE's scheduler passes once a minute; the test's once in 200 ms.
	tg.Sim.SetReplicationInterval(200 * time.Millisecond)
	addr := "pve_replication_job.test"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkJobGone(tg, "100-0"),
		Steps: []resource.TestStep{
			{
				Config: jobConfig(tg, "pve2", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("100-0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("job_number"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("source"), knownvalue.StringExact("pve1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("rate"), knownvalue.Null()),
				},
			},
			{
				Config: jobConfig(tg, "pve2", "  schedule = \"*/5\"\n  rate = 25.5\n  comment = \"to pve2\"\n  disable = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.StringExact("*/5")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("rate"), knownvalue.Float64Exact(25.5)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("comment"), knownvalue.StringExact("to pve2")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disable"), knownvalue.Bool(true)),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "100-0",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// Dropping options deletes them in PVE, in place.
				Config: jobConfig(tg, "pve2", "  schedule = \"*/5\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					job, err := tg.Client.GetReplicationJob(context.Background(), "100-0")
					if err != nil {
						return err
					}
					if job.Rate != nil || job.Comment != "" || job.Disable != nil {
						return fmt.Errorf("options left in PVE: %+v", job)
					}
					return nil
				},
			},
			{
				// PVE cannot change a job's target: the job is replaced and
				// comes back under the same id in the same apply.
				Config: jobConfig(tg, "pve3", "  schedule = \"*/5\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("100-0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("target"), knownvalue.StringExact("pve3")),
				},
			},
			{
				// Deleted outside Terraform: the next plan creates it again.
				PreConfig: func() {
					if err := tg.Client.DeleteReplicationJob(context.Background(), "100-0", false, true); err != nil {
						t.Fatal(err)
					}
				},
				Config: jobConfig(tg, "pve3", "  schedule = \"*/5\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

// PVE 8.4 has the same job API (its permission checks differ: Datastore.Allocate
// on /storage instead of VM.Replicate on the guest).
func TestAccReplicationJob_pve84(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	if tg.Sim == nil {
		t.Skip("needs a ZFS storage and VM 100 on the simulator")
	}
	addZFS(t, tg.Sim)
	createVM(t, tg.Client, 100, "local-zfs:4")
	tg.Sim.ReportStats()
	tg.Sim.SetReplicationInterval(200 * time.Millisecond)
	addr := "pve_replication_job.test"
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkJobGone(tg, "100-0"),
		Steps: []resource.TestStep{
			{
				Config: jobConfig(tg, "pve2", "  schedule = \"mon..fri 22:00\"\n"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("100-0")),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "100-0",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// Two jobs of one guest without job_number, created in the same apply
// (in parallel): each gets its own number.
func TestAccReplicationJob_twoJobsOneGuest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if tg.Sim == nil {
		t.Skip("needs a ZFS storage and VM 100 on the simulator")
	}
	addZFS(t, tg.Sim)
	createVM(t, tg.Client, 100, "local-zfs:4")
	tg.Sim.ReportStats()
	tg.Sim.SetReplicationInterval(200 * time.Millisecond)
	config := tg.Config(`
resource "pve_replication_job" "a" {
  vmid   = 100
  target = "pve2"
}
resource "pve_replication_job" "b" {
  vmid   = 100
  target = "pve3"
}
`)
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			if err := checkJobGone(tg, "100-0")(s); err != nil {
				return err
			}
			return checkJobGone(tg, "100-1")(s)
		},
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				a := s.RootModule().Resources["pve_replication_job.a"].Primary.ID
				b := s.RootModule().Resources["pve_replication_job.b"].Primary.ID
				if a == b || (a != "100-0" && a != "100-1") || (b != "100-0" && b != "100-1") {
					return fmt.Errorf("job ids %q and %q", a, b)
				}
				return nil
			},
		}},
	})
}

// A guest and its job made and destroyed in the same applies: the job is
// created once the guest exists, and destroyed before it (the job's
// destroy waits for PVE's removal run, then the guest's destroy finds no
// job left).
func TestAccReplicationJob_withGuest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if tg.Sim == nil {
		t.Skip("needs a ZFS storage on the simulator")
	}
	addZFS(t, tg.Sim)
	tg.Sim.SetReplicationInterval(200 * time.Millisecond)
	config := tg.Config(`
resource "pve_vm" "guest" {
  node = "pve1"
  vmid = 120
  name = "replicated"
  disks = {
    scsi0 = { storage = "local-zfs", size = 4 }
  }
}
resource "pve_replication_job" "test" {
  vmid   = pve_vm.guest.vmid
  target = "pve2"
}
`)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkJobGone(tg, "120-0"),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("pve_replication_job.test", tfjsonpath.New("id"), knownvalue.StringExact("120-0")),
			},
		}},
	})
}
