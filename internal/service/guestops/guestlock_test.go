package guestops

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// W10: work on one guest is serialised: of many workers on one VMID, never
// two hold it at once.
func TestGuestLocksSerialiseOneGuestW10(t *testing.T) {
	t.Parallel()
	locks := &guestLocks{held: map[int]chan struct{}{}}
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := locks.lock(context.Background(), 100)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			for range 100 {
				// Give the others a chance to break in.
				time.Sleep(0)
			}
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d workers held guest 100 at once, want 1", most)
	}
}

// Different guests do not wait for each other: the second lock is taken
// while the first is held.
func TestGuestLocksLetOtherGuestsThroughW10(t *testing.T) {
	t.Parallel()
	locks := &guestLocks{held: map[int]chan struct{}{}}
	first, err := locks.lock(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer first()
	// The deadline only keeps a broken lock from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	second, err := locks.lock(ctx, 101)
	if err != nil {
		t.Fatalf("guest 101 waited for guest 100: %v", err)
	}
	second()
}

// A wait ends with the context; a release twice frees the lock once.
func TestGuestLocksWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	locks := &guestLocks{held: map[int]chan struct{}{}}
	unlock, err := locks.lock(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := locks.lock(ctx, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("a wait on a held guest with an ended context = %v, want context.Canceled", err)
	}
	unlock()
	unlock()
	again, err := locks.lock(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer again()
	if _, err := locks.lock(ctx, 100); err == nil {
		t.Error("a double release freed the lock twice")
	}
}

// The locks belong to one client: two provider configurations (two
// clusters) never share them.
func TestGuestLocksPerClient(t *testing.T) {
	t.Parallel()
	a, b := &pveapi.Client{}, &pveapi.Client{}
	first, again := locksFor(a), locksFor(a)
	if first != again {
		t.Error("one client got two lock tables")
	}
	if locksFor(a) == locksFor(b) {
		t.Error("two clients share a lock table")
	}
}

// W10: PVE keeps a container clone's source locked ("lock: disk") and a VM
// clone's non-template source under its exclusive flock while running;
// clones of a VM template share the flock.
func TestCloneSourceLockedWhileCloningW10(t *testing.T) {
	t.Parallel()
	template := CloneSource{VMID: 9000, Config: pveapi.GuestConfig{"template": "1"}}
	plain := CloneSource{VMID: 100, Config: pveapi.GuestConfig{}}
	for _, tc := range []struct {
		kind Kind
		src  CloneSource
		want bool
	}{
		{Container, template, true},
		{Container, plain, true},
		{VM, template, false},
		{VM, plain, true},
	} {
		if got := (API{Kind: tc.kind}).sourceLockedWhileCloning(tc.src); got != tc.want {
			t.Errorf("%s source %v: serialised %t, want %t", tc.kind.Noun, tc.src.Config, got, tc.want)
		}
	}
}

// A destroy waits for the provider's other work on the guest (W10): while
// a clone holds its source, Delete does not touch the guest, and a
// deadline that ends the wait is an error naming the guest, with no
// request sent.
func TestDeleteWaitsForTheGuestLockW10(t *testing.T) {
	t.Parallel()
	api := API{Client: &pveapi.Client{}, Kind: Container}
	unlock, err := api.LockGuest(context.Background(), 300)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var diags diag.Diagnostics
	api.Delete(ctx, "pve1", 300, false, &diags)
	if !diags.HasError() || diags[0].Summary() != "Timed Out Waiting For Container" ||
		!strings.Contains(diags[0].Detail(), "container 300") {
		t.Fatalf("Delete of a held guest = %v, want the wait to end with an error naming it", diags)
	}
}
