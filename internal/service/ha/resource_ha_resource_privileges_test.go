package ha_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

// A token holding only the ha_resources feature's privileges creates,
// changes and deletes an HA resource and reads the HA status.
func TestAccHAResource_featurePrivilegesSuffice(t *testing.T) {
	t.Parallel()
	res, err := access.Compute(access.PVE9, []string{"ha_resources"})
	if err != nil {
		t.Fatal(err)
	}
	tg := acctest.NewRestricted(t, "9.1", res.Privileges)
	haSeedGuests(t, tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: haStatusConfig(tg)},
			{Config: haResourceConfig(tg, "vmid", 100, "state", "stopped")},
		},
	})
}
