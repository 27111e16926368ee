package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// injectTaskFail makes the next task started by a request on path fail.
func injectTaskFail(t *testing.T, e *env, path string) {
	t.Helper()
	if err := e.sim.InjectFault(Fault{Path: path, Action: FaultTaskFail, Count: 1}); err != nil {
		t.Fatal(err)
	}
}

// W8: a create whose worker dies answers with its UPID like any other; the
// task ends with the error, and the worker's cleanup leaves neither the
// guest, its config nor a volume behind, so the vmid is free again.
func TestFaultTaskFailCreateLeavesNothingW8(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	injectTaskFail(t, e, "/nodes/{node}/qemu")
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "a", "scsi0", "local-lvm:4"))
	e.taskFails(t, a, "unable to create VM 100 - interrupted by signal")
	if _, ok := e.sim.Guest(100); ok {
		t.Error("the failed create left guest 100")
	}
	if vols := e.sim.VolumesOf(100); len(vols) != 0 {
		t.Errorf("the failed create left volumes %v", vols)
	}
	e.createVM(t, "100", "name", "a", "scsi0", "local-lvm:4")

	injectTaskFail(t, e, "/nodes/{node}/lxc")
	e.taskFails(t, e.postCT(t, "200", []string{"rootfs", "local-lvm:2"}), "unable to create CT 200 - interrupted by signal")
	if _, ok := e.sim.Guest(200); ok {
		t.Error("the failed container create left guest 200")
	}
	if vols := e.sim.VolumesOf(200); len(vols) != 0 {
		t.Errorf("the failed container create left volumes %v", vols)
	}
}

// W8, W11: while the doomed worker runs its placeholder is visible as for
// any create (nameless, locked); when it dies the placeholder goes.
func TestFaultTaskFailPlaceholderGoesWhenTaskEndsW8(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	injectTaskFail(t, e, "/nodes/{node}/qemu")
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "a", "scsi0", "local-lvm:4"))
	id := upid(t, a)
	if g, ok := e.sim.Guest(100); !ok || g.Lock() != "create" {
		t.Fatalf("while the task runs guest 100 = %+v, %t; want the create placeholder", g, ok)
	}
	clock.Advance(time.Minute)
	st := taskStatus(t, e, "pve1", id)
	if st.Status != "stopped" || st.ExitStatus != "unable to create VM 100 - interrupted by signal" {
		t.Fatalf("task status %+v", st)
	}
	if _, ok := e.sim.Guest(100); ok {
		t.Error("the placeholder outlived its failed task")
	}
}

// W8, W14: a failed clone removes the target it allocated and leaves the
// source as it was, unlocked; a failed container clone also releases the
// source's "disk" lock.
func TestFaultTaskFailCloneRemovesTargetW8(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "name", "src", "scsi0", "local-lvm:4")
	before, _ := e.sim.GuestConfig(100)
	injectTaskFail(t, e, "/nodes/{node}/qemu/{vmid}/clone")
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "101", "name", "copy"))
	e.taskFails(t, a, "clone failed: interrupted by signal")
	if _, ok := e.sim.Guest(101); ok {
		t.Error("the failed clone left guest 101")
	}
	if vols := e.sim.VolumesOf(101); len(vols) != 0 {
		t.Errorf("the failed clone left volumes %v", vols)
	}
	after, _ := e.sim.GuestConfig(100)
	if len(after) != len(before) || after["lock"] != "" || after["scsi0"] != before["scsi0"] {
		t.Errorf("the source changed: %v -> %v", before, after)
	}

	e.createCT(t, "200", "rootfs", "local-lvm:2", "hostname", "src")
	injectTaskFail(t, e, "/nodes/{node}/lxc/{vmid}/clone")
	a = e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/clone", form("newid", "201"))
	e.taskFails(t, a, "clone failed: interrupted by signal")
	if _, ok := e.sim.Guest(201); ok {
		t.Error("the failed container clone left guest 201")
	}
	if g, _ := e.sim.Guest(200); g.Lock() != "" {
		t.Errorf("the container clone's source stays locked (%s)", g.Lock())
	}
	if vols := e.sim.VolumesOf(201); len(vols) != 0 {
		t.Errorf("the failed container clone left volumes %v", vols)
	}
}

// W8, W22, W23: a failed resize or disk move leaves the disk where and as
// it was; a failed migration leaves the guest on its node, unlocked.
func TestFaultTaskFailLeavesGuestAsBeforeW8(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "name", "a", "scsi0", "local-lvm:4", "scsi1", "shared-nfs:1")
	before, _ := e.sim.GuestConfig(100)
	volumesBefore := e.sim.VolumesOf(100)

	injectTaskFail(t, e, "/nodes/{node}/qemu/{vmid}/resize")
	e.taskFails(t, e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/resize", form("disk", "scsi0", "size", "+1G")), "interrupted by signal")
	injectTaskFail(t, e, "/nodes/{node}/qemu/{vmid}/move_disk")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/move_disk", form("disk", "scsi0", "storage", "shared-nfs")), "interrupted by signal")
	injectTaskFail(t, e, "/nodes/{node}/qemu/{vmid}/migrate")
	if err := e.sim.Update(func(c *Cluster) error {
		delete(c.Guests[100].Config, "scsi0") // only shared disks migrate offline here
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	delete(before, "scsi0")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2")), "interrupted by signal")

	after, _ := e.sim.GuestConfig(100)
	for k, v := range before {
		if k != "digest" && after[k] != v {
			t.Errorf("%s changed: %q -> %q", k, v, after[k])
		}
	}
	if after["lock"] != "" {
		t.Errorf("the guest stays locked (%s)", after["lock"])
	}
	if g, _ := e.sim.Guest(100); g.Node != "pve1" {
		t.Errorf("the failed migration moved the guest to %s", g.Node)
	}
	volumesAfter := e.sim.VolumesOf(100)
	if len(volumesAfter) != len(volumesBefore) {
		t.Fatalf("volumes %v -> %v", volumesBefore, volumesAfter)
	}
	for i := range volumesBefore {
		if volumesAfter[i].VolID != volumesBefore[i].VolID || volumesAfter[i].Size != volumesBefore[i].Size {
			t.Errorf("volume %v -> %v", volumesBefore[i], volumesAfter[i])
		}
	}
}

// A request that starts no task (a synchronous config write, a read) is
// not a task failure: the fault waits for the next task.
func TestFaultTaskFailSkipsRequestsWithoutTaskW8(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Seed: 1})
	if err := e.sim.InjectFault(Fault{Action: FaultTaskFail, Message: "command 'lvcreate' failed: exit code 5", Count: 1}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	e.call(t, http.MethodGet, "/cluster/resources", nil).wantOK(t)
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4"))
	e.taskFails(t, a, "unable to create VM 100 - command 'lvcreate' failed: exit code 5")
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	if _, ok := e.sim.Pool("p1"); !ok {
		t.Error("the pool write was undone")
	}
}

// W10: a config write that waited in vain for the guest's lock file fails
// with lock_file_full's text naming that file, and changed nothing.
func TestFaultLockTimeoutNamesGuestLockFileW10(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "name", "a", "memory", "512")
	e.createCT(t, "200", "rootfs", "local-lvm:2", "memory", "256")
	if err := e.sim.InjectFault(Fault{Action: FaultLockTimeout, Count: 2}); err != nil {
		t.Fatal(err)
	}
	// Reads take no lock file: they pass and leave the hits alone.
	e.vmConfig(t, "pve1", "100")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "1024")).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	a := e.call(t, http.MethodPut, "/nodes/pve1/lxc/200/config", form("memory", "512"))
	a.wantStatus(t, http.StatusInternalServerError, "can't lock file '/run/lock/lxc/pve-config-200.lock' - got timeout")
	if a.message != "can't lock file '/run/lock/lxc/pve-config-200.lock' - got timeout\n" {
		t.Errorf("message %q", a.message)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["memory"] != "512" {
		t.Errorf("memory = %q after a refused write", cfg["memory"])
	}
	// A path without a guest is not a lock file's: it passes and leaves
	// the fault's hits alone.
	if err := e.sim.InjectFault(Fault{Action: FaultLockTimeout, Path: "/pools", Count: 1}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	// Count 2 is spent: the retry goes through.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "1024")).wantOK(t)
	if got := GuestLockTimeout(QEMU, 100); got != "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout" {
		t.Errorf("GuestLockTimeout = %q", got)
	}
}
