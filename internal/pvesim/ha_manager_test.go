package pvesim

import (
	"net/http"
	"testing"
)

func haService(t *testing.T, e *env, sid string) map[string]any {
	t.Helper()
	var list []map[string]any
	a := e.call(t, http.MethodGet, "/cluster/ha/status/current", nil)
	a.wantOK(t)
	a.decode(t, &list)
	for _, entry := range list {
		if entry["id"] == "service:"+sid {
			return entry
		}
	}
	t.Fatalf("no service entry for %s in %v", sid, list)
	return nil
}

func haGuest(t *testing.T, s *Sim, vmid int) Guest {
	t.Helper()
	g, ok := s.Guest(vmid)
	if !ok {
		t.Fatalf("guest %d gone", vmid)
	}
	return g
}

// haSettle runs rounds until the service's CRM state and verbose state
// are the wanted ones, failing after max rounds.
func haSettle(t *testing.T, e *env, sid, crm, state string, maxRounds int) {
	t.Helper()
	for range maxRounds {
		e.sim.HAStep()
		var got HAService
		var ok bool
		e.sim.View(func(c *Cluster) {
			if sd := c.HA.Manager.Services[sid]; sd != nil {
				got, ok = *sd, true
			}
		})
		if ok && got.State == crm && (state != "started" || got.Running) {
			return
		}
	}
	t.Fatalf("%s did not reach %s/%s in %d rounds: %v", sid, crm, state, maxRounds, haService(t, e, sid))
}

func TestHAManagerStartsAndStopsGuests(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40) // rounds only through HAStep
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	if s := haService(t, e, "vm:100"); s["state"] != "queued" || s["request_state"] != "started" || s["crm_state"] != nil {
		t.Fatalf("before the first round: %v", s)
	}
	e.sim.HAStep()
	if s := haService(t, e, "vm:100"); s["crm_state"] != "started" || s["state"] != "starting" {
		t.Fatalf("after one round: %v", s)
	}
	if g := haGuest(t, e.sim, 100); g.Status != "running" {
		t.Fatalf("guest not started by the LRM: %s", g.Status)
	}
	e.sim.HAStep()
	s := haService(t, e, "vm:100")
	if s["state"] != "started" || s["node"] != "pve1" || s["status"] != "vm:100 (pve1, started)" ||
		s["max_restart"] != float64(1) || s["failback"] != float64(1) {
		t.Fatalf("after two rounds: %v", s)
	}
	if r := resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["hastate"] != "started" {
		t.Errorf("cluster resources entry %v, want hastate started", r)
	}
	e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("state", "stopped")).wantOK(t)
	haSettle(t, e, "vm:100", "stopped", "stopped", 3)
	if g := haGuest(t, e.sim, 100); g.Status != "stopped" {
		t.Fatalf("guest still %s", g.Status)
	}
	// ignored: the service leaves the manager.
	e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("state", "ignored")).wantOK(t)
	e.sim.HAStep()
	if s := haService(t, e, "vm:100"); s["state"] != "ignored" || s["crm_state"] != nil {
		t.Fatalf("ignored: %v", s)
	}
}

func TestHAManagerMigrateAndRelocate(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101")).wantOK(t)
	haSettle(t, e, "vm:100", "started", "started", 3)
	haSettle(t, e, "ct:101", "started", "started", 3)
	a := e.call(t, http.MethodPost, "/cluster/ha/resources/vm:100/migrate", form("node", "pve3"))
	a.wantOK(t)
	var answer map[string]any
	a.decode(t, &answer)
	if answer["sid"] != "vm:100" || answer["requested-node"] != "pve3" || len(answer) != 2 {
		t.Fatalf("migrate answer %v", answer)
	}
	e.sim.HAStep()
	if s := haService(t, e, "vm:100"); s["crm_state"] != "migrate" {
		t.Fatalf("after the request's round: %v", s)
	}
	haSettle(t, e, "vm:100", "started", "started", 3)
	if g := haGuest(t, e.sim, 100); g.Node != "pve3" || g.Status != "running" {
		t.Fatalf("guest after migrate: node %s, %s", g.Node, g.Status)
	}
	e.call(t, http.MethodPost, "/cluster/ha/resources/101/relocate", form("node", "pve1")).wantOK(t)
	haSettle(t, e, "ct:101", "started", "started", 4)
	if g := haGuest(t, e.sim, 101); g.Node != "pve1" || g.Status != "running" {
		t.Fatalf("container after relocate: node %s, %s", g.Node, g.Status)
	}
	wantMessage(t, e.call(t, http.MethodPost, "/cluster/ha/resources/vm:102/migrate", form("node", "pve3")),
		http.StatusInternalServerError, "resource 'vm:102' is not HA managed\n")
}

// A node failure: the services on it are fenced and recovered to another
// online node the node-affinity rule allows, in bounded rounds.
func TestHAManagerRecoversFromNodeFailure(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		c.HA.Rules["pref"] = &HARule{ID: "pref", Type: "node-affinity",
			Props: map[string]string{"resources": "vm:100", "nodes": "pve1:2,pve3:1", "strict": "1"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	haSettle(t, e, "vm:100", "started", "started", 3)
	if err := e.sim.SetNodeOffline("pve1"); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 4 {
		e.sim.HAStep()
		e.sim.View(func(c *Cluster) { seen[c.HA.Manager.Services["vm:100"].State] = true })
	}
	if !seen["fence"] {
		t.Errorf("the service was never fenced: states %v", seen)
	}
	haSettle(t, e, "vm:100", "started", "started", 2)
	g := haGuest(t, e.sim, 100)
	if g.Node != "pve3" || g.Status != "running" {
		t.Fatalf("guest after recovery: node %s, %s (want pve3, strict rule)", g.Node, g.Status)
	}
	var list []map[string]any
	a := e.call(t, http.MethodGet, "/cluster/ha/status/current", nil)
	a.decode(t, &list)
	var master, lrm1 map[string]any
	for _, x := range list {
		switch x["id"] {
		case "master":
			master = x
		case "lrm:pve1":
			lrm1 = x
		}
	}
	if master["node"] != "pve2" {
		t.Errorf("master after pve1 failed: %v", master)
	}
	if lrm1 == nil {
		t.Errorf("no lrm entry for the failed node: %v", list)
	}
	// pve1 back: failback moves the service to the higher priority.
	if err := e.sim.SetNodeOnline("pve1"); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		e.sim.HAStep()
	}
	if g := haGuest(t, e.sim, 100); g.Node != "pve1" {
		t.Fatalf("no failback to pve1: %s", g.Node)
	}
}

// On PVE 8.4 a restricted group limits where a service recovers.
func TestHAManagerGroupRecoveryPVE84(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "8.4")
	e.sim.SetHARoundInterval(1 << 40)
	if err := e.sim.Update(func(c *Cluster) error {
		c.HA.Groups["g1"] = &HAGroup{ID: "g1", Props: map[string]string{"nodes": "pve1,pve2", "restricted": "1"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "group", "g1")).wantOK(t)
	haSettle(t, e, "vm:100", "started", "started", 3)
	if err := e.sim.SetNodeOffline("pve1"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		e.sim.HAStep()
	}
	haSettle(t, e, "vm:100", "started", "started", 2)
	if g := haGuest(t, e.sim, 100); g.Node != "pve2" {
		t.Fatalf("recovered to %s, want pve2", g.Node)
	}
	// The 8.4 LRM text has no watchdog part and there is no fencing entry.
	var list []map[string]any
	a := e.call(t, http.MethodGet, "/cluster/ha/status/current", nil)
	a.decode(t, &list)
	for _, x := range list {
		if x["type"] == "fencing" {
			t.Errorf("8.4 lists %v", x)
		}
	}
}

// By default a round runs before each request: a polling client sees a
// migration complete.
func TestHAManagerAdvancesPerRequest(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources/vm:100/migrate", form("node", "pve2")).wantOK(t)
	for range 6 {
		if s := haService(t, e, "vm:100"); s["node"] == "pve2" && s["state"] == "started" {
			if g := haGuest(t, e.sim, 100); g.Node != "pve2" {
				t.Fatalf("status says pve2, guest is on %s", g.Node)
			}
			return
		}
	}
	t.Fatalf("migration did not finish in 6 polls: %v", haService(t, e, "vm:100"))
}

// What an HA-managed guest's start and stop request ('hastart',
// 'hastop'): the requested state, and a stop command that also sets it.
func TestHAManagerStartStopRequests(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "state", "stopped")).wantOK(t)
	haSettle(t, e, "vm:100", "stopped", "stopped", 3)
	if err := e.sim.Update(func(c *Cluster) error { return c.haSetRequestedState("vm:100", "started") }); err != nil {
		t.Fatal(err)
	}
	haSettle(t, e, "vm:100", "started", "started", 4)
	if g := haGuest(t, e.sim, 100); g.Status != "running" {
		t.Fatalf("guest %s after the start request", g.Status)
	}
	if err := e.sim.Update(func(c *Cluster) error { return c.haRequestStop("vm:100", 0) }); err != nil {
		t.Fatal(err)
	}
	haSettle(t, e, "vm:100", "stopped", "stopped", 4)
	if g := haGuest(t, e.sim, 100); g.Status != "stopped" {
		t.Fatalf("guest %s after the stop request", g.Status)
	}
	if got := haRead(t, e, "vm:100")["state"]; got != "stopped" {
		t.Errorf("requested state after the stop command: %v", got)
	}
	err := e.sim.Update(func(c *Cluster) error { return c.haRequestStop("vm:101", 0) })
	if _, msg, _ := IsAPIError(err); msg != "resource 'vm:101' is not HA managed\n" {
		t.Errorf("stop of an unmanaged service: %v", err)
	}
}

// The status lines as PVE's Status.pm words them, PVE 9 and 8.4.
func TestHAStatusTexts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version, lrm1, lrm2 string
		fencing             bool
	}{
		{"", "pve1 (active, watchdog active, Wed May 20 10:00:00 2026)", "pve2 (idle, watchdog standby, Wed May 20 10:00:00 2026)", true},
		{"8.4", "pve1 (active, Wed May 20 10:00:00 2026)", "pve2 (idle, Wed May 20 10:00:00 2026)", false},
	} {
		clock := newFakeClock()
		e := newEnv(t, Options{PVEVersion: tc.version, Now: clock.Now})
		addGuests(t, e.sim, vm(100, "pve1", "a"))
		e.sim.SetHARoundInterval(1 << 40)
		var list []map[string]any
		a := e.call(t, http.MethodGet, "/cluster/ha/status/current", nil)
		a.decode(t, &list)
		if len(list) != map[bool]int{true: 2, false: 1}[tc.fencing] || list[0]["status"] != "OK" || list[0]["quorate"] != float64(1) {
			t.Fatalf("%s before any HA resource: %v", tc.version, list)
		}
		e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
		e.sim.HAStep()
		a = e.call(t, http.MethodGet, "/cluster/ha/status/current", nil)
		a.decode(t, &list)
		byID := map[string]map[string]any{}
		for _, x := range list {
			byID[x["id"].(string)] = x
		}
		if got := byID["master"]["status"]; got != "pve1 (active, Wed May 20 10:00:00 2026)" {
			t.Errorf("%s master: %v", tc.version, got)
		}
		if got := byID["lrm:pve1"]["status"]; got != tc.lrm1 {
			t.Errorf("%s lrm:pve1 %q, want %q", tc.version, got, tc.lrm1)
		}
		if got := byID["lrm:pve2"]["status"]; got != tc.lrm2 {
			t.Errorf("%s lrm:pve2 %q, want %q", tc.version, got, tc.lrm2)
		}
		if f, ok := byID["fencing"]; ok != tc.fencing || ok && f["status"] != "armed (CRM watchdog active)" {
			t.Errorf("%s fencing entry %v", tc.version, f)
		}
		// A minute without rounds: the timestamps are old.
		clock.Advance(61e9)
		a = e.call(t, http.MethodGet, "/cluster/ha/status/current", nil)
		a.decode(t, &list)
		for _, x := range list {
			if x["id"] == "master" && x["status"] != "pve1 (old timestamp - dead?, Wed May 20 10:00:00 2026)" {
				t.Errorf("%s stale master: %v", tc.version, x["status"])
			}
		}
		var ms map[string]any
		a = e.call(t, http.MethodGet, "/cluster/ha/status/manager_status", nil)
		a.decode(t, &ms)
		status, _ := ms["manager_status"].(map[string]any)
		if status["master_node"] != "pve1" || ms["lrm_status"] == nil {
			t.Errorf("%s manager_status %v", tc.version, ms)
		}
	}
}

// A node back online while it is being fenced: the fencing completes and
// the service is recovered (here back to that node, the only one its
// strict rule allows).
func TestHAManagerNodeBackDuringFencing(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		c.HA.Rules["only1"] = &HARule{ID: "only1", Type: "node-affinity",
			Props: map[string]string{"resources": "vm:100", "nodes": "pve1", "strict": "1"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	haSettle(t, e, "vm:100", "started", "started", 3)
	if err := e.sim.SetNodeOffline("pve1"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		e.sim.HAStep()
	}
	var state, node string
	e.sim.View(func(c *Cluster) { state, node = c.HA.Manager.Services["vm:100"].State, c.HA.Manager.NodeStatus["pve1"] })
	if state != "fence" || node != "fence" {
		t.Fatalf("after two rounds: service %s, node %s; want fence, fence", state, node)
	}
	if err := e.sim.SetNodeOnline("pve1"); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		e.sim.HAStep()
	}
	haSettle(t, e, "vm:100", "started", "started", 2)
	e.sim.View(func(c *Cluster) { node = c.HA.Manager.NodeStatus["pve1"] })
	if g := haGuest(t, e.sim, 100); g.Node != "pve1" || g.Status != "running" || node != "online" {
		t.Fatalf("guest %s %s, node pve1 %s", g.Node, g.Status, node)
	}
}

// Without quorum the manager does nothing: a failed node's services are
// not recovered while most nodes are gone.
func TestHAManagerNeedsQuorum(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	haSettle(t, e, "vm:100", "started", "started", 3)
	for _, n := range []string{"pve1", "pve2"} {
		if err := e.sim.SetNodeOffline(n); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		e.sim.HAStep()
	}
	if g := haGuest(t, e.sim, 100); g.Node != "pve1" {
		t.Fatalf("recovered to %s without quorum", g.Node)
	}
	if s := haService(t, e, "vm:100"); s["crm_state"] != "started" {
		t.Fatalf("without quorum: %v", s)
	}
	if err := e.sim.SetNodeOnline("pve2"); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		e.sim.HAStep()
	}
	haSettle(t, e, "vm:100", "started", "started", 2)
	if g := haGuest(t, e.sim, 100); g.Node == "pve1" {
		t.Fatal("not recovered once quorate again")
	}
}

// A migration to the node of a service in negative resource affinity is
// answered with the blocking resource, and the manager drops it: the
// guest stays (pve-ha-manager src/PVE/HA/Manager.pm queue_resource_motion).
func TestHAManagerDropsMigrationBlockedByNegativeAffinity(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101")).wantOK(t)
	haSettle(t, e, "vm:100", "started", "started", 3)
	haSettle(t, e, "ct:101", "started", "started", 3)
	e.call(t, http.MethodPost, "/cluster/ha/resources/ct:101/relocate", form("node", "pve2")).wantOK(t)
	haSettle(t, e, "ct:101", "started", "started", 4)
	if g := haGuest(t, e.sim, 101); g.Node != "pve2" {
		t.Fatalf("container on %s, want pve2", g.Node)
	}
	e.call(t, http.MethodPost, "/cluster/ha/rules", form("rule", "apart", "type", "resource-affinity",
		"resources", "vm:100,ct:101", "affinity", "negative")).wantOK(t)
	a := e.call(t, http.MethodPost, "/cluster/ha/resources/vm:100/migrate", form("node", "pve2"))
	a.wantOK(t)
	var answer map[string]any
	a.decode(t, &answer)
	if blocking, _ := answer["blocking-resources"].([]any); len(blocking) != 1 {
		t.Fatalf("migrate answer %v, want ct:101 blocking", answer)
	}
	for range 4 {
		e.sim.HAStep()
	}
	if s := haService(t, e, "vm:100"); s["crm_state"] != "started" || s["node"] != "pve1" {
		t.Fatalf("the blocked migration was carried out: %v", s)
	}
	if g := haGuest(t, e.sim, 100); g.Node != "pve1" {
		t.Fatalf("VM on %s, want pve1", g.Node)
	}
}
