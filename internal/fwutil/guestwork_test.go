package fwutil

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// W10: work on one guest is serialised: of many workers on one VMID, never
// two hold it at once.
func TestGuestLocksSerialiseOneGuestW10(t *testing.T) {
	t.Parallel()
	locks := &GuestLocks{}
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := locks.Lock(context.Background(), 100)
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
	locks := &GuestLocks{}
	first, err := locks.Lock(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer first()
	// The deadline only keeps a broken lock from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	second, err := locks.Lock(ctx, 101)
	if err != nil {
		t.Fatalf("guest 101 waited for guest 100: %v", err)
	}
	second()
}

// A wait ends with the context; a release twice frees the lock once.
func TestGuestLocksWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	locks := &GuestLocks{}
	unlock, err := locks.Lock(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := locks.Lock(ctx, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("a wait on a held guest with an ended context = %v, want context.Canceled", err)
	}
	unlock()
	unlock()
	again, err := locks.Lock(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer again()
	if _, err := locks.Lock(ctx, 100); err == nil {
		t.Error("a double release freed the lock twice")
	}
}

// A guest is claimed once: the second resource that finds it is told so,
// and another guest is still free.
func TestGuestClaimsOnce(t *testing.T) {
	t.Parallel()
	var claims GuestClaims
	if !claims.Claim(100) {
		t.Fatal("the first claim of guest 100 was refused")
	}
	if claims.Claim(100) {
		t.Error("guest 100 was claimed twice")
	}
	if !claims.Claim(101) {
		t.Error("guest 101 was refused after a claim of guest 100")
	}
	if !claims.Claimed(100) || claims.Claimed(102) {
		t.Errorf("Claimed(100) = %v, Claimed(102) = %v; want true, false", claims.Claimed(100), claims.Claimed(102))
	}
}
