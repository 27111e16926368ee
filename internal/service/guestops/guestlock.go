package guestops

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// guestLocks serialises this provider process's work on one guest, keyed
// by VMID (unique in a cluster): Terraform runs resources in parallel, and
// several of them may act on one guest, as the clones of one source do.
// Different guests never wait for each other.
type guestLocks struct {
	mu   sync.Mutex
	held map[int]chan struct{}
}

// slot returns the one-place channel that stands for vmid's lock.
func (l *guestLocks) slot(vmid int) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch, ok := l.held[vmid]
	if !ok {
		ch = make(chan struct{}, 1)
		l.held[vmid] = ch
	}
	return ch
}

// lock waits until vmid is free or ctx ends; the returned func releases it.
func (l *guestLocks) lock(ctx context.Context, vmid int) (func(), error) {
	ch := l.slot(vmid)
	select {
	case ch <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-ch }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// locksByClient holds one guestLocks per configured client: one provider
// configuration talks to one cluster, whose VMIDs the locks are keyed by.
var locksByClient sync.Map // *pveapi.Client -> *guestLocks

func locksFor(client *pveapi.Client) *guestLocks {
	if l, ok := locksByClient.Load(client); ok {
		return l.(*guestLocks)
	}
	l, _ := locksByClient.LoadOrStore(client, &guestLocks{held: map[int]chan struct{}{}})
	return l.(*guestLocks)
}

// LockGuest waits until no other resource of this provider works on vmid
// and holds it until the returned func is called; it fails only when ctx
// ends first.
func (a API) LockGuest(ctx context.Context, vmid int) (unlock func(), err error) {
	return locksFor(a.Client).lock(ctx, vmid)
}

// HoldGuest is LockGuest for a resource operation (an update or a
// destroy): it waits for the provider's other work on vmid, such as a clone
// of it, and reports a deadline that ends the wait as an error.
func (a API) HoldGuest(ctx context.Context, vmid int, diags *diag.Diagnostics) (unlock func(), ok bool) {
	unlock, err := a.LockGuest(ctx, vmid)
	if err != nil {
		diags.AddError("Timed Out Waiting For "+a.Kind.Title,
			fmt.Sprintf("Another operation of this provider on %s %d did not finish in time: %v. Apply again once it is done.", a.Kind.Noun, vmid, err))
		return nil, false
	}
	return unlock, true
}

// sourceLockedWhileCloning tells whether PVE keeps a clone's source from a
// second clone until the first is done (W10): a container's source carries
// "lock: disk" for the whole clone, and a VM source that is not a template
// may be running, when the clone holds its config flock exclusively. Clones
// of a VM template share the flock and run side by side.
func (a API) sourceLockedWhileCloning(src CloneSource) bool {
	return a.isLXC() || src.Config["template"] != "1"
}

// lockCloneSource serialises the clones of one source where PVE would
// refuse them side by side; elsewhere it holds nothing.
func (a API) lockCloneSource(ctx context.Context, src CloneSource) (func(), error) {
	if !a.sourceLockedWhileCloning(src) {
		return func() {}, nil
	}
	return a.LockGuest(ctx, src.VMID)
}

// awaitSourceFree waits, without reporting, until the clone no longer
// holds its source: its task ended, or for a clone taken up again without
// a task, its lock went. The caller reports the outcome when it waits for
// the clone itself.
func (a API) awaitSourceFree(ctx context.Context, cloned Cloned) {
	if cloned.UPID != "" {
		_, _ = a.Client.WaitTask(ctx, cloned.UPID)
		return
	}
	_, _ = a.Client.WaitUnlocked(ctx, cloned.Node, a.Kind.Type, cloned.VMID)
}
