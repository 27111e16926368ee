package pveapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// vmidPVE serves /cluster/resources with the guests in listed and answers
// /cluster/nextid like PVE: without vmid it proposes next; with vmid it
// refuses the ids in listed and lateGuests (guests made after the listing,
// W13) with 400 "VM N already exists".
func vmidPVE(t *testing.T, listed, lateGuests []int, next string) *fakePVE {
	t.Helper()
	taken := map[int]bool{}
	for _, id := range append(append([]int(nil), listed...), lateGuests...) {
		taken[id] = true
	}
	f := newFakePVE(t)
	f.handle("GET /cluster/resources", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("type") != "vm" {
			writeParamError(w, map[string]string{"type": "want vm"})
			return
		}
		entries := []map[string]any{{"id": "storage/pve1/local", "type": "storage", "storage": "local", "node": "pve1"}}
		for _, id := range listed {
			entries = append(entries, map[string]any{"id": fmt.Sprintf("qemu/%d", id), "type": "qemu", "vmid": id, "node": "pve1"})
		}
		writeData(w, entries)
	})
	f.handle("GET /cluster/nextid", func(w http.ResponseWriter, r *http.Request) {
		raw := r.URL.Query().Get("vmid")
		if raw == "" {
			writeData(w, next)
			return
		}
		id, _ := strconv.Atoi(raw)
		if taken[id] {
			writeParamError(w, map[string]string{"vmid": fmt.Sprintf("VM %d already exists", id)})
			return
		}
		writeData(w, id)
	})
	return f
}

// W13: one client allocating for many parallel creates never hands out an
// id twice, skips listed guests and guests made after the listing, and
// fills the range from the bottom.
func TestAllocateVMIDParallelDistinct(t *testing.T) {
	t.Parallel()
	f := vmidPVE(t, []int{1000, 1002}, []int{1001}, "100")
	c := f.client()
	const workers = 50
	ids := make([]int, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = c.AllocateVMID(context.Background(), 1000, 1100, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
	}
	sort.Ints(ids)
	for i, id := range ids {
		if want := 1003 + i; id != want {
			t.Fatalf("ids = %v; want 1003..1052, each once", ids)
		}
	}
	if n := f.count("GET /cluster/resources"); n != workers {
		t.Errorf("listed guests %d times for %d allocations; want once each", n, workers)
	}
}

func TestAllocateVMIDReleaseAndExclude(t *testing.T) {
	t.Parallel()
	f := vmidPVE(t, []int{200}, nil, "100")
	c := f.client()
	ctx := context.Background()

	first, err := c.AllocateVMID(ctx, 200, 210, nil)
	if err != nil || first != 201 {
		t.Fatalf("first = %d, %v; want 201", first, err)
	}
	second, err := c.AllocateVMID(ctx, 200, 210, func(id int) bool { return id == 202 })
	if err != nil || second != 203 {
		t.Fatalf("second = %d, %v; want 203 (201 handed out, 202 excluded)", second, err)
	}
	// A create that failed before anything was made gives its id back.
	c.ReleaseVMID(first)
	again, err := c.AllocateVMID(ctx, 200, 210, nil)
	if err != nil || again != 201 {
		t.Errorf("after release = %d, %v; want 201 again", again, err)
	}
	// Another client does not share the reservations: PVE is the arbiter.
	other, err := f.client().AllocateVMID(ctx, 200, 210, nil)
	if err != nil || other != 201 {
		t.Errorf("other client = %d, %v; want 201", other, err)
	}
}

// W13: an id that became taken after the listing is refused by the nextid
// check and skipped, not handed out.
func TestAllocateVMIDSkipsIDTakenAfterListing(t *testing.T) {
	t.Parallel()
	f := vmidPVE(t, nil, []int{300, 301}, "100")
	c := f.client()
	id, err := c.AllocateVMID(context.Background(), 300, 310, nil)
	if err != nil || id != 302 {
		t.Fatalf("AllocateVMID = %d, %v; want 302", id, err)
	}
	if n := f.count("GET /cluster/nextid"); n != 3 {
		t.Errorf("nextid checks = %d, want 3 (300, 301 refused, 302 confirmed)", n)
	}
	// The refused ids are not left reserved: they belong to someone else,
	// and the next call checks them again.
	if c.vmids.isReserved(300) || c.vmids.isReserved(301) || !c.vmids.isReserved(302) {
		t.Error("reservations wrong after refused checks")
	}
}

func TestAllocateVMIDRangeExhausted(t *testing.T) {
	t.Parallel()
	f := vmidPVE(t, []int{400, 402}, []int{401}, "100")
	c := f.client()
	_, err := c.AllocateVMID(context.Background(), 400, 402, nil)
	var exhausted *VMIDRangeExhaustedError
	if !errors.As(err, &exhausted) || exhausted.Low != 400 || exhausted.High != 402 {
		t.Fatalf("err = %v; want range exhausted for 400-402", err)
	}
	if !strings.Contains(err.Error(), "400-402") {
		t.Errorf("error %q does not name the range", err)
	}
	// Handed-out ids count as used too.
	g := vmidPVE(t, nil, nil, "100")
	c = g.client()
	for _, want := range []int{500, 501} {
		if id, err := c.AllocateVMID(context.Background(), 500, 501, nil); err != nil || id != want {
			t.Fatalf("AllocateVMID = %d, %v; want %d", id, err, want)
		}
	}
	if _, err := c.AllocateVMID(context.Background(), 500, 501, nil); !errors.As(err, &exhausted) {
		t.Errorf("third allocation in a two-id range: %v; want range exhausted", err)
	}
}

func TestAllocateVMIDInvalidRange(t *testing.T) {
	t.Parallel()
	f := vmidPVE(t, nil, nil, "100")
	c := f.client()
	for _, r := range [][2]int{{99, 200}, {300, 200}, {0, 200}, {100, MaxVMID + 1}} {
		if _, err := c.AllocateVMID(context.Background(), r[0], r[1], nil); err == nil {
			t.Errorf("range %d-%d accepted", r[0], r[1])
		}
	}
	if n := f.count("GET /cluster/resources") + f.count("GET /cluster/nextid"); n != 0 {
		t.Errorf("%d requests for invalid ranges; want none", n)
	}
}

// Without a range PVE proposes the id; parallel creates by one client
// probe past the ids it has handed out instead of all taking PVE's
// proposal (W13).
func TestAllocateVMIDWithoutRangeUsesNextID(t *testing.T) {
	t.Parallel()
	f := vmidPVE(t, []int{100, 101}, []int{106}, "105")
	c := f.client()
	ctx := context.Background()
	id, err := c.AllocateVMID(ctx, 0, 0, nil)
	if err != nil || id != 105 {
		t.Fatalf("first = %d, %v; want PVE's 105", id, err)
	}
	if f.count("GET /cluster/resources") != 0 {
		t.Error("no-range allocation listed guests; it must ask nextid")
	}
	id, err = c.AllocateVMID(ctx, 0, 0, nil)
	if err != nil || id != 107 {
		t.Fatalf("second = %d, %v; want 107 (105 handed out, 106 taken)", id, err)
	}
	id, err = c.AllocateVMID(ctx, 0, 0, func(id int) bool { return id == 108 })
	if err != nil || id != 109 {
		t.Fatalf("third = %d, %v; want 109 (108 excluded)", id, err)
	}
}

func TestAllocateVMIDPassesErrorsOn(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /cluster/resources", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{})
	})
	f.handle("GET /cluster/nextid", func(w http.ResponseWriter, _ *http.Request) {
		writePVEOldError(w, 403, "Permission check failed")
	})
	c := f.client()
	_, err := c.AllocateVMID(context.Background(), 600, 610, nil)
	if _, _, ok := IsPermission(err); !ok {
		t.Fatalf("err = %v; want the 403 from the nextid check", err)
	}
	// A failed check leaves nothing reserved.
	if c.vmids.isReserved(600) {
		t.Error("600 stayed reserved after a failed check")
	}
	if _, err := c.AllocateVMID(context.Background(), 0, 0, nil); err == nil {
		t.Error("no-range allocation ignored a nextid error")
	}
}
