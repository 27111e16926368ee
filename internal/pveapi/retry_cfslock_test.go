package pveapi

import (
	"context"
	"net/http"
	"testing"
)

// user.cfg's lock: a write that gave up waiting for it changed nothing
// (pve-cluster src/PVE/Cluster.pm $cfs_lock), so it is sent again; many
// ACL entries created in one apply queue on that lock.
func TestWriteRetriedWhileClusterFileLockIsBusy(t *testing.T) {
	t.Parallel()
	const pattern = "PUT /access/acl"
	f := newFakePVE(t)
	f.handle(pattern, func(w http.ResponseWriter, _ *http.Request) {
		if f.count(pattern) <= 2 {
			writePVEError(w, 500, "ACL update failed: cfs-lock 'file-user_cfg' error: got lock request timeout")
			return
		}
		writeData(w, nil)
	})
	err := f.client().UpdateACL(context.Background(), ACLChange{Path: "/", Roles: []string{"PVEAuditor"}, Users: []string{"alice@pve"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.count(pattern); n != 3 {
		t.Errorf("sent %d times, want 3 (two lock timeouts, then success)", n)
	}
}

// A failure inside the locked code is not a lock wait: it may have
// changed something, and is not repeated.
func TestWriteNotRetriedOnOtherClusterLockErrors(t *testing.T) {
	t.Parallel()
	for _, message := range []string{
		"ACL update failed: role 'X' does not exist",
		"ACL update failed: cfs-lock 'file-user_cfg' error: no quorum!",
		"ACL update failed: 'file-user_cfg'-locked command timed out - aborting",
	} {
		const pattern = "PUT /access/acl"
		f := newFakePVE(t)
		f.handle(pattern, func(w http.ResponseWriter, _ *http.Request) { writePVEError(w, 500, message) })
		if err := f.client().UpdateACL(context.Background(), ACLChange{Path: "/", Roles: []string{"PVEAuditor"}, Users: []string{"alice@pve"}}); err == nil {
			t.Errorf("%q: no error", message)
		}
		if n := f.count(pattern); n != 1 {
			t.Errorf("%q: sent %d times, want 1", message, n)
		}
	}
}
