package lxc_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

func containerVMIDs(ids ...int64) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(ids))
	for _, id := range ids {
		checks = append(checks, knownvalue.Int64Exact(id))
	}
	return knownvalue.ListExact(checks)
}

func TestAccContainersDataSourceAll(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)
	const ds = "data.pve_containers.all"
	ct := func(i int) tfjsonpath.Path { return tfjsonpath.New("containers").AtSliceIndex(i) }

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_containers" "all" {}`),
			Check:  expectContainerListingReads(tg, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact("containers")),
				// Sorted by vmid; VM 101 is not a container.
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmids"), containerVMIDs(102, 105, 110, 130, 140, 141, 8000)),
				statecheck.ExpectKnownValue(ds, ct(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"vmid":     knownvalue.Int64Exact(102),
					"hostname": knownvalue.StringExact("web-1"),
					"node":     knownvalue.StringExact("pve1"),
					"status":   knownvalue.StringExact("running"),
					"tags":     knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("prod"), knownvalue.StringExact("web")}), // W19
					"template": knownvalue.Bool(false),
					"pool":     knownvalue.StringExact("prod"),
					"lock":     knownvalue.Null(),
					"memory":   knownvalue.Int64Exact(1024),
					"cpus":     knownvalue.Int64Exact(2),
				})),
				// Without cores PVE lists the node's CPU count (16 on the
				// simulated nodes).
				statecheck.ExpectKnownValue(ds, ct(1).AtMapKey("cpus"), knownvalue.Int64Exact(16)),
				statecheck.ExpectKnownValue(ds, ct(1).AtMapKey("memory"), knownvalue.Int64Exact(512)),
				statecheck.ExpectKnownValue(ds, ct(2).AtMapKey("hostname"), knownvalue.StringExact("CT110")),
				// W11: the container mid-clone is listed, with what PVE
				// tells about it and nothing made up.
				statecheck.ExpectKnownValue(ds, ct(3), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"vmid":     knownvalue.Int64Exact(130),
					"hostname": knownvalue.Null(),
					"node":     knownvalue.StringExact("pve3"),
					"status":   knownvalue.StringExact("unknown"),
					"tags":     knownvalue.Null(),
					"template": knownvalue.Null(),
					"pool":     knownvalue.Null(),
					"lock":     knownvalue.StringExact("clone"),
					"memory":   knownvalue.Null(),
					"cpus":     knownvalue.Null(),
				})),
				statecheck.ExpectKnownValue(ds, ct(4).AtMapKey("tags"), knownvalue.SetExact([]knownvalue.Check{})),
				statecheck.ExpectKnownValue(ds, ct(4).AtMapKey("lock"), knownvalue.StringExact("backup")),
				statecheck.ExpectKnownValue(ds, ct(6).AtMapKey("template"), knownvalue.Bool(true)),
			},
		}},
	})
}

func TestAccContainersDataSourceFilters(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`
data "pve_containers" "pve3" { node = "pve3" }
data "pve_containers" "web" { tags = ["Web"] }
data "pve_containers" "web_prod" { tags = ["web", "prod"] }
data "pve_containers" "regex" { hostname_regex = "^web-" }
data "pve_containers" "unnamed" { hostname_regex = "^CT[0-9]+$" }
data "pve_containers" "templates" { template = true }
data "pve_containers" "not_templates" { template = false }
data "pve_containers" "combined" {
  node     = "pve1"
  tags     = ["prod"]
  template = false
}
data "pve_containers" "none" { node = "pve9" }
`),
			// One listing per data source read, however many guests.
			Check: expectContainerListingReads(tg, 9),
			ConfigStateChecks: []statecheck.StateCheck{
				// A node filter alone keeps the container mid-clone (W11).
				statecheck.ExpectKnownValue("data.pve_containers.pve3", tfjsonpath.New("vmids"), containerVMIDs(110, 130, 140)),
				// W19: the filter's "Web" is compared in normalised form. The
				// VM tagged web and the container mid-clone (its tags are not
				// reported yet, W11) are left out.
				statecheck.ExpectKnownValue("data.pve_containers.web", tfjsonpath.New("vmids"), containerVMIDs(102, 105)),
				statecheck.ExpectKnownValue("data.pve_containers.web_prod", tfjsonpath.New("vmids"), containerVMIDs(102)),
				statecheck.ExpectKnownValue("data.pve_containers.regex", tfjsonpath.New("vmids"), containerVMIDs(102, 105)),
				statecheck.ExpectKnownValue("data.pve_containers.unnamed", tfjsonpath.New("vmids"), containerVMIDs(110)),
				statecheck.ExpectKnownValue("data.pve_containers.templates", tfjsonpath.New("vmids"), containerVMIDs(8000)),
				statecheck.ExpectKnownValue("data.pve_containers.not_templates", tfjsonpath.New("vmids"), containerVMIDs(102, 105, 110, 140, 141)),
				statecheck.ExpectKnownValue("data.pve_containers.combined", tfjsonpath.New("vmids"), containerVMIDs(102, 141)),
				statecheck.ExpectKnownValue("data.pve_containers.none", tfjsonpath.New("vmids"), containerVMIDs()),
				statecheck.ExpectKnownValue("data.pve_containers.none", tfjsonpath.New("containers"), knownvalue.ListExact([]knownvalue.Check{})),
			},
		}},
	})
}

func TestAccContainersDataSourceBadInput(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				// RE2 has no lookahead.
				Config:      tg.Config(`data "pve_containers" "x" { hostname_regex = "^(?!db)" }`),
				ExpectError: containerErrorLike("Invalid Regular Expression", "not a valid RE2 regular expression"),
			},
			{
				// W19: a tag PVE would refuse is refused at plan time.
				Config:      tg.Config(`data "pve_containers" "x" { tags = ["web", "no spaces"] }`),
				ExpectError: containerErrorLike("Invalid Tag", `invalid characters in tag: "no spaces"`),
			},
			{
				Config:      tg.Config(`data "pve_containers" "x" { node = "" }`),
				ExpectError: containerErrorLike("node", "string length must be at least 1"),
			},
			{
				// The VM data source's filter name is not accepted here.
				Config:      tg.Config(`data "pve_containers" "x" { name_regex = "^web-" }`),
				ExpectError: containerErrorLike(`An argument named "name_regex" is not expected here`),
			},
		},
	})
	expectRefusedBeforeRequests(t, tg)
}

// A failed listing fails the read with what PVE said; neither data source
// falls back to asking per container.
func TestAccContainerDataSourcesListingFails(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)
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
				Config:      tg.Config(`data "pve_container" "x" { vmid = 102 }`),
				ExpectError: containerErrorLike("Unable To List PVE Guests", "cluster not ready - no quorum?"),
			},
			{
				Config:      tg.Config(`data "pve_containers" "x" {}`),
				ExpectError: containerErrorLike("Unable To List PVE Guests", "cluster not ready - no quorum?"),
			},
		},
	})
	for _, r := range tg.Sim.Requests() {
		if r.Path != "/cluster/resources" {
			t.Errorf("unexpected request %s %s", r.Method, r.Path)
		}
	}
}
