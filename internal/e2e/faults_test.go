package e2e_test

import (
	"context"
	"fmt"
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

// injectSeededFaults makes about rate of all requests fail, split evenly
// between a connection reset before the handler, a reset after it ran (the
// answer is lost), 502 and 503.
func injectSeededFaults(t *testing.T, sim *pvesim.Sim, rate float64) {
	t.Helper()
	share := rate / 4
	for _, f := range []pvesim.Fault{
		{Action: pvesim.FaultDropBefore, Rate: share},
		{Action: pvesim.FaultDropAfter, Rate: share},
		{Action: pvesim.FaultRespond, Status: http.StatusBadGateway, Rate: share},
		{Action: pvesim.FaultRespond, Status: http.StatusServiceUnavailable, Rate: share},
	} {
		if err := sim.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
}

// W13: a create whose answer was lost is inspected, never repeated blindly;
// an apply under faults may fail, but the next one converges with every guest
// existing exactly once and every volume accounted for.
func TestFaults_seededApplyConvergesW13(t *testing.T) {
	t.Parallel()
	seed := seedFromEnv(t, 9)
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: seed}})
	const vms, cts = 20, 10
	e.write(e.dir, fleet("f", vms, cts, 0))

	injectSeededFaults(t, e.sim, 0.05)
	first := e.apply(e.dir, 10)
	faulted, faultedWrites := 0, 0
	for _, r := range e.sim.Requests() {
		if r.Dropped || r.Status == http.StatusBadGateway || r.Status == http.StatusServiceUnavailable {
			faulted++
			if r.Method != http.MethodGet {
				faultedWrites++
			}
		}
	}
	t.Logf("seed %d: apply under faults exited %d with %d faulted requests, %d of them writes", seed, first.exitCode, faulted, faultedWrites)
	for _, line := range strings.Split(first.output, "\n") {
		if strings.HasPrefix(line, "Error: ") || strings.HasPrefix(line, "PVE API error") || strings.Contains(line, "transport") {
			t.Logf("  %s", line)
		}
	}
	if faultedWrites == 0 {
		t.Fatalf("seed %d: no write was faulted; the test proves nothing", seed)
	}

	e.sim.ClearFaults()
	if r := e.apply(e.dir, 10); r.exitCode != 0 {
		t.Fatalf("seed %d: the apply after the faults failed (exit %d):\n%s\nthe apply under faults:\n%s", seed, r.exitCode, r.output, first.output)
	}
	checkExactlyOnce(t, e.sim, fleetNames("f", vms, cts))
	checkNoOrphanedVolumes(t, e.sim)
	e.mustPlanEmpty(e.dir)
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
	for deadline := time.Now().Add(time.Minute); len(guestsByName(e.sim)) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no guest was created within a minute:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	t.Logf("killed with %d guests present", len(guestsByName(e.sim)))
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
