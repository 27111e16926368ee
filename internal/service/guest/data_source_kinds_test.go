package guest_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// dsKind is what the data source tests of one guest kind say in their own
// words: the data sources and attributes, the guests seeded for them and
// what the scenarios expect of those guests. The scenarios the kinds share
// run once per kind; a scenario only one kind has is its own test.
type dsKind struct {
	// name names the subtest.
	name string
	// lookup and list are the data source types; nameAttr holds the
	// guest's listed name, regexAttr filters on it, listAttr lists the
	// guests (and is the list's id).
	lookup, list, nameAttr, regexAttr, listAttr string
	// title and noun name the kind in error summaries and details.
	title, noun string

	// guests are seeded into the simulator: guests of the kind on three
	// nodes, a template, two guests sharing a name, a guest of the other
	// kind sharing a name with one of the kind, and a guest mid-clone
	// (W11, vmid 130, named web-3).
	guests []pvesim.Guest
	// web is the kind's running guest web-1 on pve1, in pool prod, tagged
	// "Web;prod", with 2 cores and webMemory MiB; otherWeb is the guest
	// of the other kind also named web-1.
	web, webMemory, otherWeb int64
	// tmpl is the kind's template on pve2, named tmplName and tagged
	// template.
	tmpl     int64
	tmplName string
	// dupName names the two guests 140 on pve3 and 141 on pve1; vmid 140
	// has no tags.
	dupName string
	// ambiguous and notThisKind are the parts of the errors for a lookup
	// of dupName and of otherWeb.
	ambiguous, notThisKind []string
	// all are the kind's vmids, ascending; filtered what each filter of
	// the list scenario selects.
	all      []int64
	filtered filtered
}

// filtered holds the vmids each filter of TestAccGuestsDataSourceFilters
// selects, by data source label.
type filtered struct {
	pve3, web, webProd, regex, templates, notTemplates, combined []int64
}

var vmKind = dsKind{
	name: "VM", lookup: "pve_vm", list: "pve_vms", nameAttr: "name", regexAttr: "name_regex", listAttr: "vms",
	title: "VM", noun: "VM",
	guests: []pvesim.Guest{
		{VMID: 101, Node: "pve1", Type: pvesim.QEMU, Status: "running", Pool: "prod",
			Config: map[string]string{"name": "web-1", "tags": "Web;prod", "memory": "2048", "cores": "2"}},
		{VMID: 102, Node: "pve1", Type: pvesim.LXC, Status: "running",
			Config: map[string]string{"hostname": "web-1", "tags": "web"}},
		{VMID: 105, Node: "pve2", Type: pvesim.QEMU, Status: "stopped",
			Config: map[string]string{"name": "web-2", "tags": "web", "memory": "1024"}},
		// W11: a guest whose clone has just begun is not reported by
		// pvestatd yet: PVE lists it without name, tags or template flag.
		{VMID: 130, Node: "pve3", Type: pvesim.QEMU, Status: "stopped",
			Config: map[string]string{"name": "web-3", "tags": "web", "lock": "clone"}},
		{VMID: 140, Node: "pve3", Type: pvesim.QEMU, Status: "stopped",
			Config: map[string]string{"name": "db"}},
		{VMID: 141, Node: "pve1", Type: pvesim.QEMU, Status: "running",
			Config: map[string]string{"name": "db", "tags": "prod"}},
		{VMID: 9000, Node: "pve2", Type: pvesim.QEMU, Status: "stopped",
			Config: map[string]string{"name": "debian-13", "tags": "template", "template": "1"}},
	},
	web: 101, webMemory: 2048, otherWeb: 102,
	tmpl: 9000, tmplName: "debian-13",
	dupName:     "db",
	ambiguous:   []string{"VM Name Is Ambiguous", `2 VMs are named "db": 140 on pve3, 141 on pve1`},
	notThisKind: []string{"Guest Is Not A VM", "VMID 102 on node pve1 is a container"},
	all:         []int64{101, 105, 130, 140, 141, 9000},
	filtered: filtered{
		pve3: []int64{130, 140}, web: []int64{101, 105}, webProd: []int64{101}, regex: []int64{101, 105},
		templates: []int64{9000}, notTemplates: []int64{101, 105, 140, 141}, combined: []int64{101, 141},
	},
}

var containerKind = dsKind{
	name: "Container", lookup: "pve_container", list: "pve_containers", nameAttr: "hostname", regexAttr: "hostname_regex", listAttr: "containers",
	title: "Container", noun: "container",
	guests: []pvesim.Guest{
		{VMID: 101, Node: "pve1", Type: pvesim.QEMU, Status: "running",
			Config: map[string]string{"name": "web-1", "tags": "web"}},
		{VMID: 102, Node: "pve1", Type: pvesim.LXC, Status: "running", Pool: "prod",
			Config: map[string]string{"hostname": "web-1", "tags": "Web;prod", "memory": "1024", "cores": "2"}},
		// No cores: PVE lists the node's CPU count.
		{VMID: 105, Node: "pve2", Type: pvesim.LXC, Status: "stopped",
			Config: map[string]string{"hostname": "web-2", "tags": "web", "memory": "512"}},
		// No hostname: PVE lists the container as CT110.
		{VMID: 110, Node: "pve3", Type: pvesim.LXC, Status: "stopped",
			Config: map[string]string{"cores": "1"}},
		// W11: a guest whose clone has just begun is not reported by
		// pvestatd yet: PVE lists it without name, tags or template flag.
		{VMID: 130, Node: "pve3", Type: pvesim.LXC, Status: "stopped",
			Config: map[string]string{"hostname": "web-3", "tags": "web", "lock": "clone"}},
		{VMID: 140, Node: "pve3", Type: pvesim.LXC, Status: "stopped",
			Config: map[string]string{"hostname": "dns", "lock": "backup", "cores": "1"}},
		{VMID: 141, Node: "pve1", Type: pvesim.LXC, Status: "running",
			Config: map[string]string{"hostname": "dns", "tags": "prod", "cores": "1"}},
		{VMID: 8000, Node: "pve2", Type: pvesim.LXC, Status: "stopped",
			Config: map[string]string{"hostname": "debian-13-ct", "tags": "template", "template": "1", "cores": "1"}},
	},
	web: 102, webMemory: 1024, otherWeb: 101,
	tmpl: 8000, tmplName: "debian-13-ct",
	dupName:     "dns",
	ambiguous:   []string{"Container Hostname Is Ambiguous", `2 containers are named "dns": 140 on pve3, 141 on pve1`, "pve_containers"},
	notThisKind: []string{"Guest Is Not A Container", "VMID 101 on node pve1 is a VM (qemu)", "pve_vm"},
	all:         []int64{102, 105, 110, 130, 140, 141, 8000},
	filtered: filtered{
		pve3: []int64{110, 130, 140}, web: []int64{102, 105}, webProd: []int64{102}, regex: []int64{102, 105},
		templates: []int64{8000}, notTemplates: []int64{102, 105, 110, 140, 141}, combined: []int64{102, 141},
	},
}

// forEachKind runs a scenario the kinds share once per kind, in parallel.
func forEachKind(t *testing.T, scenario func(t *testing.T, k dsKind)) {
	t.Parallel()
	for _, k := range []dsKind{vmKind, containerKind} {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			scenario(t, k)
		})
	}
}

// seededTarget starts a simulator holding the kind's guests. They are
// written straight into the simulator, so these tests exercise the data
// sources alone; against a live node there is no way to plant such
// guests, and the tests do not run.
func seededTarget(t *testing.T, k dsKind) *acctest.Target {
	t.Helper()
	tg := acctest.New(t)
	if tg.Sim == nil {
		t.Skip("seeds guests straight into the simulator")
	}
	// The listing catches up only where a guest is added as reported.
	tg.Sim.SetStatsInterval(time.Hour)
	err := tg.Sim.Update(func(c *pvesim.Cluster) error {
		c.Pools["prod"] = &pvesim.Pool{ID: "prod", VMs: map[int]bool{}, Storages: map[string]bool{}}
		return nil
	})
	if err != nil {
		t.Fatalf("add pool: %v", err)
	}
	for _, g := range k.guests {
		if g.Config["lock"] == "clone" {
			// Written after pvestatd's last cycle: not reported.
			err = tg.Sim.Update(func(c *pvesim.Cluster) error { return c.AddGuest(&g) })
		} else {
			// Reported already.
			err = tg.Sim.AddGuest(g)
		}
		if err != nil {
			t.Fatalf("add guest %d: %v", g.VMID, err)
		}
	}
	return tg
}

// expectListingReads checks that the step's plan read the cluster listing
// exactly once per data source and asked PVE nothing else: no request per
// guest. The check runs right after the first plan and apply of a step,
// where Terraform has read each data source once.
func expectListingReads(tg *acctest.Target, dataSources int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		if got := tg.Sim.Count("GET", "/cluster/resources"); got != dataSources {
			return fmt.Errorf("GET /cluster/resources: %d requests for %d data source reads", got, dataSources)
		}
		for _, r := range tg.Sim.Requests() {
			if r.Method != "GET" || r.Path != "/cluster/resources" {
				return fmt.Errorf("unexpected request %s %s", r.Method, r.Path)
			}
			if got := r.Params["type"]; len(got) != 1 || got[0] != "vm" {
				return fmt.Errorf("listing asked with type=%v, want vm", got)
			}
		}
		return nil
	})
}

// expectNoRequests checks that a configuration was refused before any
// request reached PVE.
func expectNoRequests(t *testing.T, tg *acctest.Target) {
	t.Helper()
	if got := len(tg.Sim.Requests()); got != 0 {
		t.Errorf("%d requests reached PVE; plan-time errors must come first", got)
	}
}

// expectOnlyListing checks that no request but the listing reached PVE:
// a failed listing is not followed by requests per guest.
func expectOnlyListing(t *testing.T, tg *acctest.Target) {
	t.Helper()
	for _, r := range tg.Sim.Requests() {
		if r.Path != "/cluster/resources" {
			t.Errorf("unexpected request %s %s", r.Method, r.Path)
		}
	}
}

// errorLike matches a Terraform error holding the parts in order. Terraform
// wraps long lines, so every space in a part matches any whitespace.
func errorLike(parts ...string) *regexp.Regexp {
	quoted := make([]string, 0, len(parts))
	for _, part := range parts {
		quoted = append(quoted, strings.ReplaceAll(regexp.QuoteMeta(part), " ", `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

// vmidList is the value of a vmids attribute.
func vmidList(ids ...int64) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(ids))
	for _, id := range ids {
		checks = append(checks, knownvalue.Int64Exact(id))
	}
	return knownvalue.ListExact(checks)
}

// listed is the path of the guest vmid in the list attribute of a list
// data source reading every guest of the kind: the list is sorted by vmid
// like all.
func (k dsKind) listed(t *testing.T, vmid int64) tfjsonpath.Path {
	t.Helper()
	i := slices.Index(k.all, vmid)
	if i < 0 {
		t.Fatalf("%s %d is not seeded", k.noun, vmid)
	}
	return tfjsonpath.New(k.listAttr).AtSliceIndex(i)
}
