package snapshot_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

// A token holding only the privileges of the read and guest_snapshots
// features takes a snapshot, changes its description and deletes it.
func TestAccSnapshot_guestSnapshotsFeatureSuffices(t *testing.T) {
	t.Parallel()
	res, err := access.Compute(access.PVE9, []string{access.Read, "guest_snapshots"})
	if err != nil {
		t.Fatal(err)
	}
	tg := acctest.NewRestricted(t, "9.1", res.Privileges)
	if err := tg.Sim.AddGuest(pvesim.Guest{VMID: 160, Node: "pve1", Type: pvesim.QEMU, Status: "stopped",
		Config: map[string]string{"name": "restricted", "memory": "512"}}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: snapshotConfig(tg, "pve_vm_snapshot", 160, "least", "  description = \"first\"\n")},
			{
				Config: snapshotConfig(tg, "pve_vm_snapshot", 160, "least", "  description = \"second\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("pve_vm_snapshot.test", plancheck.ResourceActionUpdate)},
				},
			},
		},
	})
}
