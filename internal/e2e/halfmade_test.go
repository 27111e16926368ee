package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// oneVM is a small stopped VM; name "" plans none, count > 1 makes copies.
func oneVM(name string, count int, timeout string) string {
	nameLine := ""
	if name != "" {
		nameLine = fmt.Sprintf("  name  = %q\n", name)
	}
	return fmt.Sprintf(`
resource "pve_vm" "v" {
  count   = %d
  node    = "pve1"
%s  started = false
  memory  = { size = 512 }
  disks   = { scsi0 = { storage = "local-lvm", size = 1 } }
  timeouts = { create = %q }
}
`, count, nameLine, timeout)
}

// vmCount is how many VMs the simulator holds.
// lockedCount counts the guests holding lock.
func lockedCount(sim *pvesim.Sim, lock string) int {
	n := 0
	sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			if g.Config["lock"] == lock {
				n++
			}
		}
	})
	return n
}

func vmCount(sim *pvesim.Sim) int {
	n := 0
	sim.View(func(c *pvesim.Cluster) { n = len(c.Guests) })
	return n
}

// A create whose task outlives the create timeout: the VM is left out of
// state (not tainted), and the next apply takes it up by its marker once
// the task ended, instead of destroying it and creating another.
func TestHalfMade_createOutlivingTimeoutIsTakenUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: 21, TaskDuration: 3 * time.Second}})
	e.write(e.dir, oneVM("slow", 1, "1s"))
	r := e.apply(e.dir, 1)
	if r.exitCode == 0 || !strings.Contains(r.output, "Still Being Created At Timeout") {
		t.Fatalf("the first apply should fail at its timeout, saying the VM is still being created:\n%s", r.output)
	}
	ids := guestsByName(e.sim)["slow"]
	time.Sleep(3 * time.Second)
	if len(ids) == 0 {
		ids = guestsByName(e.sim)["slow"]
	}
	e.write(e.dir, oneVM("slow", 1, "2m"))
	e.mustApply(e.dir, 1)
	checkExactlyOnce(t, e.sim, []string{"slow"})
	if got := guestsByName(e.sim)["slow"]; len(ids) != 1 || got[0] != ids[0] {
		t.Errorf("the VM was made again (vmids before %v, after %v)", ids, got)
	}
	e.mustPlanEmpty(e.dir)
}

// Two applies at once in two workspaces, each declaring a VM of the same
// name on the same node: each gets a VM of its own; the second never takes
// up the one the first is still creating.
func TestHalfMade_concurrentAppliesNeverShareAGuest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: 22, TaskDuration: 3 * time.Second}})
	other := e.workdir("other")
	// Started: the first apply's VM keeps its marker, unlocked, while
	// its start task runs.
	config := strings.Replace(oneVM("twin", 1, "2m"), "started = false", "started = true", 1)
	e.write(e.dir, config)
	e.write(other, config)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first, firstOut := e.command(ctx, e.dir, "apply", "-auto-approve", "-input=false", "-no-color")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); vmCount(e.sim) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first apply created nothing:\n%s", firstOut)
		}
	}
	second := e.apply(other, 1)
	if err := first.Wait(); err != nil {
		t.Fatalf("first apply: %v\n%s", err, firstOut)
	}
	if second.exitCode != 0 {
		t.Fatalf("second apply (exit %d):\n%s", second.exitCode, second.output)
	}
	if ids := guestsByName(e.sim)["twin"]; len(ids) != 2 {
		t.Fatalf("want one VM per workspace, got vmids %v\n%s", ids, second.output)
	}
	a := e.run(e.dir, "state", "show", "-no-color", "pve_vm.v[0]")
	b := e.run(other, "state", "show", "-no-color", "pve_vm.v[0]")
	if vmidOf(a.output) == "" || vmidOf(a.output) == vmidOf(b.output) {
		t.Errorf("both workspaces hold VMID %q", vmidOf(a.output))
	}
	e.mustPlanEmpty(e.dir)
	e.mustPlanEmpty(other)
}

func vmidOf(state string) string {
	for _, line := range strings.Split(state, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "vmid" {
			return f[2]
		}
	}
	return ""
}

// An apply killed while creating VMs with neither a name nor a vmid: the
// re-run recognises each half-made VM by the digest of its planned
// request, and a resource of the re-run takes each, so no second VM is
// made for it. A create whose answer was lost after PVE ran it (connection
// reset) leaves exactly one VM too. The kill comes while every VM present
// is still being created: a VM finished in the instant before Terraform
// recorded it carries no marker any more, and nothing can tell it from
// another apply's (the guide says so).
func TestHalfMade_namelessGuestsAreTakenUpAfterKill(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: 23, TaskDuration: 5 * time.Second}})
	const count = 3
	e.write(e.dir, oneVM("", count, "2m"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, out := e.command(ctx, e.dir, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); vmCount(e.sim) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no VM was created within a minute:\n%s", out)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	present, locked := vmCount(e.sim), lockedCount(e.sim, "create")
	if locked != present {
		t.Fatalf("killed with %d VMs of which %d were still being created; the test needs every VM present half-made", present, locked)
	}
	t.Logf("killed with %d half-made VMs", present)

	if err := e.sim.InjectFault(pvesim.Fault{Method: http.MethodPost, Path: "/nodes/{node}/qemu", Action: pvesim.FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}
	r := e.apply(e.dir, 3)
	if r.exitCode != 0 {
		t.Fatalf("re-run failed:\n%s", r.output)
	}
	if n := vmCount(e.sim); n != count {
		t.Errorf("%d VMs after the re-run, want %d:\n%s", n, count, r.output)
	}
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
}

// An update and a destroy without refresh of a VM whose VMID another VM
// took meanwhile: the recorded identity tells them apart and the stranger
// is neither changed nor destroyed.
func TestHalfMade_destroyWithoutRefreshSparesStranger(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: 24}})
	e.write(e.dir, oneVM("ours", 1, "2m"))
	e.mustApply(e.dir, 1)
	ids := guestsByName(e.sim)["ours"]
	if len(ids) != 1 {
		t.Fatalf("want one VM, got %v", ids)
	}
	if err := e.sim.DeleteGuest(ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.AddGuest(pvesim.Guest{VMID: ids[0], Node: "pve1", Type: pvesim.QEMU, Status: "stopped", Config: map[string]string{
		"name": "stranger", "memory": "512", "meta": "creation-qemu=9.2.0,ctime=1764600000",
		"smbios1": "uuid=7f000000-0000-4000-8000-000000000001",
	}}); err != nil {
		t.Fatal(err)
	}
	e.write(e.dir, strings.Replace(oneVM("ours", 1, "2m"), "size = 512", "size = 1024", 1))
	r := e.run(e.dir, "apply", "-auto-approve", "-input=false", "-no-color", "-refresh=false")
	if r.exitCode == 0 || !strings.Contains(r.output, "Not Updating Another VM") {
		t.Fatalf("an apply without refresh (exit %d) should refuse to update the other VM:\n%s", r.exitCode, r.output)
	}
	if g, _ := e.sim.Guest(ids[0]); g.Config["memory"] != "512" {
		t.Errorf("the other VM was updated: memory %q", g.Config["memory"])
	}
	r = e.run(e.dir, "destroy", "-auto-approve", "-input=false", "-no-color", "-refresh=false")
	if r.exitCode != 0 || !strings.Contains(r.output, "VM Replaced Outside Terraform") {
		t.Fatalf("destroy (exit %d) should warn and spare the other VM:\n%s", r.exitCode, r.output)
	}
	if g, ok := e.sim.Guest(ids[0]); !ok || guestName(&g) != "stranger" {
		t.Errorf("the other VM at VMID %d was destroyed", ids[0])
	}
}
