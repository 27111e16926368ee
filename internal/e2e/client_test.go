package e2e_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// A PVE that sends the headers of an answer and then stalls must not hang
// a plan: each request has a deadline (request_timeout), a read that runs
// out of time is sent again, and when every attempt stalls the plan ends
// with an error naming the request.
func TestClient_stalledRefreshEndsWithAnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{providerExtra: "  request_timeout = \"1s\"\n"})
	pool := "stall-" + randomHex(t, 3)
	e.write(e.dir, fmt.Sprintf("resource \"pve_pool\" \"p\" {\n  poolid = %q\n}\n", pool))
	e.mustApply(e.dir, 1)

	// One stalled answer: the read is sent again and the plan is empty.
	if err := e.sim.InjectFault(pvesim.Fault{Method: "GET", Path: "/pools", Action: pvesim.FaultStall, Count: 1}); err != nil {
		t.Fatal(err)
	}
	e.mustPlanEmpty(e.dir)
	e.sim.ClearFaults()

	if err := e.sim.InjectFault(pvesim.Fault{Method: "GET", Path: "/pools", Action: pvesim.FaultStall}); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	r := e.run(e.dir, "plan", "-input=false", "-no-color")
	elapsed := time.Since(started)
	if r.exitCode == 0 {
		t.Fatalf("plan against a stalled PVE succeeded:\n%s", r.output)
	}
	out := strings.Join(strings.Fields(r.output), " ")
	for _, want := range []string{"GET /pools", "no complete answer within the request timeout of 1s", "request_timeout"} {
		if !strings.Contains(out, want) {
			t.Errorf("the error should say %q:\n%s", want, r.output)
		}
	}
	if elapsed > 90*time.Second {
		t.Errorf("the stalled plan took %s", elapsed)
	}
	if n := e.sim.Count("GET", "/pools"); n < 2 {
		t.Errorf("the stalled read was sent %d times, want retries", n)
	}
}
