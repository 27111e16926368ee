package pveapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

const (
	qemuLockTimeout = "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout"
	lxcLockTimeout  = "can't lock file '/run/lock/lxc/pve-config-200.lock' - got timeout"
)

// W10: a guest config write that timed out waiting for the guest's lock
// file never started, so it is sent again until the lock is free.
func TestWriteRetriedWhileGuestLockFileIsBusyW10(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, pattern, path, message string
	}{
		{http.MethodPut, "PUT /nodes/{node}/qemu/{vmid}/config", "/nodes/pve1/qemu/100/config", qemuLockTimeout},
		{http.MethodPut, "PUT /nodes/{node}/lxc/{vmid}/config", "/nodes/pve1/lxc/200/config", lxcLockTimeout},
		{http.MethodPost, "POST /nodes/{node}/qemu/{vmid}/clone", "/nodes/pve1/qemu/100/clone", qemuLockTimeout},
		{http.MethodDelete, "DELETE /nodes/{node}/qemu/{vmid}", "/nodes/pve1/qemu/100", qemuLockTimeout},
	} {
		f := newFakePVE(t)
		f.handle(tc.pattern, func(w http.ResponseWriter, _ *http.Request) {
			if f.count(tc.pattern) <= 2 {
				writePVEError(w, 500, tc.message)
				return
			}
			writeData(w, nil)
		})
		c := f.client()
		var err error
		switch tc.method {
		case http.MethodPut:
			err = c.Put(context.Background(), tc.path, map[string][]string{"memory": {"1024"}}, nil)
		case http.MethodPost:
			err = c.Post(context.Background(), tc.path, map[string][]string{"newid": {"101"}}, nil)
		default:
			err = c.Delete(context.Background(), tc.path, nil, nil)
		}
		if err != nil {
			t.Errorf("%s %s: %v", tc.method, tc.path, err)
		}
		if n := f.count(tc.pattern); n != 3 {
			t.Errorf("%s %s: sent %d times, want 3 (two lock timeouts, then success)", tc.method, tc.path, n)
		}
	}
}

// W10: when the lock stays busy through every retry, the error is PVE's
// and names the lock file and the guest it belongs to.
func TestGuestLockFileTimeoutNamesTheLockWhenRetriesRunOutW10(t *testing.T) {
	t.Parallel()
	for _, old := range []bool{false, true} {
		f := newFakePVE(t)
		f.handle("PUT /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
			if old {
				writePVEOldError(w, 500, qemuLockTimeout)
				return
			}
			writePVEError(w, 500, qemuLockTimeout)
		})
		c := f.client(func(cfg *Config) { cfg.RetryMax = 3 })
		err := c.Put(context.Background(), "/nodes/pve1/qemu/100/config", map[string][]string{"memory": {"1024"}}, nil)
		file, ok := IsLockTimeout(err)
		if !ok || file != "/var/lock/qemu-server/lock-100.conf" {
			t.Fatalf("old=%t: IsLockTimeout(%v) = %q, %t", old, err, file, ok)
		}
		if vmid, ok := LockedGuest(file); !ok || vmid != 100 {
			t.Errorf("LockedGuest(%q) = %d, %t", file, vmid, ok)
		}
		if !strings.Contains(err.Error(), "/var/lock/qemu-server/lock-100.conf") {
			t.Errorf("the error does not name the lock file: %v", err)
		}
		if n := f.count("PUT /nodes/{node}/qemu/{vmid}/config"); n != 4 {
			t.Errorf("old=%t: sent %d times, want 4 (first try and 3 retries)", old, n)
		}
	}
}

// W10: other lock files guard steps inside a handler that may already have
// changed something (a storage lock taken while allocating a disk), so a
// write that timed out on them is not repeated.
func TestWriteNotRetriedOnOtherLockFilesW10(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("POST /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "can't lock file '/var/lock/pve-manager/pve-storage-local-lvm' - got timeout")
	})
	err := f.client().Post(context.Background(), "/nodes/pve1/qemu/100/config", map[string][]string{"scsi1": {"local-lvm:4"}}, nil)
	if file, ok := IsLockTimeout(err); !ok || file != "/var/lock/pve-manager/pve-storage-local-lvm" {
		t.Errorf("IsLockTimeout(%v) = %q, %t", err, file, ok)
	}
	if _, ok := LockedGuest("/var/lock/pve-manager/pve-storage-local-lvm"); ok {
		t.Error("a storage lock is not a guest's")
	}
	if n := f.count("POST /nodes/{node}/qemu/{vmid}/config"); n != 1 {
		t.Errorf("sent %d times, want 1", n)
	}
}

// W10: a worker that gave up on the lock fails its task with the same text.
func TestIsLockTimeoutReadsFailedTasksW10(t *testing.T) {
	t.Parallel()
	err := &TaskError{UPID: "UPID:pve1:00001234:00000001:00000001:qmclone:100:root@pam:", ExitStatus: "clone failed: " + qemuLockTimeout}
	if _, ok := IsLockTimeout(err); ok {
		t.Error("a clone that failed for another reason wrapping the text is not a lock timeout of the task itself")
	}
	err.ExitStatus = lxcLockTimeout
	file, ok := IsLockTimeout(err)
	if !ok || file != "/run/lock/lxc/pve-config-200.lock" {
		t.Errorf("IsLockTimeout = %q, %t", file, ok)
	}
	if vmid, ok := LockedGuest(file); !ok || vmid != 200 {
		t.Errorf("LockedGuest(%q) = %d, %t", file, vmid, ok)
	}
	for _, other := range []string{"VM is locked (clone)", "can't lock file '' - got timeout", "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout later"} {
		if _, ok := IsLockTimeout(&Error{StatusCode: 500, Message: other}); ok {
			t.Errorf("%q is not a lock timeout", other)
		}
	}
}
