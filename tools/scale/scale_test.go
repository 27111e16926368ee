package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// TestMain lets the test binary stand in for the provider launcher, as the
// tool's own binary does when it runs.
func TestMain(m *testing.M) {
	if wrapMode() {
		os.Exit(runWrapped(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func TestGuestsConfigSpreadsKindsAndNodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, vms, cts int }{{1, 1, 0}, {2, 1, 1}, {5, 3, 2}, {200, 100, 100}} {
		vms, cts := guestMix(tc.n)
		if vms != tc.vms || cts != tc.cts {
			t.Errorf("guestMix(%d) = %d, %d; want %d, %d", tc.n, vms, cts, tc.vms, tc.cts)
		}
	}
	cfg := guestsConfig(5, 0)
	for _, want := range []string{
		"count   = 3", `node    = "pve${count.index % 3 + 1}"`, "scsi0 = {", "scsi1 = {", "net0 = {", "net1 = {",
		"count       = 2", `node        = "pve${(count.index + 1) % 3 + 1}"`, "started     = false",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("configuration lacks %q:\n%s", want, cfg)
		}
	}
	if strings.Contains(guestsConfig(1, 0), "pve_container") {
		t.Error("one guest is a VM only")
	}
	if strings.Contains(cfg, "pool") {
		t.Errorf("no pools asked for, yet:\n%s", cfg)
	}
	pooled := guestsConfig(5, 2)
	for _, want := range []string{
		"resource \"pve_pool\" \"scale\" {\n  count  = 2\n", `poolid = "scale-pool-${count.index}"`,
		"started = false\n  pool    = pve_pool.scale[count.index % 2].poolid\n",
		"started     = false\n  pool        = pve_pool.scale[count.index % 2].poolid\n",
	} {
		if !strings.Contains(pooled, want) {
			t.Errorf("pooled configuration lacks %q:\n%s", want, pooled)
		}
	}
	if block := providerBlock(200); !strings.Contains(block, "vmid_range = { min = 10000, max = 10500 }") {
		t.Errorf("provider block: %s", block)
	}
}

func TestSummarizeCountsMethodsWritesAndErrors(t *testing.T) {
	t.Parallel()
	reqs := []pvesim.RequestRecord{
		{Method: "GET", Path: "/pools", Params: map[string][]string{"poolid": {"a"}}, Status: 500},
		{Method: "GET", Path: "/nodes", Status: 200},
		{Method: "GET", Status: 200},
		{Method: "POST", Status: 200},
		{Method: "DELETE", Dropped: true},
		{Method: "GET", Status: 200},
	}
	pr := summarize("plan", reqs, 2, 2)
	if pr.Requests != 6 || pr.Writes != 2 || pr.Errors != 2 || pr.RequestsPerGuest != 2 || pr.PoolReads != 1 || pr.PoolReadErrors != 1 || pr.NodeListReads != 1 {
		t.Errorf("summary = %+v", pr)
	}
	if want := map[string]int{"GET": 4, "POST": 1, "DELETE": 1}; !reflect.DeepEqual(pr.RequestsByMethod, want) {
		t.Errorf("by method = %v, want %v", pr.RequestsByMethod, want)
	}
	if want := map[string]int{"500": 1, "dropped": 1}; !reflect.DeepEqual(pr.ErrorsByStatus, want) {
		t.Errorf("errors by status = %v, want %v", pr.ErrorsByStatus, want)
	}
	if base := summarize("baseline", reqs, 2, 0); base.RequestsPerGuest != 0 {
		t.Errorf("baseline per guest = %v", base.RequestsPerGuest)
	}
}

func TestEvaluateGoals(t *testing.T) {
	t.Parallel()
	r := &report{Settings: settings{Guests: 10, Parallelism: 10, LatencyMS: 10}}
	r.Phases = []phaseReport{
		{Name: "baseline", WallSeconds: 1},
		{Name: "apply", ExitCode: 0, Errors: 1, ProviderPeakRSSMiB: 40},
		// 20 requests x 10ms / 10 = 20ms; bound 2 x (0.02 + 1) = 2.04s.
		{Name: "plan", Requests: 20, WallSeconds: 2, Writes: 0},
		{Name: "refresh", RequestsPerGuest: 2.5, ProviderPeakRSSMiB: 160},
	}
	r.evaluate()
	got := map[string]bool{}
	for _, g := range r.Goals {
		got[g.Name] = g.Met
	}
	want := map[string]bool{
		"refresh cost": false, "no-op plan cost": true, "no-op plan writes": true, "no-op plan wall time": true,
		"apply at P=10": false, "provider peak RSS": false,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("goals = %v, want %v", got, want)
	}
	var out strings.Builder
	writeTable(&out, r)
	for _, want := range []string{"MISSED", "refresh cost", "baseline"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// With pools, a refresh costs two requests per guest plus one per pool.
func TestEvaluateGoalsWithPools(t *testing.T) {
	t.Parallel()
	r := &report{Settings: settings{Guests: 200, Pools: 10, Parallelism: 10}}
	r.Phases = []phaseReport{{Name: "plan", RequestsPerGuest: 2.05}, {Name: "refresh", RequestsPerGuest: 2.06}}
	r.evaluate()
	got := map[string]goal{}
	for _, g := range r.Goals {
		got[g.Name] = g
	}
	if g := got["no-op plan cost"]; !g.Met || !strings.Contains(g.Target, "1 per pool = 2.05 per guest") {
		t.Errorf("plan goal = %+v", g)
	}
	if g := got["refresh cost"]; g.Met {
		t.Errorf("refresh goal = %+v, want missed", g)
	}
}

func TestReadUsageTakesPeakAndSumsCPU(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "usage.log")
	if u, err := readUsage(path); err != nil || u.instances != 0 {
		t.Fatalf("missing log = %+v, %v", u, err)
	}
	appendUsage(path, 2048, time.Second)
	appendUsage(path, 4096, 2*time.Second)
	// A torn or foreign line is skipped, not fatal.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("garbage\n")
	_ = f.Close()
	u, err := readUsage(path)
	if err != nil || u.instances != 2 || u.peakRSSKiB != 4096 || u.cpu != 3*time.Second {
		t.Errorf("usage = %+v, %v", u, err)
	}
}

func TestParseFlagsDefaultsAndChecks(t *testing.T) {
	t.Parallel()
	o, err := parseFlags(nil, io.Discard)
	if err != nil || o.guests != 200 || o.parallelism != 10 || o.latency != 5*time.Millisecond || o.task != 50*time.Millisecond || o.jsonOut {
		t.Errorf("defaults = %+v, %v", o, err)
	}
	if o, err := parseFlags([]string{"-pools", "3"}, io.Discard); err != nil || o.pools != 3 {
		t.Errorf("-pools 3 = %+v, %v", o, err)
	}
	for _, args := range [][]string{{"-n", "0"}, {"-p", "0"}, {"-latency", "-1ms"}, {"-pools", "-1"}, {"extra"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%v) accepted", args)
		}
	}
}

func TestWithoutEnv(t *testing.T) {
	t.Parallel()
	got := withoutEnv([]string{"A=1", "AB=2", "B=3"}, "A", "B")
	if !reflect.DeepEqual(got, []string{"AB=2"}) {
		t.Errorf("withoutEnv = %v", got)
	}
}

// TestSmallEstateEndToEnd runs the whole benchmark on four guests: the real
// terraform binary, the provider built from this module and the simulator.
// It checks counts, never timings.
func TestSmallEstateEndToEnd(t *testing.T) {
	t.Parallel()
	opts := options{guests: 4, parallelism: 4, latency: time.Millisecond, terraform: "terraform"}
	rep, err := run(context.Background(), opts, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range rep.Phases {
		names = append(names, p.Name)
		if p.ProviderStarts == 0 || p.ProviderPeakRSSMiB <= 0 || p.TerraformCPUSeconds <= 0 {
			t.Errorf("%s: no provider or terraform usage recorded: %+v", p.Name, p)
		}
		if p.Errors != 0 {
			t.Errorf("%s: %d API errors %v", p.Name, p.Errors, p.ErrorsByStatus)
		}
	}
	if want := []string{"baseline", "apply", "plan", "refresh", "destroy"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("phases = %v, want %v", names, want)
	}
	plan, _ := rep.phase("plan")
	refresh, _ := rep.phase("refresh")
	// A refresh reads each guest's config and status, and a no-op plan
	// writes nothing.
	if plan.Writes != 0 || refresh.Writes != 0 || refresh.RequestsPerGuest != 2 || plan.RequestsPerGuest != 2 {
		t.Errorf("plan %+v\nrefresh %+v", plan, refresh)
	}
	apply, _ := rep.phase("apply")
	destroy, _ := rep.phase("destroy")
	if apply.RequestsByMethod["POST"] != 4 || destroy.RequestsByMethod["DELETE"] != 4 {
		t.Errorf("apply %v, destroy %v", apply.RequestsByMethod, destroy.RequestsByMethod)
	}
}

// TestPooledEstateEndToEnd runs the benchmark on four guests in two pools:
// a no-op plan and a refresh read each pool once, and an apply asks for
// the node list once per provider configuration, not once per guest.
func TestPooledEstateEndToEnd(t *testing.T) {
	t.Parallel()
	opts := options{guests: 4, pools: 2, parallelism: 4, latency: time.Millisecond, terraform: "terraform"}
	rep, err := run(context.Background(), opts, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Phases {
		// The apply's plan asks for the pools it is about to create, once
		// each, and PVE answers that they do not exist.
		if unexpected := p.Errors - p.PoolReadErrors; unexpected != 0 || p.PoolReadErrors > opts.pools {
			t.Errorf("%s: %d API errors %v, %d of them pool reads", p.Name, p.Errors, p.ErrorsByStatus, p.PoolReadErrors)
		}
	}
	for _, g := range rep.Goals {
		if !g.Met && !strings.Contains(g.Name, "wall time") && !strings.Contains(g.Name, "RSS") {
			t.Errorf("goal %s missed: %s, target %s", g.Name, g.Measured, g.Target)
		}
	}
	for _, name := range []string{"plan", "refresh"} {
		p, _ := rep.phase(name)
		// Two requests per guest, one per pool: (4x2 + 2) / 4.
		if p.Writes != 0 || p.PoolReads != 2 || p.RequestsPerGuest != 2.5 {
			t.Errorf("%s: %d writes, %d pool reads, %.2f requests per guest; want 0, 2, 2.50", name, p.Writes, p.PoolReads, p.RequestsPerGuest)
		}
	}
	// The apply's plan pass and its apply pass each configure a provider.
	if apply, _ := rep.phase("apply"); apply.NodeListReads > 2 {
		t.Errorf("apply asked for the node list %d times, want at most 2", apply.NodeListReads)
	}
}

// The provider CPU per guest leaves out what the empty configuration cost,
// so that a cost linear in the estate reads as the same figure at every N.
func TestCPUPerGuestLeavesOutBaseline(t *testing.T) {
	t.Parallel()
	r := &report{Phases: []phaseReport{
		{Name: "baseline", ProviderCPUSeconds: 0.5},
		{Name: "plan", ProviderCPUSeconds: 4.5},
		{Name: "refresh", ProviderCPUSeconds: 0.25},
	}}
	r.setCPUPerGuest(200)
	if got := r.Phases[1].ProviderCPUMsPerGuest; got != 20 {
		t.Errorf("plan: %.2f ms per guest, want 20", got)
	}
	if got := r.Phases[2].ProviderCPUMsPerGuest; got != 0 {
		t.Errorf("refresh cheaper than the baseline: %.2f ms per guest, want 0", got)
	}
	if got := r.Phases[0].ProviderCPUMsPerGuest; got != 0 {
		t.Errorf("baseline: %.2f ms per guest, want none", got)
	}
	var out strings.Builder
	writeTable(&out, r)
	if !strings.Contains(out.String(), "CPU ms/guest") || !strings.Contains(out.String(), "20.0") {
		t.Errorf("table lacks the CPU per guest:\n%s", out.String())
	}
}

// Requests are counted by path with their ids replaced, so that a phase's
// cost per guest can be told apart by endpoint.
func TestPathShape(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/nodes/pve1/qemu/101/config": "/nodes/{node}/qemu/{vmid}/config",
		"/nodes/pve2/tasks/UPID:pve2:0001:0002:0003:qmcreate:101:root@pam:/status": "/nodes/{node}/tasks/{upid}/status",
		"/cluster/resources":                    "/cluster/resources",
		"/pools/a":                              "/pools/{id}",
		"/nodes/pve3/storage/local-lvm/content": "/nodes/{node}/storage/{id}/content",
	} {
		if got := pathShape(path); got != want {
			t.Errorf("pathShape(%q) = %q, want %q", path, got, want)
		}
	}
}
