package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// Where qemu-server checks: the workers of qemu-server run their checks
// under lock_config at their start, after a worker that held the flock
// before them is done. These tests queue a task behind another one (each
// lasts workerStep) and look at what the second one's checks see.

const workerStep = 5 * time.Second

// newWorkerEnv is an env whose tasks last workerStep on a test clock, with
// a stopped VM 100 on pve1 that has a disk, and a login for root@pam.
func newWorkerEnv(t *testing.T) (*env, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: workerStep, Now: clock.Now})
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "web", "scsi0", "local-lvm:4"))
	clock.Advance(workerStep)
	e.taskOK(t, a)
	return e, clock
}

// startVM starts VM 100 and lets the start end.
func startVM(t *testing.T, e *env, clock *fakeClock) {
	t.Helper()
	a := e.power(t, "100", "start")
	clock.Advance(workerStep)
	e.taskOK(t, a)
}

// wantTaskEnds advances the clock by one step at a time until the task of
// a has ended, and checks its exit status.
func wantTaskEnds(t *testing.T, e *env, clock *fakeClock, a *answer, exit string) TaskInfo {
	t.Helper()
	u := upid(t, a)
	for range 4 {
		if info, _ := e.sim.Task(u); !info.Running {
			if info.ExitStatus != exit {
				t.Fatalf("task %s ended %q, want %q (log %q)", info.Type, info.ExitStatus, exit, info.Log)
			}
			return info
		}
		clock.Advance(workerStep)
	}
	t.Fatalf("task %s still running", u)
	return TaskInfo{}
}

// awaitTask waits for the task of a on the real clock and returns it.
func awaitTask(t *testing.T, e *env, a *answer) TaskInfo {
	t.Helper()
	u := upid(t, a)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if info, _ := e.sim.Task(u); !info.Running {
			return info
		}
	}
	t.Fatalf("task %s still running", u)
	return TaskInfo{}
}

// awaitOK waits for the task of a and fails unless it ended OK.
func awaitOK(t *testing.T, e *env, a *answer) {
	t.Helper()
	if info := awaitTask(t, e, a); info.ExitStatus != "OK" {
		t.Fatalf("task %s ended %q, log %q", info.Type, info.ExitStatus, info.Log)
	}
}

// A stop sent while a destroy's worker holds the lock fails at the start of
// its worker, once the destroy is done: vm_stop runs check_running under
// lock_config, whose assert_config_exists_on_node finds no config (qemu-server
// src/PVE/QemuServer.pm vm_stop, check_running; src/PVE/QemuConfig.pm
// assert_config_exists_on_node).
func TestQemuStopQueuedBehindDestroyCheckRunning(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	destroy := e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil)
	stop := e.power(t, "100", "stop")
	shutdown := e.power(t, "100", "shutdown")
	wantTaskEnds(t, e, clock, destroy, "OK")
	wantTaskEnds(t, e, clock, stop, "unable to find configuration file for VM 100 on node 'pve1'")
	wantTaskEnds(t, e, clock, shutdown, "unable to find configuration file for VM 100 on node 'pve1'")
}

// A resume sent while a stop runs waits for the flock in its synchronous
// part (qemu-server src/PVE/API2/Qemu.pm vm_resume: lock_config in an
// eval), then check_running refuses the guest the stop brought down.
func TestQemuResumeWaitsForStopVMResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: 300 * time.Millisecond})
	awaitOK(t, e, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4")))
	awaitOK(t, e, e.power(t, "100", "start"))
	awaitOK(t, e, e.power(t, "100", "suspend"))
	stop := upid(t, e.power(t, "100", "stop"))
	e.power(t, "100", "resume").wantStatus(t, http.StatusInternalServerError, "VM 100 not running")
	if info, _ := e.sim.Task(stop); info.Running {
		t.Fatalf("stop still running when the resume answered")
	}
}

// vm_resume's worker checks the lock of a paused guest under lock_config,
// except a backup's (qemu-server src/PVE/QemuServer/RunState.pm vm_resume).
func TestQemuResumeLockVMResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for vmid, lock := range map[int]string{100: "snapshot", 101: "backup"} {
		g := vm(vmid, "pve1", "web")
		g.Status, g.Paused, g.Config["lock"] = "running", true, lock
		addGuests(t, e.sim, g)
	}
	e.taskFails(t, e.power(t, "100", "resume"), "VM is locked (snapshot)")
	e.taskOK(t, e.power(t, "101", "resume"))
	if st := e.status(t, "101"); st["qmpstatus"] != "running" {
		t.Errorf("status after the resume = %v", st)
	}
}

// A forced restore over a VM that a start is bringing up: the synchronous
// create_and_lock_config waits for the start's flock and locks the config;
// the worker's check_running then finds the guest running (qemu-server
// src/PVE/API2/Qemu.pm create_vm $restorefn: "$emsg vm is running").
func TestQemuRestoreQueuedBehindStartRestorefn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: 300 * time.Millisecond})
	awaitOK(t, e, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4")))
	start := e.power(t, "100", "start")
	restore := e.postRestoreVM(t, "100", SeedQemuBackup, "force", "1")
	awaitOK(t, e, start)
	info := awaitTask(t, e, restore)
	if info.ExitStatus != "unable to restore VM 100 - vm is running" {
		t.Fatalf("restore = %q (log %q)", info.ExitStatus, info.Log)
	}
	if st := e.status(t, "100"); st["status"] != "running" || st["lock"] != nil {
		t.Errorf("status after the refused restore = %v", st)
	}
}

// A reset passes vm_reset's synchronous check_running while a stop runs;
// its worker then finds the guest down and QMP refuses (qemu-server
// src/PVE/QemuServer.pm vm_reset under lock_config; the text is
// src/PVE/QemuServer/Monitor.pm qmp_cmd).
func TestQemuResetQueuedBehindStopVMReset(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	startVM(t, e, clock)
	stop := e.power(t, "100", "stop")
	reset := e.power(t, "100", "reset")
	wantTaskEnds(t, e, clock, stop, "OK")
	wantTaskEnds(t, e, clock, reset, "VM 100 not running")
}

// Pause and hibernation queued behind a stop: vm_suspend's worker checks
// under lock_config and QMP refuses a guest that no longer runs; a
// hibernation has set the "suspending" lock by then and leaves it
// (qemu-server src/PVE/QemuServer/RunState.pm vm_suspend).
func TestQemuSuspendQueuedBehindStopVMSuspend(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	startVM(t, e, clock)
	stop := e.power(t, "100", "stop")
	pause := e.power(t, "100", "suspend")
	wantTaskEnds(t, e, clock, stop, "OK")
	wantTaskEnds(t, e, clock, pause, "VM 100 not running")

	startVM(t, e, clock)
	stop = e.power(t, "100", "stop")
	hibernate := e.power(t, "100", "suspend", "todisk", "1")
	wantTaskEnds(t, e, clock, stop, "OK")
	wantTaskEnds(t, e, clock, hibernate, "VM 100 not running")
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["lock"] != "suspending" || cfg["vmstate"] != "" {
		t.Errorf("config after a failed hibernation = %v", cfg)
	}
}

// A hibernation of a guest whose state cannot be saved fails at the start
// of its worker (qemu-server src/PVE/QemuServer/RunState.pm vm_suspend:
// check_non_migratable_resources under lock_config).
func TestQemuHibernateNonMigratableCheckNonMigratableResources(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	g := vm(100, "pve1", "web")
	g.Config["amd-sev"] = "type=std"
	g.Status = "running"
	addGuests(t, e.sim, g)
	e.taskFails(t, e.power(t, "100", "suspend", "todisk", "1"),
		"Cannot live-migrate, snapshot (with RAM), or hibernate a VM with: amd-sev")
	e.taskOK(t, e.power(t, "100", "suspend"))
}

// A second stop queued behind a hibernation finds the guest down and
// leaves it alone (qemu-server src/PVE/QemuServer.pm _do_vm_stop returns
// when check_running finds no process), so the "suspended" lock it would
// refuse does not matter; a reboot queued the same way does nothing
// either (vm_reboot: "only reboot if running").
func TestQemuStopAndRebootQueuedBehindHibernateDoVMStop(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	startVM(t, e, clock)
	hibernate := e.power(t, "100", "suspend", "todisk", "1")
	stop := e.power(t, "100", "stop")
	reboot := e.power(t, "100", "reboot")
	wantTaskEnds(t, e, clock, hibernate, "OK")
	wantTaskEnds(t, e, clock, stop, "OK")
	wantTaskEnds(t, e, clock, reboot, "OK")
	if st := e.status(t, "100"); st["status"] != "stopped" || st["lock"] != "suspended" {
		t.Errorf("status = %v", st)
	}
}

// A resume sent while a hibernation runs waits for the flock in its
// synchronous part to read the "suspended" lock (qemu-server
// src/PVE/API2/Qemu.pm vm_resume: lock_config in an eval), so it resumes
// from the state the hibernation wrote; its worker runs vm_start.
func TestQemuResumeWaitsForHibernateVMResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: 300 * time.Millisecond})
	awaitOK(t, e, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4")))
	awaitOK(t, e, e.power(t, "100", "start"))
	hibernate := upid(t, e.power(t, "100", "suspend", "todisk", "1"))
	resume := e.power(t, "100", "resume")
	if info, _ := e.sim.Task(hibernate); info.Running || info.ExitStatus != "OK" {
		t.Fatalf("hibernation when the resume answered = %+v", info)
	}
	awaitOK(t, e, resume)
	if st := e.status(t, "100"); st["status"] != "running" || st["lock"] != nil {
		t.Errorf("status after the resume = %v", st)
	}
}

// A destroy passes its early checks on a stopped VM while a start runs;
// the worker repeats them under lock_config and finds the guest running
// (qemu-server src/PVE/API2/Qemu.pm destroy_vm $early_checks).
func TestQemuDestroyQueuedBehindStartEarlyChecks(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	start := e.power(t, "100", "start")
	destroy := e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil)
	wantTaskEnds(t, e, clock, start, "OK")
	wantTaskEnds(t, e, clock, destroy, "VM 100 is running - destroy failed")
}

// A template conversion queued behind a start: $load_and_check again in
// the worker (qemu-server src/PVE/API2/Qemu.pm template).
func TestQemuTemplateQueuedBehindStartLoadAndCheck(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	start := e.power(t, "100", "start")
	tmpl := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil)
	wantTaskEnds(t, e, clock, start, "OK")
	wantTaskEnds(t, e, clock, tmpl, "you can't convert a VM to template if VM is running")
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["template"] != "" {
		t.Errorf("template = %q", cfg["template"])
	}
}

// A migration queued behind a start: prepare runs under lock_config
// (QemuMigrate.pm lock_vm) and finds the guest running without --online;
// the task logs the error and dies "migration aborted" (qemu-server
// src/PVE/QemuMigrate.pm prepare; pve-guest-common
// src/PVE/AbstractMigrate.pm migrate). phase1's "migrate" lock is never set.
func TestQemuMigrateQueuedBehindStartPrepare(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	start := e.power(t, "100", "start")
	migrate := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2", "with-local-disks", "1"))
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["lock"] != "" {
		t.Errorf("lock while the migration waits = %q", cfg["lock"])
	}
	wantTaskEnds(t, e, clock, start, "OK")
	info := wantTaskEnds(t, e, clock, migrate, "migration aborted")
	if last := info.Log[len(info.Log)-2]; last != "ERROR: migration aborted (duration 00:00:00): can't migrate running VM without --online" {
		t.Errorf("last log line %q", last)
	}
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["lock"] != "" {
		t.Errorf("lock after the aborted migration = %q", cfg["lock"])
	}
}

// A resize queued behind a migration: $updatefn's load_config under
// lock_config finds the config gone from the node (qemu-server
// src/PVE/API2/Qemu.pm resize_vm; pve-guest-common
// src/PVE/AbstractConfig.pm load_config).
func TestQemuResizeQueuedBehindMigrateLoadConfig(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	migrate := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2", "with-local-disks", "1"))
	resize := e.resize(t, "100", "scsi0", "+1G")
	wantTaskEnds(t, e, clock, migrate, "OK")
	wantTaskEnds(t, e, clock, resize, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")
}

// A disk move queued behind a hibernation: $load_and_check_move's
// check_lock in the worker sees the "suspended" lock the hibernation left
// (qemu-server src/PVE/API2/Qemu.pm move_vm_disk).
func TestQemuMoveDiskQueuedBehindHibernateLoadAndCheckMove(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	startVM(t, e, clock)
	hibernate := e.power(t, "100", "suspend", "todisk", "1")
	move := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/move_disk", form("disk", "scsi0", "storage", "shared-nfs"))
	wantTaskEnds(t, e, clock, hibernate, "OK")
	wantTaskEnds(t, e, clock, move, "VM is locked (suspended)")
}

// An async config update with the digest it read before a resize: the
// qmconfig worker's $load_and_check_config under lock_config sees the
// resized disk's new digest (qemu-server src/PVE/API2/Qemu.pm
// $update_vm_api).
func TestQemuAsyncConfigQueuedBehindResizeLoadAndCheckConfig(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	digest := e.vmConfig(t, "pve1", "100")["digest"]
	resize := e.resize(t, "100", "scsi0", "+1G")
	update := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/config", form("memory", "1024", "digest", digest))
	wantTaskEnds(t, e, clock, resize, "OK")
	wantTaskEnds(t, e, clock, update, "checksum mismatch (file change by other user?)")
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["memory"] != "" {
		t.Errorf("memory = %q after a refused update", cfg["memory"])
	}
}

// The synchronous config update runs its early checks before it takes
// the config lock: a bad digest is refused at once while a worker holds
// the flock, instead of after lock_config's 10 s (qemu-server
// src/PVE/API2/Qemu.pm $update_vm_api: "$load_and_check_config->(0); #
// early checks before forking/locking", then lock_config).
func TestQemuSyncConfigEarlyChecksBeforeLockUpdateVMAPI(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.power(t, "100", "start").wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "1024", "digest", "0000")).
		wantStatus(t, http.StatusInternalServerError, "checksum mismatch (file change by other user?)")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "1024")).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	// unlink is update_vm with "delete" (Qemu.pm unlink): the same order.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/unlink", form("idlist", "foo0")).
		wantParamError(t, "delete", "unknown option 'foo0'")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/unlink", form("idlist", "unused0")).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
}

// The synchronous update waits for a short worker's flock and then
// checks what that worker left: $updatefn's $load_and_check_config
// (qemu-server src/PVE/API2/Qemu.pm $update_vm_api) sees the lock a
// hibernation set.
func TestQemuSyncConfigWaitsThenChecksUpdateVMAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: 300 * time.Millisecond})
	awaitOK(t, e, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4")))
	awaitOK(t, e, e.power(t, "100", "start"))
	hibernate := upid(t, e.power(t, "100", "suspend", "todisk", "1"))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "1024")).
		wantStatus(t, http.StatusInternalServerError, "VM is locked (suspended)")
	if info, _ := e.sim.Task(hibernate); info.Running {
		t.Fatalf("hibernation still running when the update answered")
	}
}

// create_vm's create_and_lock_config waits up to 5 s for the config flock
// (pve-guest-common src/PVE/AbstractConfig.pm create_and_lock_config:
// lock_config_full with 5 s) and only then asks whether the vmid is taken
// (pve-cluster src/PVE/Cluster.pm check_vmid_unused): a create sent while
// a short destroy of the same vmid runs creates the new VM.
func TestQemuCreateWaitsForDestroyCreateAndLockConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: 300 * time.Millisecond})
	awaitOK(t, e, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "old", "scsi0", "local-lvm:4")))
	destroy := upid(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil))
	create := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "new"))
	if info, _ := e.sim.Task(destroy); info.Running || info.ExitStatus != "OK" {
		t.Fatalf("destroy when the create answered = %+v", info)
	}
	awaitOK(t, e, create)
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["name"] != "new" {
		t.Errorf("config = %v", cfg)
	}
}

// A create onto a vmid whose flock a worker holds past the 5 s fails with
// the lock's timeout, not with "already exists" (create_and_lock_config
// checks the vmid under the flock); a restore likewise ("$emsg $@",
// qemu-server src/PVE/API2/Qemu.pm create_vm).
func TestQemuCreateLockTimeoutCreateAndLockConfig(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.power(t, "100", "start").wantOK(t)
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100")).wantStatus(t, http.StatusInternalServerError,
		"unable to create VM 100 - can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	e.postRestoreVM(t, "100", SeedQemuBackup, "force", "1").wantStatus(t, http.StatusInternalServerError,
		"unable to restore VM 100 - can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	clock.Advance(time.Minute)
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100")).wantStatus(t, http.StatusInternalServerError,
		"unable to create VM 100 - VM 100 already exists on node 'pve1'")
}

// Tags at create: create_vm's worker calls assert_tag_permissions after the
// disks are made (qemu-server src/PVE/API2/Qemu.pm create_vm $realcmd;
// pve-guest-common src/PVE/GuestHelpers.pm assert_tag_permissions):
// VM.Config.Options on the VM, so a caller without it sees the task fail,
// its disks freed and the VM gone; with the default datacenter.cfg
// (user-allow 'free') no tag needs Sys.Modify.
func TestQemuCreateTagsAssertTagPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "VM.Audit", "VM.Config.Disk", "Datastore.AllocateSpace")
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4", "tags", "web"))
	e.taskFails(t, a, "unable to create VM 100 - 403 Permission check failed (/vms/100, VM.Config.Options)")
	if _, ok := e.sim.GuestConfig(100); ok {
		t.Error("VM 100 left behind")
	}
	wantVolids(t, e.sim, 100)

	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "VM.Audit", "VM.Config.Disk", "VM.Config.Options", "Datastore.AllocateSpace")
	e.createVM(t, "100", "scsi0", "local-lvm:4", "tags", "web;DB")
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["tags"] != "db;web" {
		t.Errorf("tags = %q", cfg["tags"])
	}
	e.sim.ClearPrivileges(testTokenUser)
}

// Tags at an update: $updatefn calls assert_tag_permissions under the
// config lock, so the async update's worker fails at its start with the
// exception's code, and the synchronous one answers 403 (qemu-server
// src/PVE/API2/Qemu.pm $update_vm_api $updatefn).
func TestQemuUpdateTagsAssertTagPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "tags", "web")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.Memory")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "tags")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Options)")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/config", form("tags", "db", "memory", "1024")),
		"403 Permission check failed (/vms/100, VM.Config.Options)")
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["tags"] != "web" || cfg["memory"] != "" {
		t.Errorf("config after refused updates = %v", cfg)
	}
	e.sim.ClearPrivileges(testTokenUser)
}

// A snapshot with the RAM queued behind a stop: __snapshot_prepare runs
// under lock_config at the start of the worker and saves the RAM only of a
// guest that still runs (pve-guest-common src/PVE/AbstractConfig.pm
// snapshot_create, __snapshot_prepare; qemu-server src/PVE/QemuConfig.pm
// __snapshot_save_vmstate).
func TestQemuSnapshotQueuedBehindStopSnapshotPrepare(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	startVM(t, e, clock)
	stop := e.power(t, "100", "stop")
	snap := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1", "vmstate", "1"))
	wantTaskEnds(t, e, clock, stop, "OK")
	wantTaskEnds(t, e, clock, snap, "OK")
	if items := e.snapshotItems(t, "qemu", "100"); items["s1"]["vmstate"] != float64(0) {
		t.Errorf("snapshot of a stopped VM = %v", items["s1"])
	}
}

// The snapshot worker holds the config flock for __snapshot_prepare only
// and guards the guest with the "snapshot" config lock after that, so a
// stop sent meanwhile takes the flock at once and its check_lock refuses
// (pve-guest-common src/PVE/AbstractConfig.pm __snapshot_prepare;
// qemu-server src/PVE/QemuServer.pm _do_vm_stop).
func TestQemuStopDuringSnapshotSnapshotLock(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	startVM(t, e, clock)
	snap := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1"))
	e.taskFails(t, e.power(t, "100", "stop"), "VM is locked (snapshot)")
	wantTaskEnds(t, e, clock, snap, "OK")
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["lock"] != "" || cfg["parent"] != "s1" {
		t.Errorf("config after the snapshot = %v", cfg)
	}
}

// A snapshot deletion and a rollback queued behind a destroy find no
// config when their first step runs under lock_config (qemu-server
// src/PVE/API2/Qemu.pm delsnapshot, rollback; pve-guest-common
// src/PVE/AbstractConfig.pm snapshot_rollback, load_config).
func TestQemuSnapshotOpsQueuedBehindDestroyLoadConfig(t *testing.T) {
	t.Parallel()
	e, clock := newWorkerEnv(t)
	snap := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1"))
	wantTaskEnds(t, e, clock, snap, "OK")
	destroy := e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil)
	del := e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/s1", nil)
	rollback := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/s1/rollback", nil)
	wantTaskEnds(t, e, clock, destroy, "OK")
	wantTaskEnds(t, e, clock, del, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")
	wantTaskEnds(t, e, clock, rollback, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")
}

// A snapshot's description is written under lock_config, which waits for
// a worker that holds the flock; without a description nothing is done
// and nothing waits (qemu-server src/PVE/API2/Qemu.pm
// update_snapshot_config).
func TestQemuSnapshotConfigWaitsForFlockUpdateSnapshotConfig(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	snap := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1"))
	clock.Advance(time.Minute)
	e.taskOK(t, snap)
	e.power(t, "100", "start").wantOK(t)
	path := "/nodes/pve1/qemu/100/snapshot/s1/config"
	e.call(t, http.MethodPut, path, form("description", "x")).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	e.call(t, http.MethodPut, path, nil).wantOK(t)
}
