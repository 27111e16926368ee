package guest_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

func TestAccGuestsDataSourceAll(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)
		ds := "data." + k.list + ".all"

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{{
				Config: tg.Config(fmt.Sprintf(`data %q "all" {}`, k.list)),
				ConfigStateChecks: []statecheck.StateCheck{
					expectListingReads(tg, 1),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact(k.listAttr)),
					// Sorted by vmid; the guest of the other kind is left out.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmids"), vmidList(k.all...)),
					statecheck.ExpectKnownValue(ds, k.listed(t, k.web), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"vmid":     knownvalue.Int64Exact(k.web),
						k.nameAttr: knownvalue.StringExact("web-1"),
						"node":     knownvalue.StringExact("pve1"),
						"status":   knownvalue.StringExact("running"),
						"tags":     knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("prod"), knownvalue.StringExact("web")}), // W19
						"template": knownvalue.Bool(false),
						"pool":     knownvalue.StringExact("prod"),
						"lock":     knownvalue.Null(),
						"memory":   knownvalue.Int64Exact(k.webMemory),
						"cpus":     knownvalue.Int64Exact(2),
					})),
					// W11: the guest mid-clone is listed, with what PVE
					// tells about it and nothing made up.
					statecheck.ExpectKnownValue(ds, k.listed(t, 130), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"vmid":     knownvalue.Int64Exact(130),
						k.nameAttr: knownvalue.Null(),
						"node":     knownvalue.StringExact("pve3"),
						"status":   knownvalue.StringExact("unknown"),
						"tags":     knownvalue.Null(),
						"template": knownvalue.Null(),
						"pool":     knownvalue.Null(),
						"lock":     knownvalue.StringExact("clone"),
						"memory":   knownvalue.Null(),
						"cpus":     knownvalue.Null(),
					})),
					statecheck.ExpectKnownValue(ds, k.listed(t, 140).AtMapKey("tags"), knownvalue.SetExact([]knownvalue.Check{})),
					statecheck.ExpectKnownValue(ds, k.listed(t, k.tmpl).AtMapKey("template"), knownvalue.Bool(true)),
				},
			}},
		})
	})
}

// What PVE lists for a container configured without cores or a hostname,
// and a container locked for backup: only containers have those.
func TestAccContainersDataSourceListedDefaults(t *testing.T) {
	t.Parallel()
	k := containerKind
	tg := seededTarget(t, k)
	const ds = "data.pve_containers.all"

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_containers" "all" {}`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectListingReads(tg, 1),
				// The paths below hold the vmids' places in the list.
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmids"), vmidList(k.all...)),
				// Without cores PVE lists the node's CPU count (16 on the
				// simulated nodes).
				statecheck.ExpectKnownValue(ds, k.listed(t, 105).AtMapKey("cpus"), knownvalue.Int64Exact(16)),
				statecheck.ExpectKnownValue(ds, k.listed(t, 105).AtMapKey("memory"), knownvalue.Int64Exact(512)),
				statecheck.ExpectKnownValue(ds, k.listed(t, 110).AtMapKey("hostname"), knownvalue.StringExact("CT110")),
				statecheck.ExpectKnownValue(ds, k.listed(t, 140).AtMapKey("lock"), knownvalue.StringExact("backup")),
			},
		}},
	})
}

func TestAccGuestsDataSourceFilters(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)
		selects := func(label string, ids []int64) statecheck.StateCheck {
			return statecheck.ExpectKnownValue("data."+k.list+"."+label, tfjsonpath.New("vmids"), vmidList(ids...))
		}

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{{
				Config: tg.Config(fmt.Sprintf(`
data %[1]q "pve3" { node = "pve3" }
data %[1]q "web" { tags = ["Web"] }
data %[1]q "web_prod" { tags = ["web", "prod"] }
data %[1]q "regex" { %[2]s = "^web-" }
data %[1]q "templates" { template = true }
data %[1]q "not_templates" { template = false }
data %[1]q "combined" {
  node     = "pve1"
  tags     = ["prod"]
  template = false
}
data %[1]q "none" { node = "pve9" }
`, k.list, k.regexAttr)),
				ConfigStateChecks: []statecheck.StateCheck{
					// One listing per data source read, however many guests.
					expectListingReads(tg, 8),
					// A node filter alone keeps the guest mid-clone (W11).
					selects("pve3", k.filtered.pve3),
					// W19: the filter's "Web" is compared in normalised
					// form. The guest of the other kind tagged web and the
					// guest mid-clone (its tags are not reported yet, W11)
					// are left out.
					selects("web", k.filtered.web),
					selects("web_prod", k.filtered.webProd),
					selects("regex", k.filtered.regex),
					selects("templates", k.filtered.templates),
					selects("not_templates", k.filtered.notTemplates),
					selects("combined", k.filtered.combined),
					selects("none", nil),
					statecheck.ExpectKnownValue("data."+k.list+".none", tfjsonpath.New(k.listAttr), knownvalue.ListExact([]knownvalue.Check{})),
				},
			}},
		})
	})
}

// Only containers have names PVE makes up (CT<vmid>) for a filter to
// match.
func TestAccContainersDataSourceUnnamedFilter(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t, containerKind)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_containers" "unnamed" { hostname_regex = "^CT[0-9]+$" }`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectListingReads(tg, 1),
				statecheck.ExpectKnownValue("data.pve_containers.unnamed", tfjsonpath.New("vmids"), vmidList(110)),
			},
		}},
	})
}

func TestAccGuestsDataSourceBadInput(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{
				{
					// RE2 has no lookahead.
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { %s = "^(?!db)" }`, k.list, k.regexAttr)),
					ExpectError: errorLike("Invalid Regular Expression", "not a valid RE2 regular expression"),
				},
				{
					// W19: a tag PVE would refuse is refused at plan time.
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { tags = ["web", "no spaces"] }`, k.list)),
					ExpectError: errorLike("Invalid Tag", `invalid characters in tag: "no spaces"`),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { node = "" }`, k.list)),
					ExpectError: errorLike("node", "string length must be at least 1"),
				},
			},
		})
		expectNoRequests(t, tg)
	})
}

// The VM data source's filter name is not accepted by the container list.
func TestAccContainersDataSourceRejectsVMFilter(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t, containerKind)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      tg.Config(`data "pve_containers" "x" { name_regex = "^web-" }`),
			ExpectError: errorLike(`An argument named "name_regex" is not expected here`),
		}},
	})
	expectNoRequests(t, tg)
}

// A failed listing fails the read with what PVE said; neither data source
// falls back to asking per guest.
func TestAccGuestDataSourcesListingFails(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)
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
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { vmid = %d }`, k.lookup, k.web)),
					ExpectError: errorLike("Unable To List PVE Guests", "cluster not ready - no quorum?"),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" {}`, k.list)),
					ExpectError: errorLike("Unable To List PVE Guests", "cluster not ready - no quorum?"),
				},
			},
		})
		expectOnlyListing(t, tg)
	})
}
