package pveapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const sdnTestUPID = "UPID:pve1:000A1B2C:0123ABCD:6790ABCD:reloadnetworkall::terraform@pve!provider:"

// fakeSDN answers the SDN calls of a session like PVE 9 (or 8.4 without
// lock): one lock file, a list of pending zones, writes that check the
// token (pve-network src/PVE/Network/SDN.pm lock_sdn_config), and a
// PUT /cluster/sdn that commits and drops the lock when asked
// (src/PVE/API2/Network/SDN.pm reload).
type fakeSDN struct {
	*fakePVE
	noLock bool

	mu      sync.Mutex
	lock    string
	serial  int
	pending map[string]string // zone -> state
	log     []string
	// lockedWrites counts writes that found the lock held with their token.
	lockedWrites int
	failWrite    string
}

func newFakeSDN(t *testing.T, noLock bool) *fakeSDN {
	f := &fakeSDN{fakePVE: newFakePVE(t), noLock: noLock, pending: map[string]string{}}
	f.handle("POST /cluster/sdn/lock", func(w http.ResponseWriter, r *http.Request) {
		if f.noLock {
			writePVEError(w, http.StatusNotImplemented, "Method 'POST /cluster/sdn/lock' not implemented")
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		_ = r.ParseForm()
		if f.lock != "" {
			writePVEError(w, 500, "could not acquire lock for SDN config: invalid lock token provided!")
			return
		}
		if r.PostForm.Get("allow-pending") != "1" && len(f.pending) > 0 {
			writePVEError(w, 500, "could not acquire lock for SDN config: configuration has pending changes")
			return
		}
		f.serial++
		f.lock = "tok" + string(rune('0'+f.serial))
		f.log = append(f.log, "lock")
		writeData(w, f.lock)
	})
	f.handle("DELETE /cluster/sdn/lock", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.lock != "" && r.URL.Query().Get("lock-token") != f.lock {
			writePVEError(w, 500, "could not release lock: invalid lock token provided!")
			return
		}
		f.lock = ""
		f.log = append(f.log, "unlock")
		writeData(w, nil)
	})
	f.handle("POST /cluster/sdn/zones", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		_ = r.ParseForm()
		if f.lock != "" && r.PostForm.Get("lock-token") != f.lock {
			writePVEError(w, 500, "create sdn zone object failed: invalid lock token provided!")
			return
		}
		if f.lock != "" {
			f.lockedWrites++
		}
		zone := r.PostForm.Get("zone")
		if zone == f.failWrite {
			writePVEError(w, 500, "create sdn zone object failed: zone ID '"+zone+"' already defined")
			return
		}
		f.pending[zone] = SDNStateNew
		f.log = append(f.log, "write "+zone)
		writeData(w, nil)
	})
	f.handle("GET /cluster/sdn/zones", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.URL.Query().Get("pending") != "1" {
			t.Errorf("zones listed without pending=1")
		}
		var out []map[string]any
		for zone, state := range f.pending {
			out = append(out, map[string]any{"zone": zone, "type": "simple", "state": state, "pending": map[string]any{}})
		}
		writeData(w, out)
	})
	// PVE 8.4 has no fabrics: its API server answers 501 for the path.
	f.handle("GET /cluster/sdn/fabrics/all", func(w http.ResponseWriter, _ *http.Request) {
		if f.noLock {
			writePVEError(w, http.StatusNotImplemented, "Method 'GET /cluster/sdn/fabrics/all' not implemented")
			return
		}
		writeData(w, map[string]any{"fabrics": []any{}, "nodes": []any{}})
	})
	for _, p := range []string{"GET /cluster/sdn/vnets", "GET /cluster/sdn/controllers"} {
		f.handle(p, func(w http.ResponseWriter, _ *http.Request) { writeData(w, []any{}) })
	}
	f.handle("PUT /cluster/sdn", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		_ = r.ParseForm()
		if f.lock != "" && r.PostForm.Get("lock-token") != f.lock {
			writePVEError(w, 500, "could not commit SDN config: invalid lock token provided!")
			return
		}
		if r.PostForm.Get("lock-token") != "" && r.PostForm.Get("release-lock") != "0" {
			f.lock = ""
		}
		f.pending = map[string]string{}
		f.log = append(f.log, "apply")
		writeData(w, sdnTestUPID)
	})
	f.handle("GET /nodes/{node}/tasks/{upid}/status", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"status": "stopped", "exitstatus": "OK"})
	})
	return f
}

func (f *fakeSDN) events() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.log, ",")
}

func (f *fakeSDN) locked() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lock != ""
}

func createZone(c *Client, zone string) func(context.Context, string) error {
	return func(ctx context.Context, token string) error {
		return c.CreateSDNZone(ctx, zone, map[string][]string{"type": {"simple"}}, token)
	}
}

// One lock for all writes of a run, one apply, the lock released by the
// apply itself.
func TestSDNSessionOneLockOneApply(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, false)
	c := f.client()
	s := NewSDNSession(c)
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, z := range []string{"a1", "b2", "c3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Write(ctx, "zone/"+z, createZone(c, z)); err != nil {
				t.Errorf("write %s: %v", z, err)
			}
		}()
	}
	wg.Wait()
	if !f.locked() || f.count("POST /cluster/sdn/lock") != 1 || f.lockedWrites != 3 {
		t.Fatalf("want one lock held for all three writes, got %d lock calls, %d locked writes", f.count("POST /cluster/sdn/lock"), f.lockedWrites)
	}
	if got := strings.Join(s.Staged(), ","); got != "zone/a1,zone/b2,zone/c3" {
		t.Errorf("staged = %s", got)
	}
	if err := s.Apply(ctx, []string{"zone/a1", "zone/b2", "zone/c3"}); err != nil {
		t.Fatal(err)
	}
	if f.locked() || f.count("PUT /cluster/sdn") != 1 || f.count("DELETE /cluster/sdn/lock") != 0 {
		t.Errorf("apply must commit once and release the lock with the commit: %s", f.events())
	}
	if len(s.Staged()) != 0 {
		t.Error("staged not cleared")
	}
}

// PVE 8.4 has no lock: writes pass no token, the apply no lock-token.
func TestSDNSessionPVE84(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, true)
	c := f.client()
	s := NewSDNSession(c)
	ctx := context.Background()
	for _, z := range []string{"a1", "b2"} {
		if err := s.Write(ctx, "zone/"+z, func(ctx context.Context, token string) error {
			if token != "" {
				t.Errorf("token %q on a PVE without lock", token)
			}
			return createZone(c, z)(ctx, token)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Apply(ctx, []string{"zone/a1", "zone/b2"}); err != nil {
		t.Fatal(err)
	}
	if f.count("POST /cluster/sdn/lock") != 1 || f.count("PUT /cluster/sdn") != 1 {
		t.Errorf("want the lock probed once and one apply: %d, %d", f.count("POST /cluster/sdn/lock"), f.count("PUT /cluster/sdn"))
	}
}

// A failed write releases the lock; later writes take and release it
// around themselves; the staged ones stay pending.
func TestSDNSessionFailedWriteReleases(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, false)
	c := f.client()
	s := NewSDNSession(c)
	ctx := context.Background()
	f.failWrite = "bad"
	if err := s.Write(ctx, "zone/ok1", createZone(c, "ok1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, "zone/bad", createZone(c, "bad")); err == nil {
		t.Fatal("want the write error")
	}
	if f.locked() {
		t.Fatal("lock still held after a failed write")
	}
	if err := s.Write(ctx, "zone/ok2", createZone(c, "ok2")); err != nil {
		t.Fatal(err)
	}
	if f.locked() {
		t.Fatal("a write after a failure must release the lock it took")
	}
	if got := f.events(); got != "lock,write ok1,unlock,lock,write ok2,unlock" {
		t.Errorf("events = %s", got)
	}
	if f.count("PUT /cluster/sdn") != 0 {
		t.Error("nothing may be applied")
	}
}

// A pending change of someone else is refused at apply, naming it, and the
// lock is released.
func TestSDNSessionForeignPending(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, false)
	c := f.client()
	s := NewSDNSession(c)
	ctx := context.Background()
	f.pending["other"] = SDNStateChanged
	if err := s.Write(ctx, "zone/mine", createZone(c, "mine")); err != nil {
		t.Fatal(err)
	}
	err := s.Apply(ctx, []string{"zone/mine"})
	fe, ok := IsSDNForeignPending(err)
	if !ok || strings.Join(fe.SDNIDs, ",") != "zone/other" {
		t.Fatalf("want a foreign pending refusal naming zone/other, got %v", err)
	}
	if f.locked() || f.count("PUT /cluster/sdn") != 0 {
		t.Errorf("refusal must release the lock and apply nothing: %s", f.events())
	}
}

// Someone else's lock: the write waits for it, up to its deadline.
func TestSDNSessionWaitsForLock(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, false)
	c := f.client()
	f.lock = "theirs"
	s := NewSDNSession(c)
	s.LockPoll = 5 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := s.Write(ctx, "zone/a1", createZone(c, "a1"))
	var le *SDNLockedError
	if !errors.As(err, &le) {
		t.Fatalf("want SDNLockedError, got %v", err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		f.mu.Lock()
		f.lock = ""
		f.mu.Unlock()
	}()
	if err := s.Write(context.Background(), "zone/a1", createZone(c, "a1")); err != nil {
		t.Fatal(err)
	}
	if err := ReleaseSDNLocks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.locked() {
		t.Error("ReleaseSDNLocks left the lock")
	}
}

// The destroy of everything: the write staging the last expected deletion
// applies.
func TestSDNSessionExpectDeletions(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, false)
	c := f.client()
	s := NewSDNSession(c)
	ctx := context.Background()
	s.ExpectDeletions([]string{"zone/a1", "zone/b2"})
	if err := s.Write(ctx, "zone/a1", createZone(c, "a1")); err != nil {
		t.Fatal(err)
	}
	if f.count("PUT /cluster/sdn") != 0 {
		t.Fatal("applied before the last expected write")
	}
	if err := s.Write(ctx, "zone/b2", createZone(c, "b2")); err != nil {
		t.Fatal(err)
	}
	if f.count("PUT /cluster/sdn") != 1 || f.locked() {
		t.Errorf("want one apply releasing the lock: %s", f.events())
	}
}

// PVE's pending view (SDN.pm pending_config): running values at top level,
// staged ones under pending, "deleted" for a removed key.
func TestSDNEntryEffective(t *testing.T) {
	t.Parallel()
	changed := sdnEntry(SDNKindZone, "zone", map[string]any{
		"zone": "lab", "type": "vlan", "bridge": "vmbr0", "mtu": 1500, "digest": "x", "state": "changed",
		"pending": map[string]any{"mtu": "deleted", "bridge": "vmbr1", "nodes": "pve1"},
	})
	got, ok := changed.Effective()
	if !ok || got["bridge"] != "vmbr1" || got["nodes"] != "pve1" || got["type"] != "vlan" || got["zone"] != "lab" {
		t.Errorf("effective = %v", got)
	}
	if _, has := got["mtu"]; has {
		t.Error("a key pending as deleted must be gone")
	}
	if _, has := got["digest"]; has {
		t.Error("digest is not an option")
	}
	if _, ok := sdnEntry(SDNKindZone, "zone", map[string]any{"zone": "x", "state": "deleted"}).Effective(); ok {
		t.Error("a deleted entry has no effective values")
	}
	sub := sdnEntry(SDNKindSubnet, "subnet", map[string]any{"subnet": "lab-10.0.0.0-24", "vnet": "web", "type": "subnet", "state": "new", "pending": map[string]any{"gateway": "10.0.0.1"}})
	if sub.SDNID() != "subnet/web/10.0.0.0/24" {
		t.Errorf("sdn_id = %s", sub.SDNID())
	}
	if SubnetID("lab", "fd00::/64") != "lab-fd00::-64" || SubnetCIDR("lab-fd00::-64") != "fd00::/64" {
		t.Error("subnet ids")
	}
	if eff, _ := sub.Effective(); eff["gateway"] != "10.0.0.1" || eff["vnet"] != "web" {
		t.Errorf("new subnet effective = %v", eff)
	}
}

// Without a deadline in the context, the wait for someone else's lock ends
// after LockWait.
func TestSDNSessionLockWaitBound(t *testing.T) {
	t.Parallel()
	f := newFakeSDN(t, false)
	c := f.client()
	f.lock = "theirs"
	s := NewSDNSession(c)
	s.LockPoll, s.LockWait = 5*time.Millisecond, 30*time.Millisecond
	err := s.Write(context.Background(), "zone/a1", createZone(c, "a1"))
	var le *SDNLockedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "force=1") {
		t.Fatalf("want SDNLockedError, got %v", err)
	}
}
