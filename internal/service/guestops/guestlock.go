package guestops

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// LockGuest waits until no other resource of this provider works on vmid
// and holds it until the returned func is called; it fails only when ctx
// ends first.
func (a API) LockGuest(ctx context.Context, vmid int) (unlock func(), err error) {
	return a.Locks.Lock(ctx, vmid)
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
	return !a.Kind.templateClonesShareSource || src.Config["template"] != "1"
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
