package backupjob_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

func privilegesOf(t *testing.T, features ...string) []string {
	t.Helper()
	res, err := access.Compute(access.PVE9, features)
	if err != nil {
		t.Fatal(err)
	}
	return res.Privileges
}

const restrictedJobConfig = `
resource "pve_pool" "team" {
  poolid = "tfacc-backups"
}

resource "pve_backup_job" "test" {
  schedule = "21:00"
  pool     = pve_pool.team.poolid
  storage  = "local"
  fleecing = {
    enabled = true
    storage = "local-lvm"
  }
}

data "pve_guests_not_backed_up" "missing" {
  depends_on = [pve_backup_job.test]
}
`

// The backup_jobs row of the privilege table suffices for a job that
// backs up a pool to a storage with fleecing (pve-manager
// PVE/API2/Backup.pm create_job, assert_param_permission_create), and the
// default features alone do not.
func TestAccBackupJob_privilegesSuffice(t *testing.T) {
	t.Parallel()
	tg := acctest.NewRestricted(t, "9.1", privilegesOf(t, append(access.DefaultFeatureNames(), "backup_jobs")...))
	tg.Run(t, resource.TestCase{Steps: []resource.TestStep{{Config: tg.Config(restrictedJobConfig)}}})

	tg = acctest.NewRestricted(t, "9.1", privilegesOf(t, access.DefaultFeatureNames()...))
	tg.Run(t, resource.TestCase{Steps: []resource.TestStep{{
		Config:      tg.Config(restrictedJobConfig),
		ExpectError: regexp.MustCompile(`Sys\.Modify`),
	}}})
}
