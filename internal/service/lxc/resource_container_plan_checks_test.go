package lxc_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// outside waits for a task started outside Terraform and fails the test
// when it could not run.
func outside(t *testing.T, tg *acctest.Target, what, upid string, err error) {
	t.Helper()
	if err == nil {
		_, err = tg.Client.WaitTask(context.Background(), upid)
	}
	if err != nil {
		t.Fatalf("%s outside Terraform: %v", what, err)
	}
}

func emptyPlan() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
}

// A mount point grown outside Terraform: the plan names both sizes and
// both fixes, and each fix gives an empty plan.
func TestAccContainer_grownOutsideNamesFixesW22(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	mp0 := func(size string) string {
		return `mp0 = { storage = "local-lvm", size = ` + size + `, path = "/data" }`
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: ctConfig(tg, smallCT("", mp0("2"))), Check: ct.record()},
			{
				PreConfig: func() {
					upid, err := tg.Client.ResizeLXCDisk(context.Background(), ct.node, ct.vmid, "mp0", "3G")
					outside(t, tg, "grow mp0", upid, err)
				},
				Config:   ctConfig(tg, smallCT("", mp0("2"))),
				PlanOnly: true,
				ExpectError: errorLike("Mount Point Cannot Shrink", "Mount point mp0 is 3 GiB in PVE; the configuration asks for 2 GiB",
					"set size = 3 in", `ignore_changes = [mount_points["mp0"].size]`),
			},
			{
				Config:           ctConfig(tg, smallCT("  lifecycle {\n    ignore_changes = [mount_points[\"mp0\"].size]\n  }", mp0("2"))),
				ConfigPlanChecks: emptyPlan(),
			},
			{
				Config:           ctConfig(tg, smallCT("", mp0("3"))),
				ConfigPlanChecks: emptyPlan(),
				Check:            ct.keeps("mp0"),
			},
		},
	})
}
