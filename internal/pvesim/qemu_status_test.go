package pvesim

import (
	"net/http"
	"testing"
	"time"
)

func (e *env) status(t *testing.T, vmid string) map[string]any {
	t.Helper()
	var st map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/"+vmid+"/status/current", nil).decode(t, &st)
	return st
}

func (e *env) power(t *testing.T, vmid, action string, kv ...string) *answer {
	t.Helper()
	return e.call(t, http.MethodPost, "/nodes/pve1/qemu/"+vmid+"/status/"+action, form(kv...))
}

// Start, stop and shutdown check inside their tasks: a second start fails
// the task, stopping a stopped VM succeeds; reboot, suspend, resume and
// reset refuse a stopped VM synchronously.
func TestPowerRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "name", "web", "memory", "1024", "cores", "2", "scsi0", "local-lvm:4", "agent", "1")
	st := e.status(t, "100")
	if st["status"] != "stopped" || st["qmpstatus"] != "stopped" || st["name"] != "web" || st["cpus"] != float64(2) ||
		st["maxmem"] != float64(1024*mib) || st["maxdisk"] != float64(4*gib) || st["agent"] != float64(1) {
		t.Errorf("status = %v", st)
	}
	if ha, _ := st["ha"].(map[string]any); ha["managed"] != float64(0) {
		t.Errorf("ha = %v", st["ha"])
	}
	for _, action := range []string{"reboot", "suspend", "resume", "reset"} {
		e.power(t, "100", action).wantStatus(t, http.StatusInternalServerError, "VM 100 not running")
	}
	e.taskOK(t, e.power(t, "100", "stop"))
	e.taskOK(t, e.power(t, "100", "shutdown"))
	info := e.taskOK(t, e.power(t, "100", "start"))
	if info.Type != "qmstart" {
		t.Errorf("task type %q", info.Type)
	}
	st = e.status(t, "100")
	if st["status"] != "running" || st["qmpstatus"] != "running" || st["pid"] == nil || st["running-qemu"] == nil {
		t.Errorf("running status = %v", st)
	}
	e.taskFails(t, e.power(t, "100", "start"), "VM 100 already running")
	e.taskOK(t, e.power(t, "100", "reboot"))
	e.taskOK(t, e.power(t, "100", "reset"))
	e.taskOK(t, e.power(t, "100", "shutdown", "timeout", "30", "forceStop", "1"))
	if got := e.sim.PowerState(100); got != PowerStopped {
		t.Errorf("power = %q", got)
	}
	// A missing VM: the start task fails with W12's text; the synchronous
	// check_running names the node.
	e.taskFails(t, e.power(t, "999", "start"), "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist")
	e.power(t, "999", "reboot").wantStatus(t, http.StatusInternalServerError,
		"unable to find configuration file for VM 999 on node 'pve1'")
}

// W18: a plain suspend pauses: status running, qmpstatus paused, and
// /cluster/resources says running. A paused VM refuses a shutdown; resume
// continues it.
func TestW18PauseAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "start", "1")
	info := e.taskOK(t, e.power(t, "100", "suspend"))
	if info.Type != "qmpause" {
		t.Errorf("task type %q", info.Type)
	}
	st := e.status(t, "100")
	if st["status"] != "running" || st["qmpstatus"] != "paused" {
		t.Errorf("status = %v", st)
	}
	e.sim.ReportStats()
	if r := resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["status"] != "running" {
		t.Errorf("resource status = %v", r["status"])
	}
	if got := e.sim.PowerState(100); got != PowerPaused {
		t.Errorf("power = %q", got)
	}
	e.power(t, "100", "shutdown").wantStatus(t, http.StatusInternalServerError, "VM is paused - cannot shutdown")
	e.power(t, "100", "reboot").wantStatus(t, http.StatusInternalServerError, "VM is paused - cannot shutdown")
	e.taskOK(t, e.power(t, "100", "resume"))
	if st := e.status(t, "100"); st["qmpstatus"] != "running" {
		t.Errorf("status after resume = %v", st)
	}
}

// Suspend to disk hibernates: the guest stops with "lock: suspended" and a
// state volume; the next start resumes and frees the state.
func TestHibernate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "memory", "1024", "start", "1")
	info := e.taskOK(t, e.power(t, "100", "suspend", "todisk", "1"))
	if info.Type != "qmsuspend" {
		t.Errorf("task type %q", info.Type)
	}
	if got := e.sim.PowerState(100); got != PowerHibernated {
		t.Fatalf("power = %q", got)
	}
	cfg, _ := e.sim.GuestConfig(100)
	if cfg["lock"] != "suspended" || cfg["vmstate"] == "" {
		t.Fatalf("config = %v", cfg)
	}
	if len(e.sim.VolumesOf(100)) != 2 {
		t.Errorf("volumes = %v", volids(e.sim, 100))
	}
	// W10: "suspended" is not a task lock: config writes are refused, a
	// start resumes.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "x")).
		wantStatus(t, http.StatusInternalServerError, "VM is locked (suspended)")
	e.taskOK(t, e.power(t, "100", "start"))
	cfg, _ = e.sim.GuestConfig(100)
	if e.sim.PowerState(100) != PowerRunning || cfg["lock"] != "" || cfg["vmstate"] != "" {
		t.Errorf("after resume: %q %v", e.sim.PowerState(100), cfg)
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0")
}

// W10: a start while another task holds the guest waits for it inside its
// task (vm_start takes lock_config in the worker, qemu-server
// src/PVE/QemuServer.pm vm_start), then runs its own course; a lock no task
// holds fails the start task.
func TestW10StartWaitsForLock(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Second, Now: clock.Now})
	createUPID := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4")))
	startUPID := upid(t, e.power(t, "100", "start"))
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", createUPID); st.ExitStatus != "OK" {
		t.Fatalf("create = %+v", st)
	}
	if st := taskStatus(t, e, "pve1", startUPID); st.Status != "running" {
		t.Fatalf("start right after the create = %+v", st)
	}
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", startUPID); st.ExitStatus != "OK" {
		t.Fatalf("start = %+v", st)
	}
	if got := e.sim.PowerState(100); got != PowerRunning {
		t.Fatalf("power = %q", got)
	}

	e2 := newEnv(t, Options{})
	e2.createVM(t, "100")
	if err := e2.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	e2.taskFails(t, e2.power(t, "100", "start"), "VM is locked (backup)")
}

// Starting a template fails in the task.
func TestStartTemplateFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil))
	e.taskFails(t, e.power(t, "100", "start"), "you can't start a vm if it's a template")
	if st := e.status(t, "100"); st["template"] != float64(1) {
		t.Errorf("status = %v", st)
	}
}

// The node's VM list shows the guests of that node only.
func TestListQemu(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "name", "a", "start", "1")
	addGuests(t, e.sim, vm(101, "pve2", "b"), Guest{VMID: 102, Node: "pve1", Type: LXC})
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/qemu", form("full", "1")).decode(t, &list)
	if len(list) != 1 || list[0]["vmid"] != float64(100) || list[0]["qmpstatus"] != "running" || list[0]["name"] != "a" {
		t.Errorf("list = %v", list)
	}
}

// A reboot applies pending changes: the guest goes down and comes back.
func TestRebootAppliesPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "cores", "1", "start", "1")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cores", "2")).wantOK(t)
	if cfg, _ := e.sim.GuestConfig(100); cfg["cores"] != "1" {
		t.Fatalf("cores applied while running: %v", cfg)
	}
	info := e.taskOK(t, e.power(t, "100", "reboot"))
	if info.Type != "qmreboot" {
		t.Errorf("task type %q", info.Type)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["cores"] != "2" || e.sim.PowerState(100) != PowerRunning {
		t.Errorf("after reboot: %v %q", cfg, e.sim.PowerState(100))
	}
}
