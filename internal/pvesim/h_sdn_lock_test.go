package pvesim

import (
	"net/http"
	"regexp"
	"testing"
	"time"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func sdnTakeLock(t *testing.T, e *env, kv ...string) string {
	t.Helper()
	a := e.call(t, http.MethodPost, "/cluster/sdn/lock", form(kv...))
	a.wantOK(t)
	var token string
	a.decode(t, &token)
	if !uuidV7.MatchString(token) {
		t.Fatalf("lock token %q is no version 7 UUID", token)
	}
	return token
}

// pve-network src/PVE/Network/SDN.pm lock_sdn_config and
// src/PVE/API2/Network/SDN.pm lock, release_lock, reload: with the lock
// held every write needs its token; the lock refuses pending changes
// unless allow-pending; apply releases it only with release-lock=1.
func TestSDNLockToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	token := sdnTakeLock(t, e)
	if e.sim.SDNLockToken() != token {
		t.Fatalf("SDNLockToken = %q, want %q", e.sim.SDNLockToken(), token)
	}
	zone := form("type", "simple", "zone", "lab")
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/zones", zone), "create sdn zone object failed: invalid lock token provided!")
	zone.Set("lock-token", "wrong")
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/zones", zone), "create sdn zone object failed: invalid lock token provided!")
	zone.Set("lock-token", token)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", zone).wantOK(t)
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/lock", form("allow-pending", "1")),
		"could not acquire lock for SDN config: invalid lock token provided!")
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn", nil), "could not commit SDN config: invalid lock token provided!")
	wantSDNError(t, e.call(t, http.MethodDelete, "/cluster/sdn/lock", form("lock-token", "wrong")), "could not release lock: invalid lock token provided!")

	// release-lock is read as given: without it the lock stays.
	if st := sdnApply(t, e, "lock-token", token); st != "OK" {
		t.Fatalf("apply = %s", st)
	}
	if e.sim.SDNLockToken() != token {
		t.Fatal("apply without release-lock released the lock")
	}
	sdnApply(t, e, "lock-token", token, "release-lock", "1")
	if e.sim.SDNLockToken() != "" {
		t.Fatal("apply with release-lock=1 kept the lock")
	}

	// Without a lock any token passes.
	e.call(t, http.MethodPut, "/cluster/sdn/zones/lab", form("mtu", "1400", "lock-token", token)).wantOK(t)
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/lock", nil), "could not acquire lock for SDN config: configuration has pending changes")
	second := sdnTakeLock(t, e, "allow-pending", "1")
	if second == token {
		t.Fatal("the same token twice")
	}
	e.call(t, http.MethodDelete, "/cluster/sdn/lock", form("lock-token", second)).wantOK(t)
	if e.sim.SDNLockToken() != "" {
		t.Fatal("release kept the lock")
	}
	// Releasing a lock nobody holds succeeds; force ignores the token.
	e.call(t, http.MethodDelete, "/cluster/sdn/lock", form("lock-token", second)).wantOK(t)
	foreign, err := e.sim.TakeSDNLock()
	if err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodDelete, "/cluster/sdn/lock", form("force", "1")).wantOK(t)
	if e.sim.SDNLockToken() != "" || foreign == "" {
		t.Fatal("force kept the lock")
	}
}

// pve-network src/PVE/API2/Network/SDN.pm rollback: the files return to
// the running config; with the token and release-lock=1 the lock goes.
func TestSDNRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "keep")).wantOK(t)
	sdnApply(t, e)
	token := sdnTakeLock(t, e)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "drop", "lock-token", token)).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/sdn/zones/keep", form("lock-token", token)).wantOK(t)
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/rollback", nil), "could not rollback SDN configuration: invalid lock token provided!")
	e.call(t, http.MethodPost, "/cluster/sdn/rollback", form("lock-token", token, "release-lock", "1")).wantOK(t)
	l := sdnList(t, e, "/cluster/sdn/zones", "pending", "1")
	if len(l) != 1 || l[0]["zone"] != "keep" || l[0]["state"] != nil {
		t.Fatalf("zones after rollback = %v", l)
	}
	if e.sim.SDNLockToken() != "" {
		t.Fatal("rollback kept the lock")
	}
}

// PVE 8.4 (pve-network 0.11.2): no lock or rollback endpoints, no
// lock-token parameter (API schema); apply works without them.
func TestSDNPVE84HasNoLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	a := e.call(t, http.MethodPost, "/cluster/sdn/lock", nil)
	if a.status != http.StatusNotImplemented {
		t.Fatalf("lock on 8.4 = %d %s", a.status, a.message)
	}
	a = e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab", "lock-token", "x"))
	if a.status != http.StatusBadRequest || a.errors["lock-token"] == "" {
		t.Fatalf("lock-token on 8.4 = %d %v", a.status, a.errors)
	}
	if _, err := e.sim.TakeSDNLock(); err == nil {
		t.Fatal("TakeSDNLock on 8.4 succeeded")
	}
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab")).wantOK(t)
	if st := sdnApply(t, e); st != "OK" {
		t.Fatalf("apply on 8.4 = %s", st)
	}
	if got := sdnList(t, e, "/cluster/sdn"); len(got) != 5 {
		t.Fatalf("8.4 index = %v, want no fabrics", got)
	}
}

// A failing apply worker (FailNextSDNApply) fails the task after PVE has
// compiled the running config and released the lock (pve-network
// src/PVE/API2/Network/SDN.pm reload commits before it forks); the nodes
// keep their old configuration, so their status stays pending.
func TestSDNApplyTaskFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	token := sdnTakeLock(t, e)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab", "lock-token", token)).wantOK(t)
	if err := e.sim.FailNextSDNApply(""); err != nil {
		t.Fatal(err)
	}
	if st := sdnApply(t, e, "lock-token", token, "release-lock", "1"); st != SDNNoQuorum {
		t.Fatalf("failed apply = %q", st)
	}
	if e.sim.SDNLockToken() != "" || e.sim.SDNRunningVersion() != 1 {
		t.Fatalf("after the failed apply: lock %q, version %d", e.sim.SDNLockToken(), e.sim.SDNRunningVersion())
	}
	z := sdnList(t, e, "/nodes/pve1/sdn/zones")
	if len(z) != 1 || z[0]["status"] != "pending" {
		t.Fatalf("node zones after the failed apply = %v", z)
	}
	if st := sdnApply(t, e); st != "OK" {
		t.Fatalf("next apply = %q", st)
	}
	if z := sdnList(t, e, "/nodes/pve1/sdn/zones"); z[0]["status"] != "available" {
		t.Fatalf("node zones after the apply = %v", z)
	}
}

// pve-network src/PVE/Network/SDN/Zones.pm status: a node's zones and
// vnets are pending until the apply's worker has reloaded it, then
// available; a zone limited to other nodes is not listed.
func TestSDNNodeStatus(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now, TaskDuration: 2 * time.Second})
	if z := sdnList(t, e, "/nodes/pve1/sdn/zones"); len(z) != 0 {
		t.Fatalf("zones before any apply = %v", z)
	}
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "only2", "nodes", "pve2")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "lab")).wantOK(t)
	a := e.call(t, http.MethodPut, "/cluster/sdn", nil)
	a.wantOK(t)
	c := sdnList(t, e, "/nodes/pve1/sdn/zones/lab/content")
	want := "local sdn network configuration is not yet generated, please reload"
	if len(c) != 1 || c[0]["vnet"] != "web" || c[0]["status"] != "pending" || c[0]["statusmsg"] != want {
		t.Fatalf("content while reloading = %v", c)
	}
	clock.Advance(3 * time.Second)
	c = sdnList(t, e, "/nodes/pve1/sdn/zones/lab/content")
	if len(c) != 1 || c[0]["status"] != "available" || c[0]["statusmsg"] != nil {
		t.Fatalf("content after the reload = %v", c)
	}
	z := sdnList(t, e, "/nodes/pve1/sdn/zones")
	if len(z) != 1 || z[0]["zone"] != "lab" {
		t.Fatalf("pve1 zones = %v", z)
	}
	if z := sdnList(t, e, "/nodes/pve2/sdn/zones"); len(z) != 2 {
		t.Fatalf("pve2 zones = %v", z)
	}
	if d := sdnList(t, e, "/nodes/pve1/sdn/vnets/web"); len(d) != 1 || d[0]["subdir"] != "mac-vrf" {
		t.Fatalf("vnet index = %v", d)
	}
}

// Permissions: pve-network src/PVE/API2/Network/SDN.pm (SDN.Allocate on
// /sdn), Zones.pm (index filtered by SDN.Audit or SDN.Allocate on the
// zone, create needs SDN.Allocate on /sdn/zones).
func TestSDNPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab")).wantOK(t)
	e.sim.SetPrivileges(testTokenUser, "SDN.Audit")
	if l := sdnList(t, e, "/cluster/sdn/zones"); len(l) != 1 {
		t.Fatalf("auditor's zones = %v", l)
	}
	for _, c := range []struct{ method, path, what string }{
		{http.MethodPost, "/cluster/sdn/zones", "/sdn/zones, SDN.Allocate"},
		{http.MethodPut, "/cluster/sdn", "/sdn, SDN.Allocate"},
		{http.MethodPost, "/cluster/sdn/lock", "/sdn, SDN.Allocate"},
		{http.MethodGet, "/cluster/sdn/zones/lab", "/sdn/zones/lab, SDN.Allocate"},
	} {
		f := form("type", "simple", "zone", "lab2")
		if c.method != http.MethodPost {
			f = nil
		}
		a := e.call(t, c.method, c.path, f)
		if a.status != http.StatusForbidden || a.message != "Permission check failed ("+c.what+")\n" {
			t.Fatalf("%s %s: %d %q", c.method, c.path, a.status, a.message)
		}
	}
	e.sim.SetPrivileges(testTokenUser)
	if l := sdnList(t, e, "/cluster/sdn/zones"); len(l) != 0 {
		t.Fatalf("zones without privileges = %v", l)
	}
}

// The domain lock's timeout text, as a fault a test injects.
func TestSDNDomainLockTimeoutFault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	msg := SDNDomainLockTimeout("could not acquire lock for SDN config")
	if err := e.sim.InjectFault(Fault{Method: http.MethodPost, Path: "/cluster/sdn/lock", Action: FaultRespond, Message: msg, Count: 1}); err != nil {
		t.Fatal(err)
	}
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/lock", nil), msg)
	token := sdnTakeLock(t, e)
	e.sim.ReleaseSDNLock()
	if e.sim.SDNLockToken() != "" || token == "" {
		t.Fatal("ReleaseSDNLock kept the lock")
	}
}
