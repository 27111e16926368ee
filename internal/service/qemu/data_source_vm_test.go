package qemu_test

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

// seededTarget starts a simulator holding a small cluster's guests: VMs on
// three nodes, a template, two VMs sharing a name, a container sharing a
// VM's name, and a VM mid-clone (W11). The guests are written straight into
// the simulator, so these tests exercise the data sources alone; against a
// live node there is no way to plant such guests, and the tests do not run.
func seededTarget(t *testing.T) *acctest.Target {
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

// expectListingReads checks that the step's plan read the cluster listing
// exactly once per data source and asked PVE nothing else: no request per
// VM. The check runs right after the first plan and apply of a step, where
// Terraform has read each data source once.
func expectListingReads(tg *acctest.Target, dataSources int) resource.TestCheckFunc {
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

// expectNoRequests checks that a configuration was refused before any
// request reached PVE.
func expectNoRequests(t *testing.T, tg *acctest.Target) {
	t.Helper()
	if got := len(tg.Sim.Requests()); got != 0 {
		t.Errorf("%d requests reached PVE; plan-time errors must come first", got)
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

func TestAccVMDataSourceByVMID(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)
	const ds = "data.pve_vm.web"

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_vm" "web" { vmid = 101 }`),
			Check:  expectListingReads(tg, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.StringExact("101")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vmid"), knownvalue.Int64Exact(101)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("name"), knownvalue.StringExact("web-1")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("node"), knownvalue.StringExact("pve1")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				// W19: "Web;prod" reads back as PVE's normalised set.
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact("prod"), knownvalue.StringExact("web"),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("template"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("pool"), knownvalue.StringExact("prod")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("lock"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("memory"), knownvalue.Int64Exact(2048)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("cpus"), knownvalue.Int64Exact(2)),
			},
		}},
	})
}

func TestAccVMDataSourceByName(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			// Container 102 is also called web-1; containers never match.
			Config: tg.Config(`
data "pve_vm" "web" { name = "web-1" }
data "pve_vm" "tmpl" { name = "debian-13" }
`),
			Check: expectListingReads(tg, 2),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.pve_vm.web", tfjsonpath.New("vmid"), knownvalue.Int64Exact(101)),
				statecheck.ExpectKnownValue("data.pve_vm.web", tfjsonpath.New("name"), knownvalue.StringExact("web-1")),
				statecheck.ExpectKnownValue("data.pve_vm.tmpl", tfjsonpath.New("vmid"), knownvalue.Int64Exact(9000)),
				statecheck.ExpectKnownValue("data.pve_vm.tmpl", tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
				statecheck.ExpectKnownValue("data.pve_vm.tmpl", tfjsonpath.New("template"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.pve_vm.tmpl", tfjsonpath.New("pool"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.pve_vm.tmpl", tfjsonpath.New("tags"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact("template"),
				})),
			},
		}},
	})
}

func TestAccVMDataSourceLookupErrors(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_vm" "db" { name = "db" }`),
				ExpectError: errorLike("VM Name Is Ambiguous", `2 VMs are named "db": 140 on pve3, 141 on pve1`),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" { vmid = 4242 }`),
				ExpectError: errorLike("VM Not Found", "No VM with VMID 4242"),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" { name = "nope" }`),
				ExpectError: errorLike("VM Not Found", `No VM named "nope"`),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" { vmid = 102 }`),
				ExpectError: errorLike("Guest Is Not A VM", "VMID 102 on node pve1 is a container"),
			},
		},
	})
}

// W11: a VM mid-clone is present but has no details. By vmid the lookup
// says it is being created; by name it cannot match (it has no name yet),
// and the not-found error points at it instead of pretending it is absent.
func TestAccVMDataSourceInProgressW11(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_vm" "x" { vmid = 130 }`),
				ExpectError: errorLike("VM Is Being Created", "VM 130 on node pve3 is being created or cloned (lock: clone)"),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" { name = "web-3" }`),
				ExpectError: errorLike("VM Not Found", `No VM named "web-3"`, "being created or cloned", "130 on pve3"),
			},
		},
	})
}

func TestAccVMDataSourceBadInput(t *testing.T) {
	t.Parallel()
	tg := seededTarget(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(`data "pve_vm" "x" { }`),
				ExpectError: errorLike("Exactly one of these attributes must be configured: [vmid,name]"),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" {` + "\n  vmid = 101\n  name = \"web-1\"\n}"),
				ExpectError: errorLike("Exactly one of these attributes must be configured: [vmid,name]"),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" { vmid = 99 }`),
				ExpectError: errorLike("vmid", "must be between 100 and 999999999"),
			},
			{
				Config:      tg.Config(`data "pve_vm" "x" { name = "" }`),
				ExpectError: errorLike("name", "string length must be at least 1"),
			},
		},
	})
	expectNoRequests(t, tg)
}
