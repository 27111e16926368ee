package lxc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

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
			{Config: ctConfig(tg, smallCT("", mp0("2"))), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				PreConfig: func() {
					upid, err := tg.Client.ResizeGuestDisk(context.Background(), ct.Node, pveapi.GuestTypeLXC, ct.VMID, "mp0", "3G")
					tg.Outside(t, "grow mp0", upid, err)
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
				Config:            ctConfig(tg, smallCT("", mp0("3"))),
				ConfigPlanChecks:  emptyPlan(),
				ConfigStateChecks: []statecheck.StateCheck{ct.keeps("mp0")},
			},
		},
	})
}

// A container turned into a template outside Terraform: the plan says so
// and names the way over to pve_container_template, which then takes it up.
func TestAccContainer_turnedTemplateOutsideW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	const vmid = 4171
	body := fmt.Sprintf("\n  vmid = %d\n", vmid) + smallCT("", "")

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: ctConfig(tg, body+"  started = false\n"), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				PreConfig: func() {
					if err := tg.Client.TemplateLXC(context.Background(), ct.Node, ct.VMID); err != nil {
						t.Fatalf("convert to a template outside Terraform: %v", err)
					}
				},
				Config:   ctConfig(tg, body+"  started = false\n"),
				PlanOnly: true,
				ExpectError: errorLike("Container Was Turned Into A Template", "is a template now", "pve_container_template",
					"terraform state rm", fmt.Sprintf("terraform import <its address> pve1/%d", vmid)),
			},
			{
				// The way the error names: out of pve_container's state, into
				// pve_container_template's; os_template, which PVE does not
				// report, may be recorded.
				Config: tg.Config(fmt.Sprintf(`
removed {
  from = pve_container.test
  lifecycle { destroy = false }
}
import {
  to = pve_container_template.test
  id = "pve1/%d"
}
resource "pve_container_template" "test" {%s}
`, vmid, body)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{keepsGuest(ctTemplateAddr)},
				},
			},
		},
	})
}

// keepsGuest fails a plan that creates or destroys the resource at addr:
// taking a guest over may record attributes, never replace it.
type keepsGuest string

func (k keepsGuest) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == string(k) && (rc.Change.Actions.Create() || rc.Change.Actions.Delete() || rc.Change.Actions.Replace()) {
			resp.Error = fmt.Errorf("%s: planned %v, want it kept", rc.Address, rc.Change.Actions)
		}
	}
}

// A container with a bind mount not marked shared: PVE refuses to migrate
// it, so a new node is refused at plan time naming the mount point and the
// fix; marked shared, the move applies.
func TestAccContainer_migrationBlockedByLocalBindMount(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	ct := newCTRef(tg)
	mounts := func(shared string) string {
		return `mp0 = { storage = "local-lvm", size = 2, path = "/data" }
    mp1 = { host_path = "/srv/share", path = "/share"` + shared + ` }`
	}
	at := func(node, shared string) string {
		return ctConfig(tg, strings.Replace(smallCT("  started = false", mounts(shared)), `node        = "pve1"`, `node        = "`+node+`"`, 1))
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: at("pve1", ""), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				Config:   at("pve2", ""),
				PlanOnly: true,
				ExpectError: errorLike("Container With Local Mount Point Cannot Migrate", "mp1 mounts the host path /srv/share",
					"set shared = true on mp1", `keep node = "pve1", apply that change first`),
			},
			{Config: at("pve1", ", shared = true")},
			{
				Config:            at("pve2", ", shared = true"),
				ConfigPlanChecks:  expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2"))},
			},
		},
	})
}
