package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// Clone workers (qemu-server src/PVE/API2/Qemu.pm clone_vm): the worker
// takes the source's flock (shared unless the source runs) and the target's,
// each with a 1 s timeout, runs load_and_check again, writes the temporary
// config "lock: clone" and holds both flocks until it ends. A start of the
// target waits for its flock inside its own worker (QemuServer.pm vm_start:
// lock_config, 10 s) and fails with lock_file_full's timeout (pve-common
// src/PVE/Tools.pm) when the clone outlasts it.
func TestQemuCloneWorkerHoldsLocks(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "src"))
	clone := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "200", "name", "copy")))

	// The placeholder is on disk as soon as the worker runs.
	if cfg := e.vmConfig(t, "pve1", "200"); keysOfStrings(cfg) != "digest,lock" || cfg["lock"] != "clone" {
		t.Errorf("placeholder config = %v", cfg)
	}
	// A config write is refused by its early check_lock before it takes
	// the flock (Qemu.pm $update_vm_api); with skiplock it waits for the
	// worker's flock and gives up after 10 s.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/200/config", form("name", "x")).
		wantStatus(t, http.StatusInternalServerError, "VM is locked (clone)")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/200/config", form("name", "x", "skiplock", "1"), e.asRoot(t)).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-200.conf' - got timeout")

	start := upid(t, e.power(t, "200", "start"))
	clock.Advance(9 * time.Second)
	if st := taskStatus(t, e, "pve1", start); st.Status != "running" {
		t.Fatalf("start waiting for the clone = %+v", st)
	}
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", start); st.ExitStatus != "can't lock file '/var/lock/qemu-server/lock-200.conf' - got timeout" {
		t.Fatalf("start after 10 s = %+v", st)
	}

	clock.Advance(50 * time.Second)
	if st := taskStatus(t, e, "pve1", clone); st.ExitStatus != "OK" {
		t.Fatalf("clone = %+v", st)
	}
	if cfg := e.vmConfig(t, "pve1", "200"); cfg["lock"] != "" || cfg["name"] != "copy" {
		t.Errorf("cloned config = %v", cfg)
	}
	start = upid(t, e.power(t, "200", "start"))
	clock.Advance(time.Minute)
	if st := taskStatus(t, e, "pve1", start); st.ExitStatus != "OK" {
		t.Fatalf("start after the clone = %+v", st)
	}
}

// A start sent while a short clone runs waits for the clone's flock, then
// starts the finished clone (QemuServer.pm vm_start: lock_config, then
// check_lock on the config the clone left unlocked).
func TestQemuStartWaitsForShortClone(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Second, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "src"))
	clone := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "200")))
	start := upid(t, e.power(t, "200", "start"))
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", clone); st.ExitStatus != "OK" {
		t.Fatalf("clone = %+v", st)
	}
	if st := taskStatus(t, e, "pve1", start); st.Status != "running" {
		t.Fatalf("start when the clone ended = %+v", st)
	}
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", start); st.ExitStatus != "OK" {
		t.Fatalf("start = %+v", st)
	}
	if got := e.sim.PowerState(200); got != PowerRunning {
		t.Errorf("power = %q", got)
	}
}

// Clones of a stopped source share its flock and run side by side; clones
// of a running source take it exclusively, so a second one gives up after
// its 1 s (Qemu.pm clone_vm: lock_config_shared / lock_config_full with 1).
func TestQemuCloneSourceLockModes(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "src"))
	a := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "201")))
	b := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "202")))
	clock.Advance(time.Minute)
	for _, u := range []string{a, b} {
		if st := taskStatus(t, e, "pve1", u); st.ExitStatus != "OK" {
			t.Fatalf("clone of a stopped source = %+v", st)
		}
	}

	running := vm(110, "pve1", "busy")
	running.Status = "running"
	addGuests(t, e.sim, running)
	a = upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/110/clone", form("newid", "211")))
	b = upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/110/clone", form("newid", "212")))
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", b); st.ExitStatus != "can't lock file '/var/lock/qemu-server/lock-110.conf' - got timeout" {
		t.Fatalf("second clone of a running source = %+v", st)
	}
	if _, ok := e.sim.Guest(212); ok {
		t.Error("the clone that never got its locks left a guest")
	}
	clock.Advance(time.Minute)
	if st := taskStatus(t, e, "pve1", a); st.ExitStatus != "OK" {
		t.Fatalf("first clone of a running source = %+v", st)
	}
}

// A clone onto an id whose placeholder another clone already wrote is
// refused before the fork by load_and_check (Qemu.pm clone_vm: "config
// file already exists").
func TestQemuCloneOntoPlaceholderRefused(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "src"), vm(101, "pve1", "other"))
	upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "200")))
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/clone", form("newid", "200")).
		wantStatus(t, http.StatusInternalServerError, "unable to create VM 200: config file already exists")
}

// A synchronous config write waits for the worker holding the guest's
// flock and goes through once it ends (Qemu.pm update_vm_api: lock_config
// around the update).
func TestConfigWriteWaitsForWorker(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{TaskDuration: 200 * time.Millisecond})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	upid(t, e.power(t, "100", "start"))
	began := time.Now()
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "later")).wantOK(t)
	if waited := time.Since(began); waited < 100*time.Millisecond {
		t.Errorf("the write did not wait for the start worker (%v)", waited)
	}
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["name"] != "later" {
		t.Errorf("config = %v", cfg)
	}
}

func keysOfStrings(m map[string]string) string {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return keysOf(out)
}
