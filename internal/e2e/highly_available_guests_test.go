package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// haGuideConfig is the guide's configuration as the guide shows it, less
// its providers.tf, which the test's header replaces.
func haGuideConfig(t *testing.T) string {
	t.Helper()
	var parts []string
	for _, name := range []string{"guests.tf", "ha.tf", "backup.tf"} {
		parts = append(parts, exampleFile(t, "highly-available-guests", name))
	}
	return strings.Join(parts, "\n")
}

// haGuideEdit is the lines of local.vms the guide tells the reader to
// write to move web1 and keep web2 where HA put it.
func haGuideEdit(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "highly-available-guests.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "by editing `local.vms`:\n\n```terraform\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("the guide no longer shows the edit of local.vms")
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		lines = append(lines, strings.TrimSpace(line))
	}
	return lines
}

// haGuests maps the guide's VM names to their VMID and node.
func haGuests(e *env) map[string]*pvesim.Guest {
	out := map[string]*pvesim.Guest{}
	e.sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			copied := *g
			out[g.Config["name"]] = &copied
		}
	})
	return out
}

// haServiceState is the HA manager's state of a guest's service and the
// node it is on.
func haServiceState(e *env, sid string) (state, node string) {
	e.sim.View(func(c *pvesim.Cluster) {
		if sd := c.HA.Manager.Services[sid]; sd != nil {
			state, node = sd.State, sd.Node
		}
	})
	return state, node
}

// The guide "Highly available guests", followed as written on PVE 9: three
// VMs on local ZFS under HA with a node-affinity and a resource-affinity
// rule, replication of each VM to its replica nodes and a nightly backup
// job, with an empty plan after. A node fails: HA recovers its VM on
// another node and the next plan is empty, with the warning the guide
// shows. The reader then edits `node` as the guide says: accepting HA's
// placement sends nothing, moving a VM goes through HA's migrate request.
// Retiring the database (its line and its rule) destroys it with its HA
// resource, rule and replication jobs and takes it out of the backup job
// in one apply; destroying everything leaves no HA resource, rule,
// replication job or backup job behind.
func TestHighlyAvailableGuestsGuide(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{ZFSStorage: true, ReplicationInterval: 200 * time.Millisecond}})
	config := haGuideConfig(t)
	e.write(e.dir, config)
	e.mustApply(e.dir, 4)
	e.mustPlanEmpty(e.dir)

	guests := haGuests(e)
	for name, node := range map[string]string{"db": "pve1", "web1": "pve2", "web2": "pve3"} {
		if g := guests[name]; g == nil || g.Node != node {
			t.Fatalf("VM %s: %+v, want it on %s", name, g, node)
		}
	}
	e.sim.View(func(c *pvesim.Cluster) {
		if n := len(c.HA.Resources); n != 3 {
			t.Errorf("%d HA resources, want 3", n)
		}
		if n := len(c.HA.Rules); n != 2 {
			t.Errorf("%d HA rules, want 2", n)
		}
		if n := len(c.Replication.Jobs); n != 6 {
			t.Errorf("%d replication jobs, want 6", n)
		}
		if n := len(c.BackupJobs.Jobs); n != 1 {
			t.Errorf("%d backup jobs, want 1", n)
		}
	})
	web1, web2 := guests["web1"].VMID, guests["web2"].VMID
	web2SID := fmt.Sprintf("vm:%d", web2)

	// pve3 fails: HA fences it and recovers web2 on another node, not
	// pve2 where web1 runs.
	if err := e.sim.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		e.sim.HAStep()
		if state, node := haServiceState(e, web2SID); state == "started" && node != "pve3" {
			break
		}
	}
	if state, node := haServiceState(e, web2SID); state != "started" || node != "pve1" {
		t.Fatalf("after pve3 failed, web2 is %s on %s; want started on pve1", state, node)
	}
	r := e.run(e.dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if r.exitCode != 0 {
		t.Fatalf("the plan after HA recovered web2 is not empty (exit %d):\n%s", r.exitCode, r.output)
	}
	if out := strings.Join(strings.Fields(r.output), " "); !strings.Contains(out, fmt.Sprintf("VM %d Moved By HA", web2)) ||
		!strings.Contains(out, "from pve3 to pve1") {
		t.Errorf("the plan should warn that HA moved web2 from pve3 to pve1:\n%s", r.output)
	}

	// An apply with nothing to do records the move in state; from then on
	// the warning is gone.
	if r := e.apply(e.dir, 4); r.exitCode != 0 || !strings.Contains(r.output, "0 added, 0 changed, 0 destroyed") {
		t.Fatalf("the apply after HA recovered web2 should change nothing (exit %d):\n%s", r.exitCode, r.output)
	}
	r = e.run(e.dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if r.exitCode != 0 || strings.Contains(r.output, "Moved By HA") {
		t.Fatalf("the plan after the move was recorded should be empty and quiet (exit %d):\n%s", r.exitCode, r.output)
	}

	// pve3 is back. As the guide says: web2 stays where HA put it (node
	// set to pve1), and web1 moves to pve3 on purpose.
	if err := e.sim.SetNodeOnline("pve3"); err != nil {
		t.Fatal(err)
	}
	edited := replaceInConfig(t, config, `web1 = { node = "pve2",`, `web1 = { node = "pve3",`)
	edited = replaceInConfig(t, edited, `web2 = { node = "pve3",`, `web2 = { node = "pve1",`)
	for _, line := range haGuideEdit(t) {
		if !strings.Contains(edited, line) {
			t.Fatalf("the guide's edit %q is not the one the test makes", line)
		}
	}
	e.write(e.dir, edited)
	mark := len(e.sim.Requests())
	e.mustApply(e.dir, 4)
	var haMigrations, directMigrations, web2Writes []string
	for _, rec := range e.sim.Requests()[mark:] {
		switch {
		case rec.Method != "GET" && (strings.Contains(rec.Path, fmt.Sprintf("/qemu/%d", web2)) || strings.Contains(rec.Path, web2SID)):
			web2Writes = append(web2Writes, rec.Method+" "+rec.Path)
		case rec.Method == "POST" && strings.HasPrefix(rec.Path, "/cluster/ha/resources/") && strings.HasSuffix(rec.Path, "/migrate"):
			haMigrations = append(haMigrations, rec.Path)
		case rec.Method == "POST" && strings.HasPrefix(rec.Path, "/nodes/") && strings.HasSuffix(rec.Path, "/migrate"):
			directMigrations = append(directMigrations, rec.Path)
		}
	}
	if want := fmt.Sprintf("/cluster/ha/resources/vm:%d/migrate", web1); len(haMigrations) != 1 || haMigrations[0] != want {
		t.Errorf("HA migrate requests %v, want one: %s", haMigrations, want)
	}
	if len(web2Writes) != 0 {
		t.Errorf("setting web2's node to where HA put it sent %v, want nothing", web2Writes)
	}
	if len(directMigrations) != 0 {
		t.Errorf("direct migrations of HA-managed VMs: %v", directMigrations)
	}
	guests = haGuests(e)
	if guests["web1"].Node != "pve3" || guests["web2"].Node != "pve1" {
		t.Errorf("web1 on %s, web2 on %s; want pve3 and pve1", guests["web1"].Node, guests["web2"].Node)
	}
	e.mustPlanEmpty(e.dir)

	// The database retires, as the guide says: its line in local.vms and
	// its rule go; one apply destroys the VM, its HA resource, rule and
	// replication jobs, and takes it out of the backup job.
	db := guests["db"].VMID
	retired := replaceInConfig(t, edited, "    db   = { node = \"pve1\", replicas = [\"pve2\", \"pve3\"] }\n", "")
	start := strings.Index(retired, "# The database prefers pve1")
	end := strings.Index(retired, "# The two web servers never share a node.")
	if start < 0 || end < start {
		t.Fatal("the guide's rule for the database moved; update the test")
	}
	retired = retired[:start] + retired[end:]
	e.write(e.dir, retired)
	e.mustApply(e.dir, 4)
	e.mustPlanEmpty(e.dir)
	e.sim.View(func(c *pvesim.Cluster) {
		if c.Guests[db] != nil || len(c.HA.Resources) != 2 || len(c.HA.Rules) != 1 || len(c.Replication.Jobs) != 4 {
			t.Errorf("after retiring the database: guest %v, %d HA resources, %d rules, %d replication jobs; want no guest, 2, 1, 4",
				c.Guests[db] != nil, len(c.HA.Resources), len(c.HA.Rules), len(c.Replication.Jobs))
		}
		if job := c.BackupJobs.Jobs["nightly"]; job == nil || len(strings.Split(job.Props["vmid"], ",")) != 2 || slices.Contains(strings.Split(job.Props["vmid"], ","), strconv.Itoa(db)) {
			t.Errorf("the backup job after retiring the database: %+v", job)
		}
	})

	if r := e.run(e.dir, "destroy", "-auto-approve", "-input=false", "-no-color", "-parallelism=4"); r.exitCode != 0 {
		t.Fatalf("destroy failed (exit %d):\n%s", r.exitCode, r.output)
	}
	e.sim.View(func(c *pvesim.Cluster) {
		if len(c.Guests) != 0 || len(c.HA.Resources) != 0 || len(c.HA.Rules) != 0 ||
			len(c.Replication.Jobs) != 0 || len(c.BackupJobs.Jobs) != 0 {
			t.Errorf("left after destroy: %d guests, %d HA resources, %d HA rules, %d replication jobs, %d backup jobs",
				len(c.Guests), len(c.HA.Resources), len(c.HA.Rules), len(c.Replication.Jobs), len(c.BackupJobs.Jobs))
		}
	})
}
