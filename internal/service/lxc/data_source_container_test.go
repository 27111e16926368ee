package lxc_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// seedContainerListing starts a simulator holding a small cluster's
// guests: containers on three nodes, a container template, two containers
// sharing a hostname, one without a hostname, a VM sharing a container's
// hostname, and a container mid-clone (W11). The guests are written
// straight into the simulator, so these tests exercise the data sources
// alone; against a live node there is no way to plant such guests, and the
// tests do not run.
func seedContainerListing(t *testing.T) *acctest.Target {
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
	guests := []pvesim.Guest{
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
	}
	for _, g := range guests {
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

// expectContainerListingReads checks that the step's plan read the cluster
// listing exactly once per data source and asked PVE nothing else: no
// request per container. The check runs right after the first plan and
// apply of a step, where Terraform has read each data source once.
func expectContainerListingReads(tg *acctest.Target, dataSources int) resource.TestCheckFunc {
	return func(*terraform.State) error {
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
	}
}

// expectRefusedBeforeRequests checks that a configuration was refused
// before any request reached PVE.
func expectRefusedBeforeRequests(t *testing.T, tg *acctest.Target) {
	t.Helper()
	if got := len(tg.Sim.Requests()); got != 0 {
		t.Errorf("%d requests reached PVE; plan-time errors must come first", got)
	}
}

// containerErrorLike matches a Terraform error holding the parts in order.
// Terraform wraps long lines, so every space in a part matches any
// whitespace.
func containerErrorLike(parts ...string) *regexp.Regexp {
	quoted := make([]string, 0, len(parts))
	for _, part := range parts {
		quoted = append(quoted, strings.ReplaceAll(regexp.QuoteMeta(part), " ", `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

func TestAccContainerDataSourceByVMID(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)
	const ds = "data.pve_container.web"

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_container" "web" { vmid = 102 }`),
			Check:  expectContainerListingReads(tg, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact("102")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmid"), knownvalue.Int64Exact(102)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("hostname"), knownvalue.StringExact("web-1")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("node"), knownvalue.StringExact("pve1")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				// W19: "Web;prod" reads back as PVE's normalised set.
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact("prod"), knownvalue.StringExact("web"),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("template"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("pool"), knownvalue.StringExact("prod")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("lock"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("memory"), knownvalue.Int64Exact(1024)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("cpus"), knownvalue.Int64Exact(2)),
			},
		}},
	})
}

func TestAccContainerDataSourceByHostname(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			// VM 101 is also called web-1; VMs never match.
			Config: tg.Config(`
data "pve_container" "web" { hostname = "web-1" }
data "pve_container" "tmpl" { hostname = "debian-13-ct" }
data "pve_container" "unnamed" { hostname = "CT110" }
data "pve_container" "locked" { vmid = 140 }
`),
			Check: expectContainerListingReads(tg, 4),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.pve_container.web", tfjsonpath.New("vmid"), knownvalue.Int64Exact(102)),
				statecheck.ExpectKnownValue("data.pve_container.web", tfjsonpath.New("hostname"), knownvalue.StringExact("web-1")),
				statecheck.ExpectKnownValue("data.pve_container.tmpl", tfjsonpath.New("vmid"), knownvalue.Int64Exact(8000)),
				statecheck.ExpectKnownValue("data.pve_container.tmpl", tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
				statecheck.ExpectKnownValue("data.pve_container.tmpl", tfjsonpath.New("template"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.pve_container.tmpl", tfjsonpath.New("pool"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.pve_container.tmpl", tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact("template"),
				})),
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

func TestAccContainerDataSourceLookupErrors(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_container" "dns" { hostname = "dns" }`),
				ExpectError: containerErrorLike("Container Hostname Is Ambiguous", `2 containers are named "dns": 140 on pve3, 141 on pve1`, "pve_containers"),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" { vmid = 4242 }`),
				ExpectError: containerErrorLike("Container Not Found", "No container with VMID 4242"),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" { hostname = "nope" }`),
				ExpectError: containerErrorLike("Container Not Found", `No container named "nope"`),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" { vmid = 101 }`),
				ExpectError: containerErrorLike("Guest Is Not A Container", "VMID 101 on node pve1 is a VM (qemu)", "pve_vm"),
			},
		},
	})
}

// W11: a container mid-clone is present but has no details. By vmid the
// lookup says it is being created; by hostname it cannot match (it has no
// name in the listing yet), and the not-found error points at it instead of
// pretending it is absent.
func TestAccContainerDataSourceInProgressW11(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_container" "x" { vmid = 130 }`),
				ExpectError: containerErrorLike("Container Is Being Created", "Container 130 on node pve3 is being created or cloned (lock: clone)"),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" { hostname = "web-3" }`),
				ExpectError: containerErrorLike("Container Not Found", `No container named "web-3"`, "being created or cloned", "130 on pve3"),
			},
		},
	})
}

func TestAccContainerDataSourceBadInput(t *testing.T) {
	t.Parallel()
	tg := seedContainerListing(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_container" "x" { }`),
				ExpectError: containerErrorLike("Exactly one of these attributes must be configured: [vmid,hostname]"),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" {` + "\n  vmid     = 102\n  hostname = \"web-1\"\n}"),
				ExpectError: containerErrorLike("Exactly one of these attributes must be configured: [vmid,hostname]"),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" { vmid = 99 }`),
				ExpectError: containerErrorLike("vmid", "must be between 100 and 999999999"),
			},
			{
				Config:      tg.Config(`data "pve_container" "x" { hostname = "" }`),
				ExpectError: containerErrorLike("hostname", "string length must be at least 1"),
			},
		},
	})
	expectRefusedBeforeRequests(t, tg)
}
