package fwutil

import (
	"context"
	"sync"
)

// GuestLocks serialises the work of one provider configuration's resources
// on one guest, keyed by VMID (unique in a cluster): Terraform runs
// resources in parallel, and several of them may act on one guest, as the
// clones of one source do. Different guests never wait for each other.
// The zero value is ready to use.
type GuestLocks struct {
	mu   sync.Mutex
	held map[int]chan struct{}
}

// slot returns the one-place channel that stands for vmid's lock.
func (l *GuestLocks) slot(vmid int) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[int]chan struct{}{}
	}
	ch, ok := l.held[vmid]
	if !ok {
		ch = make(chan struct{}, 1)
		l.held[vmid] = ch
	}
	return ch
}

// Lock waits until vmid is free or ctx ends; the returned func releases it
// (a second call does nothing).
func (l *GuestLocks) Lock(ctx context.Context, vmid int) (func(), error) {
	ch := l.slot(vmid)
	select {
	case ch <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-ch }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// GuestClaims holds the guests one provider configuration created or
// adopted. Two resources of one apply may plan the same name: the creation
// marker of the guest the first one is still creating must not lead the
// second to adopt it too. The zero value is ready to use.
type GuestClaims struct {
	claimed sync.Map // VMID -> struct{}
}

// Claim records vmid as taken by the caller; it reports false when another
// resource of this configuration claimed it first.
func (c *GuestClaims) Claim(vmid int) bool {
	_, taken := c.claimed.LoadOrStore(vmid, struct{}{})
	return !taken
}

// Claimed reports whether a resource of this configuration created or
// adopted vmid.
func (c *GuestClaims) Claimed(vmid int) bool {
	_, taken := c.claimed.Load(vmid)
	return taken
}
