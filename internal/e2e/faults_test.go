package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// seedFromEnv returns PVE_E2E_SEED when set, so a failure found with one
// seed can be replayed, and def otherwise.
func seedFromEnv(t *testing.T, def int64) int64 {
	t.Helper()
	if s := os.Getenv("PVE_E2E_SEED"); s != "" {
		seed, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("PVE_E2E_SEED=%q: %v", s, err)
		}
		return seed
	}
	return def
}

func fleetNames(prefix string, vms, cts int) []string {
	var names []string
	for i := range vms {
		names = append(names, fmt.Sprintf("%s-vm-%d", prefix, i))
	}
	for i := range cts {
		names = append(names, fmt.Sprintf("%s-ct-%d", prefix, i))
	}
	return names
}

// injectedTaskFailure is the exit status of the tasks the faults fail.
const injectedTaskFailure = "worker died: injected fault"

// injectSeededFaults makes about rate of all requests fail, split evenly
// between a connection reset before the handler, a reset after it ran (the
// answer is lost), 502 and 503, and about rate of all tasks fail (W8: the
// worker dies and cleans up after itself).
func injectSeededFaults(t *testing.T, sim *pvesim.Sim, rate float64) {
	t.Helper()
	share := rate / 4
	for _, f := range []pvesim.Fault{
		{Action: pvesim.FaultDropBefore, Rate: share},
		{Action: pvesim.FaultDropAfter, Rate: share},
		{Action: pvesim.FaultRespond, Status: http.StatusBadGateway, Rate: share},
		{Action: pvesim.FaultRespond, Status: http.StatusServiceUnavailable, Rate: share},
		{Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Rate: rate},
	} {
		if err := sim.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
}

// W8, W13, W22: a create whose answer was lost is inspected, never
// repeated blindly, and a create or resize whose task failed is done again;
// an apply under faults may fail, but the next one converges with every
// guest existing exactly once and every volume accounted for. The same
// holds for an update of every guest (grown data disks, more memory): no
// data disk is replaced.
func TestFaults_seededApplyConvergesW13(t *testing.T) {
	t.Parallel()
	seed := seedFromEnv(t, 6)
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: seed}})
	const vms, cts = 20, 10
	names := fleetNames("f", vms, cts)
	config := fleet("f", vms, cts, 0)
	e.write(e.dir, config)
	// Terraform's order of requests varies from run to run, and with it
	// which requests the seeded draws hit; these faults hit every run.
	first := applyUnderFaults(t, e, seed, "create",
		pvesim.Fault{Method: http.MethodPost, Path: "/nodes/{node}/qemu", Action: pvesim.FaultDropAfter, Count: 1},
		pvesim.Fault{Path: "/nodes/{node}/qemu", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 1},
		pvesim.Fault{Path: "/nodes/{node}/lxc", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 1})
	if first.faultedWrites == 0 || first.failedTasks == 0 {
		t.Fatalf("seed %d: %d writes faulted, %d tasks failed; the test proves nothing without both", seed, first.faultedWrites, first.failedTasks)
	}
	convergeAfterFaults(t, e, seed, first, names)

	dataDisks := dataDiskVolumes(e.sim)
	grown := strings.NewReplacer(
		`scsi1 = { storage = "local-lvm", size = 1, backup = false }`, `scsi1 = { storage = "local-lvm", size = 2, backup = false }`,
		`mp0 = { storage = "local-lvm", size = 1, path = "/data" }`, `mp0 = { storage = "local-lvm", size = 2, path = "/data" }`,
		"memory        = { size = 512 }", "memory        = { size = 768 }",
	).Replace(config)
	e.write(e.dir, grown)
	update := applyUnderFaults(t, e, seed, "update",
		pvesim.Fault{Path: "/nodes/{node}/qemu/{vmid}/resize", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 1},
		pvesim.Fault{Path: "/nodes/{node}/lxc/{vmid}/resize", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 1})
	if update.failedTasks < 2 {
		t.Fatalf("seed %d: %d resize tasks failed; the update proves nothing", seed, update.failedTasks)
	}
	convergeAfterFaults(t, e, seed, update, names)
	after := dataDiskVolumes(e.sim)
	for name, volid := range dataDisks {
		v, ok := after[name]
		if !ok || v.VolID != volid.VolID {
			t.Errorf("%s: data disk %s became %+v: replaced, not grown", name, volid.VolID, v)
		} else if v.Size != 2<<30 {
			t.Errorf("%s: data disk %s has %d bytes, want 2 GiB", name, v.VolID, v.Size)
		}
	}
}

// faultedApply is one apply under faults and what the faults did to it.
type faultedApply struct {
	tfResult
	faultedWrites, failedTasks int
}

// applyUnderFaults applies e.dir with the given faults and the seeded ones
// on and reports the faulted writes and failed tasks of that apply alone.
func applyUnderFaults(t *testing.T, e *env, seed int64, phase string, certain ...pvesim.Fault) faultedApply {
	t.Helper()
	e.sim.ResetCounters()
	tasksBefore := len(e.sim.Tasks())
	for _, f := range certain {
		if err := e.sim.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	injectSeededFaults(t, e.sim, 0.05)
	out := faultedApply{tfResult: e.apply(e.dir, 10)}
	e.sim.ClearFaults()
	faulted := 0
	for _, r := range e.sim.Requests() {
		if r.Dropped || r.Status == http.StatusBadGateway || r.Status == http.StatusServiceUnavailable {
			faulted++
			if r.Method != http.MethodGet {
				out.faultedWrites++
			}
		}
	}
	for _, task := range e.sim.Tasks()[tasksBefore:] {
		if strings.HasSuffix(task.ExitStatus, injectedTaskFailure) {
			out.failedTasks++
		}
	}
	t.Logf("seed %d: %s under faults exited %d with %d faulted requests, %d of them writes, and %d failed tasks",
		seed, phase, out.exitCode, faulted, out.faultedWrites, out.failedTasks)
	logErrors(t, out.output)
	return out
}

// logErrors logs the error lines of a terraform run.
func logErrors(t *testing.T, output string) {
	t.Helper()
	for _, line := range strings.Split(output, "\n") {
		if strings.HasPrefix(line, "Error: ") || strings.Contains(line, "PVE API error") || strings.Contains(line, "PVE task") || strings.Contains(line, "transport") {
			t.Logf("  %s", line)
		}
	}
}

// convergeAfterFaults applies again without faults and checks that the
// fleet is whole: every guest once, no volume lost or orphaned, no change
// left to plan.
func convergeAfterFaults(t *testing.T, e *env, seed int64, faulted faultedApply, names []string) {
	t.Helper()
	if r := e.apply(e.dir, 10); r.exitCode != 0 {
		t.Fatalf("seed %d: the apply after the faults failed (exit %d):\n%s\nthe apply under faults:\n%s", seed, r.exitCode, r.output, faulted.output)
	}
	checkExactlyOnce(t, e.sim, names)
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
}

// dataDiskVolumes maps each guest's name to the volume of its data disk
// (scsi1 of a VM, mp0 of a container).
func dataDiskVolumes(sim *pvesim.Sim) map[string]pvesim.Volume {
	out := map[string]pvesim.Volume{}
	sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			key := "scsi1"
			if g.Type == pvesim.LXC {
				key = "mp0"
			}
			volid, ok := guestVolume(g.Config[key])
			if !ok {
				continue
			}
			if v := c.Volume(g.Node, volid); v != nil {
				out[guestName(g)] = *v
			}
		}
	})
	return out
}

// W13: terraform killed in the middle of an apply leaves guests PVE created
// but the state never recorded. The guests have configured VMIDs, so the
// next apply cannot duplicate them: it refuses each taken VMID by name
// ("VMID Already In Use"), and importing those guests lets the apply after
// it finish. With allocated VMIDs nothing links a half-made guest to its
// resource once the process that allocated the id is gone, and the next
// apply creates a second guest.
func TestFaults_killedApplyLeavesNoDuplicatesW13(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{
		Seed: seedFromEnv(t, 11),
		// Slow enough that the kill lands while creates are in flight.
		TaskDuration: 300 * time.Millisecond,
	}})
	const vms, firstVMID = 8, 300
	e.write(e.dir, fleet("k", vms, 0, firstVMID))
	killMidApply(t, e)

	r := e.apply(e.dir, 4)
	checkAtMostOnce(t, e.sim)
	refused := regexp.MustCompile(`resource "pve_vm" "(k_vm_\d+)":\n\s*\d+:\s*vmid = (\d+)`).FindAllStringSubmatch(r.output, -1)
	if r.exitCode != 0 && len(refused) == 0 {
		t.Fatalf("the apply after the kill failed (exit %d) without naming a taken VMID:\n%s", r.exitCode, r.output)
	}
	for _, m := range refused {
		vmid, _ := strconv.Atoi(m[2])
		if g, ok := e.sim.Guest(vmid); !ok || guestName(&g) != strings.ReplaceAll(m[1], "_", "-") {
			t.Errorf("the apply refused VMID %d for %s, which holds no guest of that name", vmid, m[1])
		}
		if imp := e.run(e.dir, "import", "-input=false", "-no-color", "pve_vm."+m[1], m[2]); imp.exitCode != 0 {
			t.Fatalf("import %s: %s", m[1], imp.output)
		}
	}
	e.mustApply(e.dir, 4)
	checkExactlyOnce(t, e.sim, fleetNames("k", vms, 0))
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
}

// W11, W13: the same kill with allocated VMIDs. The half-made guests carry
// the create marker with their planned name, so the next apply adopts each
// of them instead of allocating another id and creating a duplicate.
func TestFaults_killedApplyWithAllocatedVMIDsLeavesNoDuplicatesW13(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{
		Seed:         seedFromEnv(t, 11),
		TaskDuration: 300 * time.Millisecond,
	}})
	const vms, cts = 8, 2
	e.write(e.dir, fleet("k", vms, cts, 0))
	killMidApply(t, e)

	e.mustApply(e.dir, 4)
	checkExactlyOnce(t, e.sim, fleetNames("k", vms, cts))
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
}

// killMidApply starts an apply of e.dir and kills terraform (SIGKILL, so
// nothing is saved to state) once PVE has started creating guests.
func killMidApply(t *testing.T, e *env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, out := e.command(ctx, e.dir, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Counted by vmid: guests mid-create have no name yet, and by the time
	// two names show their creates may be finished and their markers gone.
	for deadline := time.Now().Add(time.Minute); guestCount(e.sim) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no guest was created within a minute:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	t.Logf("killed with %d guests present", guestCount(e.sim))
}

// guestCount is the number of guests in the simulator.
func guestCount(sim *pvesim.Sim) int {
	n := 0
	sim.View(func(c *pvesim.Cluster) { n = len(c.Guests) })
	return n
}

// checkAtMostOnce fails when two guests share a name.
func checkAtMostOnce(t *testing.T, sim *pvesim.Sim) {
	t.Helper()
	for name, ids := range guestsByName(sim) {
		if len(ids) > 1 {
			t.Errorf("guest %s exists %d times (vmids %v)", name, len(ids), ids)
		}
	}
}

// W10: PVE locks a container clone's source ("lock: disk") for the whole
// clone and a VM clone's running source (its config flock), so a second
// clone of the same source at the same time fails ("CT is locked (disk)").
// One provider process serialises the clones of one source; clones of
// different sources, and of a VM template, run side by side.
func TestFaults_clonesOfOneSourceAreSerialisedW10(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{
		Seed: seedFromEnv(t, 13),
		// Long enough that unserialised clones would overlap.
		TaskDuration: 200 * time.Millisecond,
	}})
	const clones = 4
	var b strings.Builder
	fmt.Fprintf(&b, `
resource "pve_container_template" "base" {
  node        = "pve1"
  hostname    = "base-ct"
  os_template = %q
  memory      = { size = 256, swap = 0 }
  root_disk   = { storage = "local-lvm", size = 2 }
}

resource "pve_vm_template" "base" {
  node   = "pve1"
  name   = "base-vm"
  memory = { size = 512 }
  disks  = { scsi0 = { storage = "local-lvm", size = 2 } }
}
`, ctTemplate)
	var names []string
	for i := range clones {
		fmt.Fprintf(&b, `
resource "pve_container" "clone_%[1]d" {
  node     = "pve1"
  hostname = "clone-ct-%[1]d"
  started  = false
  clone    = { source_vmid = pve_container_template.base.vmid }
}

resource "pve_vm" "clone_%[1]d" {
  node    = "pve1"
  name    = "clone-vm-%[1]d"
  started = false
  clone   = { source_vmid = pve_vm_template.base.vmid }
}
`, i)
		names = append(names, fmt.Sprintf("clone-ct-%d", i), fmt.Sprintf("clone-vm-%d", i))
	}
	e.write(e.dir, b.String())
	e.mustApply(e.dir, 10)
	checkExactlyOnce(t, e.sim, append(names, "base-ct", "base-vm"))
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
}

// W8, W14: clones whose task fails leave nothing behind (PVE's clone
// worker removes its target), and a clone whose move to its node failed is
// left half-made on the source's node; the next apply clones the first
// again and finishes the second, each once.
func TestFaults_failedClonesAreMadeAgainW8(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: seedFromEnv(t, 23)}})
	var b strings.Builder
	fmt.Fprintf(&b, `
resource "pve_container_template" "base" {
  node        = "pve1"
  hostname    = "base-ct"
  os_template = %q
  memory      = { size = 256, swap = 0 }
  root_disk   = { storage = "local-lvm", size = 2 }
}

resource "pve_vm_template" "base" {
  node   = "pve1"
  name   = "base-vm"
  memory = { size = 512 }
  disks  = { scsi0 = { storage = "local-lvm", size = 2 } }
}
`, ctTemplate)
	names := []string{"base-ct", "base-vm"}
	for i := range 3 {
		fmt.Fprintf(&b, `
resource "pve_container" "clone_%[1]d" {
  node     = "pve2"
  hostname = "clone-ct-%[1]d"
  started  = false
  clone    = { source_vmid = pve_container_template.base.vmid }
}

resource "pve_vm" "clone_%[1]d" {
  node    = "pve2"
  name    = "clone-vm-%[1]d"
  started = false
  clone   = { source_vmid = pve_vm_template.base.vmid }
}
`, i)
		names = append(names, fmt.Sprintf("clone-ct-%d", i), fmt.Sprintf("clone-vm-%d", i))
	}
	e.write(e.dir, b.String())
	for _, f := range []pvesim.Fault{
		{Path: "/nodes/{node}/lxc/{vmid}/clone", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 2},
		{Path: "/nodes/{node}/qemu/{vmid}/clone", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 2},
		// The templates' volumes are local: each clone is made on pve1 and
		// then migrated; of three clones of each kind one gets that far.
		{Path: "/nodes/{node}/qemu/{vmid}/migrate", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 1},
		{Path: "/nodes/{node}/lxc/{vmid}/migrate", Action: pvesim.FaultTaskFail, Message: injectedTaskFailure, Count: 1},
	} {
		if err := e.sim.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	first := e.apply(e.dir, 10)
	if first.exitCode == 0 {
		t.Fatalf("the apply succeeded although clone tasks failed:\n%s", first.output)
	}
	logErrors(t, first.output)
	failed := map[string]int{}
	for _, task := range e.sim.Tasks() {
		if strings.HasSuffix(task.ExitStatus, injectedTaskFailure) {
			failed[task.Type]++
		}
	}
	if want := map[string]int{"qmclone": 2, "vzclone": 2, "qmigrate": 1, "vzmigrate": 1}; !maps.Equal(failed, want) {
		t.Fatalf("failed tasks %v, want %v: the faults did not hit as planned", failed, want)
	}
	e.sim.ClearFaults()
	if r := e.apply(e.dir, 10); r.exitCode != 0 {
		t.Fatalf("the apply after the failed clones failed (exit %d):\n%s\nthe first apply:\n%s", r.exitCode, r.output, first.output)
	}
	checkExactlyOnce(t, e.sim, names)
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
}

// W10: a config write that PVE refused because another operation held the
// guest's lock file ("can't lock file ... - got timeout") changed nothing,
// so the provider sends it again and the apply succeeds.
func TestFaults_guestLockFileTimeoutIsRetriedW10(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: seedFromEnv(t, 17)}})
	config := fleet("l", 3, 1, 0)
	e.write(e.dir, config)
	e.mustApply(e.dir, 10)
	e.write(e.dir, strings.NewReplacer(
		"memory        = { size = 512 }", "memory        = { size = 640 }",
		"memory      = { size = 256, swap = 0 }", "memory      = { size = 320, swap = 0 }",
	).Replace(config))
	for _, typ := range []string{"qemu", "lxc"} {
		if err := e.sim.InjectFault(pvesim.Fault{Method: http.MethodPut, Path: "/nodes/{node}/" + typ + "/{vmid}/config",
			Action: pvesim.FaultLockTimeout, Count: 2}); err != nil {
			t.Fatal(err)
		}
	}
	e.sim.ResetCounters()
	e.mustApply(e.dir, 10)
	refused := 0
	for _, r := range e.sim.Requests() {
		if r.Method == http.MethodPut && r.Status == http.StatusInternalServerError {
			refused++
		}
	}
	if refused != 4 {
		t.Errorf("%d config writes were refused for the lock, want 4: the faults did not hit", refused)
	}
	e.mustPlanEmpty(e.dir)
}

// W11: while a node is offline its guests are listed with status
// "unknown" and no name, and their endpoints answer 595. A refresh keeps
// their state, with a warning, and writes it back unchanged; once the node
// is back nothing is planned.
func TestFaults_offlineNodeGuestsKeepTheirState(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: seedFromEnv(t, 19)}})
	e.write(e.dir, fleet("u", 3, 3, 0)) // u-vm-2 and u-ct-2 on pve3
	e.mustApply(e.dir, 10)
	before := e.run(e.dir, "state", "show", "-no-color", "pve_container.u_ct_2")
	if err := e.sim.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	r := e.run(e.dir, "apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	if r.exitCode != 0 {
		t.Fatalf("refresh with pve3 offline failed (exit %d):\n%s", r.exitCode, r.output)
	}
	for _, want := range []string{"Warning: Node Unreachable, VM State Kept", "Warning: Node Unreachable, Container State Kept"} {
		if !strings.Contains(r.output, want) {
			t.Errorf("refresh output lacks %q:\n%s", want, r.output)
		}
	}
	list := e.run(e.dir, "state", "list")
	for _, addr := range []string{"pve_vm.u_vm_2", "pve_container.u_ct_2"} {
		if !strings.Contains(list.output, addr) {
			t.Errorf("%s left the state:\n%s", addr, list.output)
		}
	}
	if after := e.run(e.dir, "state", "show", "-no-color", "pve_container.u_ct_2"); after.output != before.output {
		t.Errorf("the refresh changed the state of the container on the offline node:\nbefore:\n%s\nafter:\n%s", before.output, after.output)
	}
	if err := e.sim.SetNodeOnline("pve3"); err != nil {
		t.Fatal(err)
	}
	e.mustPlanEmpty(e.dir)
}
