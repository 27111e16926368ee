package pveapi

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// poolFake answers GET /pools?poolid=X for pools a (VM 100, CT 101 and a
// storage) and b (VM 200), "pool does not exist" for any other, and
// counts the reads per pool. Writes to /pools and one task succeed.
type poolFake struct {
	*fakePVE
	mu    sync.Mutex
	reads map[string]int
	// gate, when set, holds every pool read until it is closed.
	gate    chan struct{}
	entered chan string
}

func newPoolFake(t *testing.T) *poolFake {
	f := &poolFake{fakePVE: newFakePVE(t), reads: map[string]int{}}
	f.handle("GET /pools", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("poolid")
		f.mu.Lock()
		f.reads[id]++
		gate, entered := f.gate, f.entered
		f.mu.Unlock()
		if entered != nil {
			entered <- id
		}
		if gate != nil {
			<-gate
		}
		// Slow enough for concurrent callers to meet while one asks.
		time.Sleep(20 * time.Millisecond)
		switch id {
		case "a":
			writeData(w, []map[string]any{{"poolid": "a", "members": []map[string]any{
				{"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100},
				{"id": "lxc/101", "type": "lxc", "node": "pve1", "vmid": 101},
				{"id": "storage/pve1/local", "type": "storage", "node": "pve1", "storage": "local"},
			}}})
		case "b":
			writeData(w, []map[string]any{{"poolid": "b", "members": []map[string]any{
				{"id": "qemu/200", "type": "qemu", "node": "pve2", "vmid": 200},
			}}})
		default:
			writePVEError(w, 500, "pool '"+id+"' does not exist")
		}
	})
	f.handle("PUT /pools", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	f.handle("POST /pools", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	f.handle("POST /nodes/pve1/qemu", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, "UPID:pve1:00001234:00005678:65A0B1C2:qmcreate:300:root@pam:")
	})
	f.handle("GET /nodes/pve1/tasks/{upid}/status", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"status": "stopped", "exitstatus": "OK"})
	})
	return f
}

func (f *poolFake) readsOf(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[id]
}

func mustPoolGuests(t *testing.T, c *Client, id string) PoolGuests {
	t.Helper()
	p, err := c.PoolGuests(context.Background(), id)
	if err != nil {
		t.Fatalf("PoolGuests(%s): %v", id, err)
	}
	return p
}

// Ten callers at once per pool, as Terraform refreshes ten guests at once:
// one read per pool, and every caller gets the membership.
func TestPoolGuestsReadsEachPoolOnceForConcurrentCallers(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	c := f.client()
	var wg sync.WaitGroup
	var wrong atomic.Int32
	for i := range 20 {
		id, vmid := "a", 101
		if i%2 == 1 {
			id, vmid = "b", 200
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.PoolGuests(context.Background(), id)
			if err != nil || !p.Exists || !p.Has(vmid) || p.Has(999) {
				wrong.Add(1)
			}
		}()
	}
	wg.Wait()
	if wrong.Load() != 0 {
		t.Errorf("%d callers got a wrong membership", wrong.Load())
	}
	if f.readsOf("a") != 1 || f.readsOf("b") != 1 {
		t.Errorf("reads: a %d, b %d; want 1 each", f.readsOf("a"), f.readsOf("b"))
	}
	if p := mustPoolGuests(t, c, "a"); p.Has(0) || !p.Has(100) {
		t.Errorf("a storage member counts as a guest, or a guest is missing: %+v", p)
	}
}

// A missing pool is an answer too, kept like any other.
func TestPoolGuestsKeepsAMissingPool(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	c := f.client()
	for range 3 {
		if p := mustPoolGuests(t, c, "nope"); p.Exists || p.Has(100) {
			t.Fatalf("missing pool = %+v", p)
		}
	}
	if n := f.readsOf("nope"); n != 1 {
		t.Errorf("reads of a missing pool: %d, want 1", n)
	}
}

// Every write and every task end forgets the memberships: pool updates
// and guest create, restore, clone and destroy tasks change them.
func TestPoolGuestsAskAgainAfterAWriteOrATask(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	c := f.client()
	ctx := context.Background()
	mustPoolGuests(t, c, "a")
	mustPoolGuests(t, c, "b")
	if err := c.UpdatePool(ctx, PoolUpdate{PoolID: "b", VMs: []int{100}, AllowMove: true}); err != nil {
		t.Fatal(err)
	}
	mustPoolGuests(t, c, "a")
	mustPoolGuests(t, c, "b")
	if f.readsOf("a") != 2 || f.readsOf("b") != 2 {
		t.Errorf("after a write: reads a %d, b %d; want 2 each", f.readsOf("a"), f.readsOf("b"))
	}
	if _, err := c.WaitTask(ctx, "UPID:pve1:00001234:00005678:65A0B1C2:qmcreate:300:root@pam:"); err != nil {
		t.Fatal(err)
	}
	mustPoolGuests(t, c, "a")
	if n := f.readsOf("a"); n != 3 {
		t.Errorf("after a task: reads of a %d, want 3", n)
	}
}

// GetPool always asks, and what it hears serves PoolGuests.
func TestGetPoolAlwaysAsksAndServesPoolGuests(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	c := f.client()
	for range 2 {
		if _, found, err := c.GetPool(context.Background(), "a"); err != nil || !found {
			t.Fatalf("GetPool: %t %v", found, err)
		}
	}
	if p := mustPoolGuests(t, c, "a"); !p.Has(100) {
		t.Errorf("membership = %+v", p)
	}
	if n := f.readsOf("a"); n != 2 {
		t.Errorf("reads: %d, want 2 (GetPool twice, PoolGuests from its answer)", n)
	}
}

// An answer asked for before a write ends reaches only the callers that
// waited for it; the next caller asks again.
func TestPoolGuestsAnswerFromBeforeAWriteIsNotKept(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	gate, entered := make(chan struct{}), make(chan string, 1)
	f.mu.Lock()
	f.gate, f.entered = gate, entered
	f.mu.Unlock()
	c := f.client()
	done := make(chan error, 1)
	go func() { _, err := c.PoolGuests(context.Background(), "a"); done <- err }()
	<-entered
	f.mu.Lock()
	f.gate, f.entered = nil, nil
	f.mu.Unlock()
	if err := c.UpdatePool(context.Background(), PoolUpdate{PoolID: "a", VMs: []int{102}}); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustPoolGuests(t, c, "a")
	if n := f.readsOf("a"); n != 2 {
		t.Errorf("reads: %d, want 2", n)
	}
}

// Whether a pool exists is kept across guest writes and tasks, which
// change what a pool lists but never create or delete one; a write to
// /pools forgets it. Membership reads answer it too.
func TestPoolExistsKeptUntilAWriteToPools(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	c := f.client()
	ctx := context.Background()
	exists := func(id string) bool {
		t.Helper()
		ok, err := c.PoolExists(ctx, id)
		if err != nil {
			t.Fatalf("PoolExists(%s): %v", id, err)
		}
		return ok
	}
	if !exists("a") || exists("nope") {
		t.Fatal("a exists and nope does not")
	}
	upid, err := c.CreateGuest(ctx, "pve1", GuestTypeQemu, 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	if !exists("a") || exists("nope") || f.readsOf("a") != 1 || f.readsOf("nope") != 1 {
		t.Errorf("after a guest create: reads a %d, nope %d; want 1 each", f.readsOf("a"), f.readsOf("nope"))
	}
	if err := c.CreatePool(ctx, "nope", ""); err != nil {
		t.Fatal(err)
	}
	exists("nope")
	if n := f.readsOf("nope"); n != 2 {
		t.Errorf("after a pool create: reads of nope %d, want 2", n)
	}
	mustPoolGuests(t, c, "b")
	if !exists("b") || f.readsOf("b") != 1 {
		t.Errorf("a membership read answers existence too: reads of b %d", f.readsOf("b"))
	}
	exists("a")
	if p := mustPoolGuests(t, c, "a"); !p.Has(100) || f.readsOf("a") != 2 {
		t.Errorf("an existence read answers membership too: reads of a %d", f.readsOf("a"))
	}
}

// A failed read is not kept.
func TestPoolGuestsDoNotKeepAFailure(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var calls atomic.Int32
	f.handle("GET /pools", func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			writePVEError(w, 500, "ipcc_send_rec[1] failed: Connection refused")
			return
		}
		writeData(w, []map[string]any{{"poolid": "a"}})
	})
	c := f.client()
	if _, err := c.PoolGuests(context.Background(), "a"); err == nil {
		t.Fatal("first read: want the error")
	}
	if p := mustPoolGuests(t, c, "a"); !p.Exists {
		t.Errorf("second read = %+v", p)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("reads: %d, want 2", n)
	}
}

// The node list is read once per Client, writes or not; callers get
// their own copy.
func TestNodeNamesAskOnce(t *testing.T) {
	t.Parallel()
	f := newPoolFake(t)
	f.handle("GET /nodes", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{{"node": "pve1", "status": "online"}, {"node": "pve2", "status": "offline"}})
	})
	c := f.client()
	ctx := context.Background()
	first, err := c.NodeNames(ctx)
	if err != nil || len(first) != 2 || first[0] != "pve1" || first[1] != "pve2" {
		t.Fatalf("NodeNames = %v, %v", first, err)
	}
	first[0] = "changed"
	if err := c.UpdatePool(ctx, PoolUpdate{PoolID: "a", VMs: []int{102}}); err != nil {
		t.Fatal(err)
	}
	again, err := c.NodeNames(ctx)
	if err != nil || again[0] != "pve1" {
		t.Errorf("NodeNames again = %v, %v", again, err)
	}
	if n := f.count("GET /nodes"); n != 1 {
		t.Errorf("GET /nodes sent %d times, want 1", n)
	}
}

// Guests are located from one cluster listing until the next write; a
// VMID the listing lacks is asked for again.
func TestLocateGuestSharesOneListingUntilAWrite(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var listings atomic.Int32
	f.handle("GET /cluster/resources", func(w http.ResponseWriter, _ *http.Request) {
		n := listings.Add(1)
		guests := []map[string]any{
			{"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "name": "web"},
			{"id": "lxc/200", "type": "lxc", "node": "pve2", "vmid": 200, "name": "db"},
		}
		if n > 1 {
			guests = append(guests, map[string]any{"id": "qemu/101", "type": "qemu", "node": "pve1", "vmid": 101, "name": "new"})
		}
		writeData(w, guests)
	})
	f.handle("PUT /cluster/firewall/options", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	c := f.client()
	ctx := context.Background()
	for _, vmid := range []int{100, 200, 100, 200} {
		if g, found, err := c.LocateGuest(ctx, vmid); err != nil || !found || g.VMID.Int() != vmid {
			t.Fatalf("LocateGuest(%d) = %+v, %v, %v", vmid, g, found, err)
		}
	}
	if n := listings.Load(); n != 1 {
		t.Fatalf("%d listings for four lookups, want 1", n)
	}
	// A guest made since the listing is found by asking again, and the
	// new listing serves the next lookups.
	if g, found, err := c.LocateGuest(ctx, 101); err != nil || !found || g.Node != "pve1" {
		t.Fatalf("LocateGuest(101) = %+v, %v, %v", g, found, err)
	}
	if _, found, _ := c.LocateGuest(ctx, 200); !found || listings.Load() != 2 {
		t.Fatalf("after the refetch: found %v, %d listings, want 2", found, listings.Load())
	}
	// A write forgets the listing.
	if err := c.UpdateFirewallOptions(ctx, FirewallScope{}, map[string]string{"enable": "1"}, nil, ""); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := c.LocateGuest(ctx, 100); !found || listings.Load() != 3 {
		t.Fatalf("after a write: found %v, %d listings, want 3", found, listings.Load())
	}
	// A VMID no guest has: asked for once more, then not found.
	if _, found, err := c.LocateGuest(ctx, 999); err != nil || found || listings.Load() != 4 {
		t.Fatalf("LocateGuest(999): found %v, %v, %d listings, want 4", found, err, listings.Load())
	}
}
