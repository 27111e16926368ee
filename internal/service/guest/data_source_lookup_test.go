package guest_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccGuestDataSourceByVMID(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)
		ds := "data." + k.lookup + ".web"

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{{
				Config: tg.Config(fmt.Sprintf(`data %q "web" { vmid = %d }`, k.lookup, k.web)),
				ConfigStateChecks: []statecheck.StateCheck{
					expectListingReads(tg, 1),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact(fmt.Sprint(k.web))),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmid"), knownvalue.Int64Exact(k.web)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New(k.nameAttr), knownvalue.StringExact("web-1")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("node"), knownvalue.StringExact("pve1")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					// W19: "Web;prod" reads back as PVE's normalised set.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact("prod"), knownvalue.StringExact("web"),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("template"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("pool"), knownvalue.StringExact("prod")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("lock"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("memory"), knownvalue.Int64Exact(k.webMemory)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("cpus"), knownvalue.Int64Exact(2)),
				},
			}},
		})
	})
}

func TestAccGuestDataSourceByName(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)
		web, tmpl := "data."+k.lookup+".web", "data."+k.lookup+".tmpl"

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{{
				// The guest of the other kind is also called web-1; it
				// never matches.
				Config: tg.Config(fmt.Sprintf(`
data %[1]q "web" { %[2]s = "web-1" }
data %[1]q "tmpl" { %[2]s = %[3]q }
`, k.lookup, k.nameAttr, k.tmplName)),
				ConfigStateChecks: []statecheck.StateCheck{
					expectListingReads(tg, 2),
					statecheck.ExpectKnownValue(web, tfjsonpath.New("vmid"), knownvalue.Int64Exact(k.web)),
					statecheck.ExpectKnownValue(web, tfjsonpath.New(k.nameAttr), knownvalue.StringExact("web-1")),
					statecheck.ExpectKnownValue(tmpl, tfjsonpath.New("vmid"), knownvalue.Int64Exact(k.tmpl)),
					statecheck.ExpectKnownValue(tmpl, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					statecheck.ExpectKnownValue(tmpl, tfjsonpath.New("template"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(tmpl, tfjsonpath.New("pool"), knownvalue.Null()),
					statecheck.ExpectKnownValue(tmpl, tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact("template"),
					})),
				},
			}},
		})
	})
}

// Only containers have a listed name PVE makes up, and only the container
// seed has a guest locked for something other than its clone.
func TestAccContainerDataSourceUnnamedAndLocked(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t, containerKind)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`
data "pve_container" "unnamed" { hostname = "CT110" }
data "pve_container" "locked" { vmid = 140 }
`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectListingReads(tg, 2),
				// A container without a hostname is listed, and found, as
				// CT<vmid>.
				statecheck.ExpectKnownValue("data.pve_container.unnamed", tfjsonpath.New("vmid"), knownvalue.Int64Exact(110)),
				statecheck.ExpectKnownValue("data.pve_container.unnamed", tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{})),
				// A described container locked for backup is found; the
				// lock is only reported.
				statecheck.ExpectKnownValue("data.pve_container.locked", tfjsonpath.New("hostname"), knownvalue.StringExact("dns")),
				statecheck.ExpectKnownValue("data.pve_container.locked", tfjsonpath.New("lock"), knownvalue.StringExact("backup")),
			},
		}},
	})
}

func TestAccGuestDataSourceLookupErrors(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "dup" { %s = %q }`, k.lookup, k.nameAttr, k.dupName)),
					ExpectError: errorLike(k.ambiguous...),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { vmid = 4242 }`, k.lookup)),
					ExpectError: errorLike(k.title+" Not Found", "No "+k.noun+" with VMID 4242"),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { %s = "nope" }`, k.lookup, k.nameAttr)),
					ExpectError: errorLike(k.title+" Not Found", "No "+k.noun+` named "nope"`),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { vmid = %d }`, k.lookup, k.otherWeb)),
					ExpectError: errorLike(k.notThisKind...),
				},
			},
		})
	})
}

// W11: a guest mid-clone is present but has no details. By vmid the lookup
// says it is being created; by name it cannot match (it has no name in the
// listing yet), and the not-found error points at it instead of pretending
// it is absent.
func TestAccGuestDataSourceInProgressW11(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { vmid = 130 }`, k.lookup)),
					ExpectError: errorLike(k.title+" Is Being Created", k.title+" 130 on node pve3 is being created or cloned (lock: clone)"),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { %s = "web-3" }`, k.lookup, k.nameAttr)),
					ExpectError: errorLike(k.title+" Not Found", "No "+k.noun+` named "web-3"`, "being created or cloned", "130 on pve3"),
				},
			},
		})
	})
}

func TestAccGuestDataSourceBadInput(t *testing.T) {
	forEachKind(t, func(t *testing.T, k dsKind) {
		tg := seededTarget(t, k)
		exactlyOne := "Exactly one of these attributes must be configured: [vmid," + k.nameAttr + "]"

		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { }`, k.lookup)),
					ExpectError: errorLike(exactlyOne),
				},
				{
					Config:      tg.Config(fmt.Sprintf("data %q \"x\" {\n  vmid = %d\n  %s = \"web-1\"\n}", k.lookup, k.web, k.nameAttr)),
					ExpectError: errorLike(exactlyOne),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { vmid = 99 }`, k.lookup)),
					ExpectError: errorLike("vmid", "must be between 100 and 999999999"),
				},
				{
					Config:      tg.Config(fmt.Sprintf(`data %q "x" { %s = "" }`, k.lookup, k.nameAttr)),
					ExpectError: errorLike(k.nameAttr, "string length must be at least 1"),
				},
			},
		})
		expectNoRequests(t, tg)
	})
}
