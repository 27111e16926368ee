package pvesim

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// Container workers check at their start, under the config flock, and so
// see what an earlier worker that held the flock left behind; their
// effect shows when they end. Tasks run on a test clock: shortTask is
// shorter than the 10 s a queued worker waits for the flock, longTask
// longer than any synchronous wait for it.
const (
	shortTask = 5 * time.Second
	longTask  = time.Minute
)

// newCTWorkerEnv is a simulator whose tasks take d, with container 100
// (running when asked) made on pve1.
func newCTWorkerEnv(t *testing.T, running bool, d time.Duration) (*env, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: d, Now: clock.Now})
	kv := []string{"hostname", "base", "rootfs", "local-lvm:4"}
	if running {
		kv = append(kv, "start", "1")
	}
	create := upid(t, e.postCT(t, "100", kv))
	clock.Advance(d)
	e.wantTask(t, create, false, "OK")
	return e, clock
}

// wantTask fails unless the task is running (running true) or has
// stopped with exit.
func (e *env) wantTask(t *testing.T, id string, running bool, exit string) TaskInfo {
	t.Helper()
	info, ok := e.sim.Task(id)
	if !ok {
		t.Fatalf("task %s not found", id)
	}
	if info.Running != running || !running && info.ExitStatus != exit {
		t.Fatalf("task %s: running %v, exit %q (log %q); want running %v, exit %q",
			info.Type, info.Running, info.ExitStatus, info.Log, running, exit)
	}
	return info
}

// pve-container src/PVE/API2/LXC.pm destroy_vm $code: the worker reloads
// the config under lock_config and checks check_running again, so a
// destroy queued behind a start fails as it starts, on the container
// the start left running.
func TestCTDestroyWorkerSeesStartedContainer(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, shortTask)
	start := upid(t, e.ctPower(t, "100", "start"))
	destroy := upid(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil))
	clock.Advance(shortTask)
	e.wantTask(t, start, false, "OK")
	e.wantTask(t, destroy, false, "unable to destroy CT 100 - container is running")
	if e.sim.PowerState(100) != PowerRunning {
		t.Errorf("power = %q", e.sim.PowerState(100))
	}
}

// pve-container src/PVE/API2/LXC.pm resize_vm $code: $load_and_check runs
// again as the worker starts, so a second resize to the size the first one
// reached fails at its start.
func TestCTResizeWorkerRechecksSizeAtStart(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, shortTask)
	resize := func() string {
		return upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "8G")))
	}
	first, second := resize(), resize()
	clock.Advance(shortTask)
	e.wantTask(t, first, false, "OK")
	e.wantTask(t, second, false, "disk is already at specified size")
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["rootfs"] != "local-lvm:vm-100-disk-0,size=8G" {
		t.Errorf("rootfs = %q", cfg["rootfs"])
	}
}

// pve-container src/PVE/API2/LXC/Status.pm vm_shutdown, vm_suspend and
// vm_stop $realcmd: check_lock under lock_config as the worker starts. A
// config lock set while an earlier worker held the flock fails them as
// soon as they get it, not when they would have ended.
func TestCTPowerWorkersCheckLockAtStart(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"shutdown", "suspend", "stop"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			e, clock := newCTWorkerEnv(t, true, shortTask)
			// vm_reboot checks no config lock (pve-container src/PVE/LXC.pm).
			reboot := upid(t, e.ctPower(t, "100", "reboot"))
			later := upid(t, e.ctPower(t, "100", action))
			if err := e.sim.SetLock(100, "backup"); err != nil {
				t.Fatal(err)
			}
			clock.Advance(shortTask)
			e.wantTask(t, reboot, false, "OK")
			e.wantTask(t, later, false, "CT is locked (backup)")
			if e.sim.PowerState(100) != PowerRunning {
				t.Errorf("power = %q", e.sim.PowerState(100))
			}
		})
	}
}

// pve-container src/PVE/LXC.pm vm_stop returns quietly for a container
// that no longer runs, and vm_reboot does nothing then: a stop or reboot
// queued behind a shutdown ends OK and leaves the container stopped.
func TestCTStopAndRebootAfterShutdownEndQuietly(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"stop", "reboot"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			e, clock := newCTWorkerEnv(t, true, shortTask)
			shutdown := upid(t, e.ctPower(t, "100", "shutdown"))
			later := upid(t, e.ctPower(t, "100", action))
			clock.Advance(shortTask)
			e.wantTask(t, shutdown, false, "OK")
			e.wantTask(t, later, true, "")
			clock.Advance(shortTask)
			e.wantTask(t, later, false, "OK")
			if e.sim.PowerState(100) != PowerStopped {
				t.Errorf("power = %q", e.sim.PowerState(100))
			}
		})
	}
}

// pve-container src/PVE/API2/LXC/Status.pm vm_resume: the worker takes no
// lock_config, so it does not wait for a worker that holds the flock.
func TestCTResumeTakesNoFlock(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, true, shortTask)
	suspend := upid(t, e.ctPower(t, "100", "suspend"))
	clock.Advance(shortTask)
	e.wantTask(t, suspend, false, "OK")
	resize := upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	resume := upid(t, e.ctPower(t, "100", "resume"))
	clock.Advance(shortTask)
	e.wantTask(t, resize, false, "OK")
	e.wantTask(t, resume, false, "OK")
	if e.sim.PowerState(100) != PowerRunning {
		t.Errorf("power = %q", e.sim.PowerState(100))
	}
}

// pve-container src/PVE/API2/LXC.pm template checks and forks under
// lock_config in the handler: while a worker holds the flock the call
// waits and times out (pve-common src/PVE/Tools.pm lock_file_full).
func TestCTTemplateWaitsForFlock(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, longTask)
	resize := upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantStatus(t, http.StatusInternalServerError,
		"can't lock file '/run/lock/lxc/pve-config-100.lock' - got timeout")
	clock.Advance(longTask)
	e.wantTask(t, resize, false, "OK")
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantNull(t)
}

// pve-container src/PVE/LXC/Migrate.pm prepare runs under lock_config
// (lock_vm) as the worker starts: a migration queued behind a start finds
// the container running and aborts there; phase1 sets "lock: migrate"
// only once prepare passed.
func TestCTMigrateWorkerSeesStartedContainer(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, shortTask)
	start := upid(t, e.ctPower(t, "100", "start"))
	migrate := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/migrate", form("target", "pve2", "target-storage", "local-lvm")))
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["lock"] != "" {
		t.Errorf("lock while the migration waits = %q", cfg["lock"])
	}
	clock.Advance(shortTask)
	e.wantTask(t, start, false, "OK")
	info := e.wantTask(t, migrate, false, "migration aborted")
	if !slices.Contains(info.Log, "ERROR: migration aborted (duration 00:00:00): running container can only be migrated in restart mode") {
		t.Errorf("log %q", info.Log)
	}
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["lock"] != "" {
		t.Errorf("lock after the abort = %q", cfg["lock"])
	}

	// With the flock free the worker starts at once and sets the lock.
	e2, clock2 := newCTWorkerEnv(t, false, shortTask)
	migrate = upid(t, e2.call(t, http.MethodPost, "/nodes/pve1/lxc/100/migrate", form("target", "pve2", "target-storage", "local-lvm")))
	if cfg := e2.ctConfig(t, "pve1", "100"); cfg["lock"] != "migrate" {
		t.Errorf("lock during the migration = %q", cfg["lock"])
	}
	clock2.Advance(shortTask)
	e2.wantTask(t, migrate, false, "OK")
}

// pve-container src/PVE/API2/LXC.pm move_volume: $move_to_storage_checks
// run under lock_config in the handler, which waits for a worker that
// holds the flock; the move_volume worker then holds no flock, and a
// config change meanwhile meets the "disk" lock instead.
func TestCTMoveVolumeFlocks(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, longTask)
	addStorage(t, e, &Storage{ID: "fast", Type: "lvmthin", Content: []string{"rootdir"}, Capacity: 100 * gib,
		Config: map[string]string{"vgname": "fast", "thinpool": "data"}})
	move := func() *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/move_volume", form("volume", "rootfs", "storage", "fast"))
	}
	resize := upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	move().wantStatus(t, http.StatusInternalServerError, "can't lock file '/run/lock/lxc/pve-config-100.lock' - got timeout")
	clock.Advance(longTask)
	e.wantTask(t, resize, false, "OK")
	moving := upid(t, move())
	e.setCT(t, "100", []string{"cores", "2"}).wantStatus(t, http.StatusInternalServerError, "CT is locked (disk)")
	clock.Advance(longTask)
	e.wantTask(t, moving, false, "OK")
}

// pve-container src/PVE/API2/LXC/Config.pm update_vm checks its
// parameters ("no options specified") before lock_config, so that answer
// comes at once while a worker holds the flock; a real change waits and
// times out.
func TestCTConfigChecksParametersBeforeFlock(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, longTask)
	resize := upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	e.setCT(t, "100", nil).wantStatus(t, http.StatusInternalServerError, "no options specified")
	e.setCT(t, "100", []string{"cores", "2"}).wantStatus(t, http.StatusInternalServerError,
		"can't lock file '/run/lock/lxc/pve-config-100.lock' - got timeout")
	clock.Advance(longTask)
	e.wantTask(t, resize, false, "OK")
	e.setCT(t, "100", []string{"cores", "2"}).wantNull(t)
}

// A config change waits for the worker that holds the flock and goes
// through once it ends (pve-container src/PVE/API2/LXC/Config.pm
// update_vm: lock_config, 10 s).
func TestCTConfigWriteWaitsForWorker(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{TaskDuration: 200 * time.Millisecond})
	addGuests(t, e.sim, Guest{VMID: 100, Node: "pve1", Type: LXC, Config: map[string]string{"hostname": "web"}})
	upid(t, e.ctPower(t, "100", "start"))
	began := time.Now()
	e.setCT(t, "100", []string{"hostname", "later"}).wantNull(t)
	if waited := time.Since(began); waited < 100*time.Millisecond {
		t.Errorf("the write did not wait for the start worker (%v)", waited)
	}
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["hostname"] != "later" {
		t.Errorf("config = %v", cfg)
	}
}

// pve-guest-common src/PVE/AbstractConfig.pm create_and_lock_config waits
// 5 s for the flock: a forced restore over a container whose flock a
// worker holds times out in the handler with create_vm's "$emsg" prefix
// (pve-container src/PVE/API2/LXC.pm create_vm).
func TestCTRestoreOverHeldFlockTimesOut(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, longTask)
	resize := upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	e.postRestoreCT(t, "100", SeedLXCBackup, "force", "1", "storage", "local-lvm").wantStatus(t, http.StatusInternalServerError,
		"unable to restore CT 100 - can't lock file '/run/lock/lxc/pve-config-100.lock' - got timeout")
	clock.Advance(longTask)
	e.wantTask(t, resize, false, "OK")
	restore := upid(t, e.postRestoreCT(t, "100", SeedLXCBackup, "force", "1", "storage", "local-lvm"))
	clock.Advance(longTask)
	e.wantTask(t, restore, false, "OK")
}

// A create onto a vmid whose destroy worker holds the flock is refused by
// check_vmid_unused before create_and_lock_config waits: the destroy
// removes the config only at its end, under the flock (pve-container
// src/PVE/API2/LXC.pm destroy_vm "only now remove the zombie config";
// pve-cluster src/PVE/Cluster.pm check_vmid_unused).
func TestCTCreateOntoVMIDBeingDestroyed(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, shortTask)
	destroy := upid(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil))
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4"}).wantStatus(t, http.StatusInternalServerError, "CT 100 already exists on node 'pve1'")
	clock.Advance(shortTask)
	e.wantTask(t, destroy, false, "OK")
	create := upid(t, e.postCT(t, "100", []string{"rootfs", "local-lvm:4"}))
	clock.Advance(shortTask)
	e.wantTask(t, create, false, "OK")
}

// pve-container src/PVE/API2/LXC.pm clone_vm: the handler takes the
// source's flock for set_lock (lock_config, 10 s), so a clone while a
// worker holds the source times out; the vzclone worker's first line is
// its own.
func TestCTCloneWaitsForSourceFlock(t *testing.T) {
	t.Parallel()
	e, clock := newCTWorkerEnv(t, false, longTask)
	resize := upid(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	clone := func() *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/clone", form("newid", "101"))
	}
	clone().wantStatus(t, http.StatusInternalServerError, "can't lock file '/run/lock/lxc/pve-config-100.lock' - got timeout")
	clock.Advance(longTask)
	e.wantTask(t, resize, false, "OK")
	id := upid(t, clone())
	clock.Advance(longTask)
	if info := e.wantTask(t, id, false, "OK"); len(info.Log) == 0 || info.Log[0] != "creating a clone of container 100 with ID 101" {
		t.Errorf("log %q", info.Log)
	}
}

// pve-container src/PVE/LXC.pm check_ct_modify_config_perm sends tags to
// pve-guest-common src/PVE/GuestHelpers.pm assert_tag_permissions at
// create too: VM.Config.Options on the new container.
func TestCTCreateTagsNeedConfigOptions(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "Datastore.AllocateSpace", "Datastore.Audit")
	e.postCT(t, "100", []string{"tags", "web", "storage", "local-lvm"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Options)")
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "Datastore.AllocateSpace", "Datastore.Audit", "VM.Config.Options")
	e.taskOK(t, e.postCT(t, "100", []string{"tags", "web", "storage", "local-lvm"}))
	e.sim.ClearPrivileges(testTokenUser)
}

// pve-container src/PVE/API2/LXC.pm create_vm $code (restore): the
// archive's config is recovered under lock_config as the worker starts,
// before any volume is made, so an archive that is no container backup
// fails the task there and the reserved container goes at once.
func TestCTRestoreRecoversConfigAtWorkerStart(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: longTask, Now: clock.Now})
	id := upid(t, e.postRestoreCT(t, "303", SeedQemuBackup, "storage", "local-lvm"))
	e.wantTask(t, id, false,
		"unable to restore CT 303 - archive '"+SeedQemuBackup+"' is a qemu backup and cannot be restored as a lxc")
	if _, ok := e.sim.Guest(303); ok {
		t.Fatal("the failed restore left its container behind")
	}
}
