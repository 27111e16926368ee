package lxc_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

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
