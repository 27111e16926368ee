package e2e_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// W13: two terraform processes allocate from the same vmid_range at once.
// /cluster/nextid only proposes an id, so both see the same proposals; the
// loser of each race must take another id, never fail and never duplicate.
func TestParallel_twoProcessesShareVMIDRangeW13(t *testing.T) {
	t.Parallel()
	const low, high = 1000, 1099
	e := newEnv(t, envOptions{
		sim:           pvesim.Options{Seed: seedFromEnv(t, 5)},
		providerExtra: fmt.Sprintf("  vmid_range = { min = %d, max = %d }\n", low, high),
	})
	const vms, cts = 17, 8
	dirs := []string{e.workdir("a"), e.workdir("b")}
	e.write(dirs[0], fleet("a", vms, cts, 0))
	e.write(dirs[1], fleet("b", vms, cts, 0))

	results := make([]tfResult, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.apply(dir, 10)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.exitCode != 0 {
			t.Errorf("apply %d failed (exit %d):\n%s", i, r.exitCode, r.output)
		}
	}
	names := append(fleetNames("a", vms, cts), fleetNames("b", vms, cts)...)
	checkExactlyOnce(t, e.sim, names)
	seen := map[int]string{}
	for name, ids := range guestsByName(e.sim) {
		for _, id := range ids {
			if id < low || id > high {
				t.Errorf("guest %s got VMID %d outside vmid_range %d-%d", name, id, low, high)
			}
			if other, dup := seen[id]; dup {
				t.Errorf("VMID %d given to both %s and %s", id, other, name)
			}
			seen[id] = name
		}
	}
	if len(seen) != 2*(vms+cts) {
		t.Errorf("%d distinct VMIDs, want %d", len(seen), 2*(vms+cts))
	}
	for _, dir := range dirs {
		e.mustPlanEmpty(dir)
	}
}

// W2: a ticket lasts a fixed time; an apply that outlives it must log in
// again rather than fail with 401 half-way.
func TestParallel_ticketRenewedAcrossLongApplyW2(t *testing.T) {
	t.Parallel()
	const lifetime = 2 * time.Second
	e := newEnv(t, envOptions{
		// Eight guests two at a time are four rounds of create tasks at
		// least: with 1.2 s tasks the apply outlives two tickets however
		// fast the machine is.
		sim:          pvesim.Options{Seed: seedFromEnv(t, 3), TicketLifetime: lifetime, TaskDuration: 1200 * time.Millisecond},
		passwordAuth: true,
	})
	e.write(e.dir, fleet("r", 8, 0, 0))
	start := time.Now()
	r := e.apply(e.dir, 2)
	took := time.Since(start)
	if took < 2*lifetime {
		// Not an assertion on speed: without this the test would prove
		// nothing about renewal.
		t.Fatalf("the apply took %v, not long enough to outlive a %v ticket", took, lifetime)
	}
	if r.exitCode != 0 {
		t.Fatalf("apply across ticket expiry failed (exit %d):\n%s", r.exitCode, r.output)
	}
	expired := 0
	for _, rec := range e.sim.Requests() {
		if rec.Status == http.StatusUnauthorized {
			expired++
		}
	}
	logins := e.sim.Count("POST", "/access/ticket")
	t.Logf("%d logins and %d answers 401 in an apply of %v", logins, expired, took)
	// terraform apply starts the provider twice (plan, then apply), each
	// logging in once; more logins are renewals.
	if logins < 3 {
		t.Errorf("%d logins: the ticket was never renewed", logins)
	}
	checkExactlyOnce(t, e.sim, fleetNames("r", 8, 0))
}

// A node that does not answer (pveproxy: 595) must not fail the plan for
// guests on other nodes: its guests keep their recorded state, with a
// warning naming the node.
func TestParallel_offlineNodeKeepsItsGuests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{sim: pvesim.Options{Seed: seedFromEnv(t, 4)}})
	e.write(e.dir, fleet("o", 3, 0, 0)) // o-vm-0 on pve1, o-vm-1 on pve2, o-vm-2 on pve3
	e.mustApply(e.dir, 10)
	if err := e.sim.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	// A change to the guest on pve1 is planned as usual.
	e.write(e.dir, strings.Replace(fleet("o", 3, 0, 0), "memory        = { size = 512 }", "memory        = { size = 1024 }", 1))
	r := e.run(e.dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if r.exitCode != 2 {
		t.Fatalf("plan with pve3 offline: exit %d, want 2 (changes):\n%s", r.exitCode, r.output)
	}
	for _, want := range []string{
		"Warning: Node Unreachable, VM State Kept",
		"pve_vm.o_vm_0 will be updated in-place",
		"Plan: 0 to add, 1 to change, 0 to destroy.",
	} {
		if !strings.Contains(r.output, want) {
			t.Errorf("plan output lacks %q:\n%s", want, r.output)
		}
	}
	if strings.Contains(r.output, "o_vm_2 will be") || strings.Contains(r.output, "o_vm_2 must be") {
		t.Errorf("the plan changes the guest on the offline node:\n%s", r.output)
	}
}
