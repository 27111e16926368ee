package backupjob_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// On PVE 8.4 a job may still notify through notification_policy and
// notification_target, which PVE 9 removed.
func TestAccBackupJob_pve84NotificationPolicy(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	id := acctest.Name("tfacc")
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkJobDestroyed(tg, id),
		Steps: []resource.TestStep{
			{
				Config: tg.Config(fmt.Sprintf(`
resource "pve_backup_job" "test" {
  id                  = %q
  schedule            = "daily"
  all                 = true
  notification_policy = "failure"
  notification_target = "mail-to-root"
}
`, id)),
			},
			{
				ResourceName:      jobAddr,
				ImportState:       true,
				ImportStateId:     id,
				ImportStateVerify: true,
			},
		},
	})
}
