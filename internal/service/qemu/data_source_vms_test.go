package qemu_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

func vmidList(ids ...int64) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(ids))
	for _, id := range ids {
		checks = append(checks, knownvalue.Int64Exact(id))
	}
	return knownvalue.ListExact(checks)
}

func TestAccVMsDataSourceAll(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)
	const ds = "data.pve_vms.all"
	vm := func(i int) tfjsonpath.Path { return tfjsonpath.New("vms").AtSliceIndex(i) }

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_vms" "all" {}`),
			Check:  expectListingReads(tg, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact("vms")),
				// Sorted by vmid; container 102 is not a VM.
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmids"), vmidList(101, 105, 130, 140, 141, 9000)),
				statecheck.ExpectKnownValue(ds, vm(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"vmid":     knownvalue.Int64Exact(101),
					"name":     knownvalue.StringExact("web-1"),
					"node":     knownvalue.StringExact("pve1"),
					"status":   knownvalue.StringExact("running"),
					"tags":     knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("prod"), knownvalue.StringExact("web")}), // W19
					"template": knownvalue.Bool(false),
					"pool":     knownvalue.StringExact("prod"),
					"lock":     knownvalue.Null(),
					"memory":   knownvalue.Int64Exact(2048),
					"cpus":     knownvalue.Int64Exact(2),
				})),
				// W11: the VM mid-clone is listed, with what PVE tells
				// about it and nothing made up.
				statecheck.ExpectKnownValue(ds, vm(2), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"vmid":     knownvalue.Int64Exact(130),
					"name":     knownvalue.Null(),
					"node":     knownvalue.StringExact("pve3"),
					"status":   knownvalue.StringExact("unknown"),
					"tags":     knownvalue.Null(),
					"template": knownvalue.Null(),
					"pool":     knownvalue.Null(),
					"lock":     knownvalue.StringExact("clone"),
					"memory":   knownvalue.Null(),
					"cpus":     knownvalue.Null(),
				})),
				statecheck.ExpectKnownValue(ds, vm(3).AtMapKey("tags"), knownvalue.SetExact([]knownvalue.Check{})),
				statecheck.ExpectKnownValue(ds, vm(5).AtMapKey("template"), knownvalue.Bool(true)),
			},
		}},
	})
}

func TestAccVMsDataSourceFilters(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`
data "pve_vms" "pve3" { node = "pve3" }
data "pve_vms" "web" { tags = ["Web"] }
data "pve_vms" "web_prod" { tags = ["web", "prod"] }
data "pve_vms" "regex" { name_regex = "^web-" }
data "pve_vms" "templates" { template = true }
data "pve_vms" "not_templates" { template = false }
data "pve_vms" "combined" {
  node     = "pve1"
  tags     = ["prod"]
  template = false
}
data "pve_vms" "none" { node = "pve9" }
`),
			// One listing per data source read, however many VMs.
			Check: expectListingReads(tg, 8),
			ConfigStateChecks: []statecheck.StateCheck{
				// A node filter alone keeps the VM mid-clone (W11).
				statecheck.ExpectKnownValue("data.pve_vms.pve3", tfjsonpath.New("vmids"), vmidList(130, 140)),
				// W19: the filter's "Web" is compared in normalised form. The
				// container tagged web and the VM mid-clone (its tags are not
				// reported yet, W11) are left out.
				statecheck.ExpectKnownValue("data.pve_vms.web", tfjsonpath.New("vmids"), vmidList(101, 105)),
				statecheck.ExpectKnownValue("data.pve_vms.web_prod", tfjsonpath.New("vmids"), vmidList(101)),
				statecheck.ExpectKnownValue("data.pve_vms.regex", tfjsonpath.New("vmids"), vmidList(101, 105)),
				statecheck.ExpectKnownValue("data.pve_vms.templates", tfjsonpath.New("vmids"), vmidList(9000)),
				statecheck.ExpectKnownValue("data.pve_vms.not_templates", tfjsonpath.New("vmids"), vmidList(101, 105, 140, 141)),
				statecheck.ExpectKnownValue("data.pve_vms.combined", tfjsonpath.New("vmids"), vmidList(101, 141)),
				statecheck.ExpectKnownValue("data.pve_vms.none", tfjsonpath.New("vmids"), vmidList()),
				statecheck.ExpectKnownValue("data.pve_vms.none", tfjsonpath.New("vms"), knownvalue.ListExact([]knownvalue.Check{})),
			},
		}},
	})
}

func TestAccVMsDataSourceBadInput(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				// RE2 has no lookahead.
				Config:      tg.Config(`data "pve_vms" "x" { name_regex = "^(?!db)" }`),
				ExpectError: errorLike("Invalid Regular Expression", "not a valid RE2 regular expression"),
			},
			{
				// W19: a tag PVE would refuse is refused at plan time.
				Config:      tg.Config(`data "pve_vms" "x" { tags = ["web", "no spaces"] }`),
				ExpectError: errorLike("Invalid Tag", `invalid characters in tag: "no spaces"`),
			},
			{
				Config:      tg.Config(`data "pve_vms" "x" { node = "" }`),
				ExpectError: errorLike("node", "string length must be at least 1"),
			},
		},
	})
	expectNoRequests(t, tg)
}

// A failed listing fails the read with what PVE said; neither data source
// falls back to asking per VM.
func TestAccVMDataSourcesListingFails(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)
	err := tg.Sim.InjectFault(pvesim.Fault{
		Method: "GET", Path: "/cluster/resources", Action: pvesim.FaultRespond,
		Status: 500, Message: "cluster not ready - no quorum?",
	})
	if err != nil {
		t.Fatalf("inject fault: %v", err)
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_vm" "x" { vmid = 101 }`),
				ExpectError: errorLike("Unable To List PVE Guests", "cluster not ready - no quorum?"),
			},
			{
				Config:      tg.Config(`data "pve_vms" "x" {}`),
				ExpectError: errorLike("Unable To List PVE Guests", "cluster not ready - no quorum?"),
			},
		},
	})
	for _, r := range tg.Sim.Requests() {
		if r.Path != "/cluster/resources" {
			t.Errorf("unexpected request %s %s", r.Method, r.Path)
		}
	}
}
