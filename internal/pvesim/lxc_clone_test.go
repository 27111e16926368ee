package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// pve-container's clone_vm writes the target's config with "lock: create"
// and locks the source with "disk" before it forks, and its worker holds
// no flock for its run (src/PVE/API2/LXC.pm clone_vm). A start of the
// target while the clone runs gets its flock at once and fails as its
// worker starts, not when the clone ends (src/PVE/API2/LXC/Status.pm
// vm_start: lock_config, then check_lock); a start of the source fails on
// its "disk" lock the same way.
func TestCTStartDuringCloneFailsOnConfigLock(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	create := upid(t, e.postCT(t, "100", []string{"hostname", "base", "rootfs", "local-lvm:4"}))
	clock.Advance(time.Minute)
	if st := taskStatus(t, e, "pve1", create); st.ExitStatus != "OK" {
		t.Fatalf("create = %+v", st)
	}
	clone := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/clone", form("newid", "101")))
	for vmid, msg := range map[string]string{"101": "CT is locked (create)", "100": "CT is locked (disk)"} {
		start := upid(t, e.ctPower(t, vmid, "start"))
		if st := taskStatus(t, e, "pve1", start); st.Status != "stopped" || st.ExitStatus != msg {
			t.Errorf("start of %s during the clone = %+v", vmid, st)
		}
	}
	clock.Advance(time.Minute)
	if st := taskStatus(t, e, "pve1", clone); st.ExitStatus != "OK" {
		t.Fatalf("clone = %+v", st)
	}
}
