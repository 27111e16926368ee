package backupjob_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func example(t *testing.T, kind, typ, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", kind, typ, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The documented examples apply as written: the jobs, then the listing
// (with next runs) and the check that every guest has a job.
func TestAccBackupJob_examples(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	jobs := tg.Config(example(t, "resources", "pve_backup_job", "resource.tf"))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: jobs},
			{
				// The data sources, read once the jobs exist.
				Config: jobs + example(t, "data-sources", "pve_backup_jobs", "data-source.tf") +
					example(t, "data-sources", "pve_guests_not_backed_up", "data-source.tf"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.pve_backup_jobs.all", tfjsonpath.New("jobs"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("data.pve_backup_jobs.all", tfjsonpath.New("jobs").AtSliceIndex(0).AtMapKey("next_run"),
						knownvalue.StringRegexp(regexp.MustCompile(`^20\d\d-\d\d-\d\dT(21|02):00:00Z$`))),
					statecheck.ExpectKnownValue("data.pve_guests_not_backed_up.missing", tfjsonpath.New("guests"), knownvalue.ListSizeExact(0)),
				},
			},
		},
	})
}
