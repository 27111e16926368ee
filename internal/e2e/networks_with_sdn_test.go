package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// sdnGuideConfig is the guide's configuration as the guide shows it, less
// its providers.tf, which the test's header replaces.
func sdnGuideConfig(t *testing.T) string {
	t.Helper()
	return exampleFile(t, "networks-with-sdn", "sdn.tf") + "\n" + exampleFile(t, "networks-with-sdn", "guests.tf")
}

// sdnGuideBlock is the code block the guide shows after marker.
func sdnGuideBlock(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "networks-with-sdn.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), marker+"\n\n```terraform\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatalf("the guide no longer shows the block after %q", marker)
	}
	return block
}

// sdnCounts is how many SDN locks were taken and applies made so far.
func sdnCounts(e *env) (locks, applies int) {
	return e.sim.Count("POST", "/cluster/sdn/lock"), e.sim.Count("PUT", "/cluster/sdn")
}

// The guide "Networks with SDN", followed as written on PVE 9: a zone, two
// vnets with a subnet each and an applier, and a VM on each network; one
// lock and one apply for the whole run, an empty plan after. Adding a
// network as the guide shows is one more lock and apply. Someone else's
// staged change makes the next plan that applies fail, naming it; rolled
// back, the plan goes through. Destroying everything applies once more
// and leaves no zone, vnet or subnet, staged or running, and no lock.
func TestNetworksWithSDNGuide(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	config := sdnGuideConfig(t)
	e.write(e.dir, config)
	e.mustApply(e.dir, 10)
	e.mustPlanEmpty(e.dir)
	if locks, applies := sdnCounts(e); locks != 1 || applies != 1 {
		t.Fatalf("the first apply took the SDN lock %d times and applied %d times, want once each", locks, applies)
	}
	if tok := e.sim.SDNLockToken(); tok != "" {
		t.Fatal("the SDN lock is held after the apply")
	}
	bridges := map[string]string{}
	e.sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			bridges[g.Config["name"]] = g.Config["net0"]
		}
	})
	for name, vnet := range map[string]string{"web1": "web", "db1": "db"} {
		if !strings.Contains(bridges[name], "bridge="+vnet) {
			t.Errorf("VM %s's net0 is %q, want it on vnet %s", name, bridges[name], vnet)
		}
	}

	// A third network, as the guide adds it.
	edit := sdnGuideBlock(t, "add a line to `local.networks`:")
	added := strings.Replace(config, "    db  = { cidr = \"10.10.2.0/24\", alias = \"databases\" }\n",
		"    db  = { cidr = \"10.10.2.0/24\", alias = \"databases\" }\n"+edit, 1)
	if added == config {
		t.Fatal("the guide's sdn.tf no longer has the db network line the edit follows")
	}
	e.write(e.dir, added)
	e.mustApply(e.dir, 10)
	e.mustPlanEmpty(e.dir)
	if locks, applies := sdnCounts(e); locks != 2 || applies != 2 {
		t.Fatalf("after adding a network: %d locks and %d applies, want 2 each", locks, applies)
	}

	// Someone stages a zone of their own: the next plan that applies SDN
	// changes fails, naming it.
	if err := e.sim.PlantSDNPending(pvesim.SDNZones, "other", &pvesim.SDNObject{Type: "simple"}); err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(added, "alias = \"databases\"", "alias = \"database servers\"", 1)
	e.write(e.dir, changed)
	r := e.run(e.dir, "plan", "-input=false", "-no-color")
	if flat := strings.Join(strings.Fields(r.output), " "); r.exitCode == 0 ||
		!strings.Contains(flat, "SDN Changes Pending Outside This Configuration") || !strings.Contains(flat, "zone/other") {
		t.Fatalf("the plan should refuse someone else's pending zone (exit %d):\n%s", r.exitCode, r.output)
	}
	if err := e.sim.PlantSDNPending(pvesim.SDNZones, "other", nil); err != nil {
		t.Fatal(err)
	}
	e.mustApply(e.dir, 10)
	e.mustPlanEmpty(e.dir)

	if r := e.run(e.dir, "destroy", "-auto-approve", "-input=false", "-no-color"); r.exitCode != 0 {
		t.Fatalf("destroy failed (exit %d):\n%s", r.exitCode, r.output)
	}
	for _, kind := range []string{pvesim.SDNZones, pvesim.SDNVnets, pvesim.SDNSubnets} {
		for _, view := range []pvesim.SDNView{pvesim.SDNViewConfig, pvesim.SDNViewRunning} {
			if left := e.sim.SDNEntries(kind, view); len(left) != 0 {
				t.Errorf("after destroy, %s still has %v", kind, left)
			}
		}
	}
	if tok := e.sim.SDNLockToken(); tok != "" {
		t.Error("the SDN lock is held after destroy")
	}
}
