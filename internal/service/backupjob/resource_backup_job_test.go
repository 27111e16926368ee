package backupjob_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

const jobAddr = "pve_backup_job.test"

func checkJobDestroyed(tg *acctest.Target, id string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.GetBackupJob(context.Background(), id)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("backup job %s still exists after destroy", id)
		}
		return nil
	}
}

func expectAction(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(jobAddr, action)}}
}

// Create, in-place updates (schedule, selection, retention, settings
// dropped), import, and a job deleted outside Terraform.
func TestAccBackupJob_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	id := acctest.Name("tfacc")
	created := tg.Config(fmt.Sprintf(`
resource "pve_backup_job" "test" {
  id             = %q
  schedule       = "21:00"
  all            = true
  exclude        = [100, 101]
  storage        = "local"
  mode           = "snapshot"
  compress       = "zstd"
  notes_template = "{{guestname}} on {{node}}"
  comment        = "nightly"
  retention = {
    keep_last  = 3
    keep_daily = 7
  }
  fleecing = {
    enabled = true
    storage = "local-lvm"
  }
}
`, id))
	updated := tg.Config(fmt.Sprintf(`
resource "pve_backup_job" "test" {
  id       = %q
  schedule = "sat 02:00"
  vmids    = [102, 100]
  enabled  = false
  storage  = "local"
  retention = {
    keep_all = true
  }
  bwlimit = 50000
}
`, id))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkJobDestroyed(tg, id),
		Steps: []resource.TestStep{
			{
				Config:           created,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("enabled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("retention").AtMapKey("keep_daily"), knownvalue.Int64Exact(7)),
				},
			},
			{
				Config:           updated,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("all"), knownvalue.Null()),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("exclude"), knownvalue.Null()),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("comment"), knownvalue.Null()),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("fleecing"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					job, _, err := tg.Client.GetBackupJob(context.Background(), id)
					if err != nil {
						return err
					}
					o := job.Options
					if o["vmid"] != "100,102" || o["enabled"] != "0" || o["schedule"] != "sat 02:00" || o["prune-backups"] != "keep-all=1" ||
						o["all"] != "" || o["exclude"] != "" || o["comment"] != "" || o["notes-template"] != "" {
						return fmt.Errorf("PVE has %v", o)
					}
					return nil
				},
			},
			{
				ResourceName:      jobAddr,
				ImportState:       true,
				ImportStateId:     id,
				ImportStateVerify: true,
			},
			{
				// Deleted outside Terraform: the next plan creates it again.
				PreConfig: func() {
					if err := tg.Client.DeleteBackupJob(context.Background(), id); err != nil {
						t.Fatal(err)
					}
				},
				Config:           updated,
				ConfigPlanChecks: expectAction(plancheck.ResourceActionCreate),
			},
		},
	})
}

// Without an id the provider names the job the way PVE's web UI does.
func TestAccBackupJob_generatedID(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`
resource "pve_backup_job" "test" {
  schedule = "mon..fri 23:30"
  all      = true
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("id"),
					knownvalue.StringRegexp(regexp.MustCompile(`^backup-[0-9a-f]{8}-[0-9a-f]{4}$`))),
			},
		}},
	})
}

func guestsAndJob(tg *acctest.Target, names ...string) string {
	body := ""
	refs := ""
	for _, n := range names {
		body += fmt.Sprintf(`
resource "pve_vm" %q {
  node    = "pve1"
  name    = "tfacc-%s"
  started = false
}
`, n, n)
		refs += fmt.Sprintf("pve_vm.%s.vmid, ", n)
	}
	return tg.Config(body + fmt.Sprintf(`
resource "pve_backup_job" "test" {
  schedule = "21:00"
  vmids    = [%s]
}
`, refs))
}

// A guest removed from the configuration together with its id in the job:
// Terraform updates the job before it destroys the guest, whose purge then
// finds nothing to remove, and the next plan is empty. PVE's purge
// (pve-guest-common src/PVE/VZDump/Plugin.pm remove_vmid_from_backup_jobs)
// would otherwise have taken the id out itself.
func TestAccBackupJob_guestDestroyedInSameApply(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: guestsAndJob(tg, "a", "b"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("vmids"), knownvalue.SetSizeExact(2)),
				},
			},
			{
				Config: guestsAndJob(tg, "a"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("pve_vm.b", plancheck.ResourceActionDestroy),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("vmids"), knownvalue.SetSizeExact(1)),
				},
			},
		},
	})
}

// pve_guests_not_backed_up lists the guests no job covers, with name and
// type.
func TestAccGuestsNotBackedUp(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	guests := tg.Config(`
resource "pve_vm" "a" {
  node    = "pve1"
  name    = "tfacc-a"
  started = false
}
resource "pve_vm" "b" {
  node    = "pve1"
  name    = "tfacc-b"
  started = false
}
resource "pve_backup_job" "test" {
  schedule = "21:00"
  vmids    = [pve_vm.a.vmid]
}
`)
	const ds = "data.pve_guests_not_backed_up.missing"
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: guests},
			{
				Config: guests + `
data "pve_guests_not_backed_up" "missing" {}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("guests"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"vmid": knownvalue.NotNull(), "name": knownvalue.StringExact("tfacc-b"), "type": knownvalue.StringExact("qemu"),
						}),
					})),
					statecheck.CompareValuePairs(ds, tfjsonpath.New("guests").AtSliceIndex(0).AtMapKey("vmid"),
						"pve_vm.b", tfjsonpath.New("vmid"), compare.ValuesSame()),
				},
			},
		},
	})
}

func renumberedGuestAndJob(tg *acctest.Target, vmid int) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_vm" "a" {
  vmid    = %d
  node    = "pve1"
  name    = "tfacc-a"
  started = false
}
resource "pve_backup_job" "test" {
  schedule = "21:00"
  vmids    = [pve_vm.a.vmid]
}
`, vmid))
}

// A guest replaced under a new VMID: Terraform destroys the old guest
// first, and its purge deletes the job whose only guest it was
// (pve-guest-common src/PVE/VZDump/Plugin.pm remove_vmid_from_backup_jobs);
// the job's update then writes it again with the new guest, and the next
// plan is empty.
func TestAccBackupJob_onlyGuestReplaced(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: renumberedGuestAndJob(tg, 150)},
			{
				Config: renumberedGuestAndJob(tg, 151),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("pve_vm.a", plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("vmids"), knownvalue.SetExact([]knownvalue.Check{knownvalue.Int64Exact(151)})),
				},
			},
		},
	})
}

// root@pam logged in with a password may set what PVE reserves to it.
func TestAccBackupJob_rootOnlyOptionsWithPassword(t *testing.T) {
	t.Parallel()
	if acctest.IsLive() {
		t.Skip("needs root@pam's password")
	}
	tg := acctest.NewWithPassword(t)
	id := acctest.Name("tfacc")
	config := func(tmpdir string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_backup_job" "test" {
  id       = %q
  schedule = "21:00"
  all      = true
  script   = "/usr/local/bin/vzdump-hook"
  tmpdir   = %q
}
`, id, tmpdir))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkJobDestroyed(tg, id),
		Steps: []resource.TestStep{
			{Config: config("/var/tmp")},
			{Config: config("/srv/tmp"), ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate)},
			{ResourceName: jobAddr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
		},
	})
}
