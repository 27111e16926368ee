package pvesim

import (
	"net/http"
	"slices"
	"testing"
)

// A worker's error becomes its exit status with the final newline chomped
// and every other newline turned into a space (pve-common
// src/PVE/RESTEnvironment.pm fork_worker), in the status and in the
// log's "TASK ERROR:" line alike.
func TestTaskErrorFlattenedToOneLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.InjectFault(Fault{Path: "/nodes/{node}/qemu", Action: FaultTaskFail, Count: 1,
		Message: "first line\nsecond line"}); err != nil {
		t.Fatal(err)
	}
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:4"))
	info := e.taskFails(t, a, "unable to create VM 100 - first line second line")
	if last := info.Log[len(info.Log)-1]; last != "TASK ERROR: unable to create VM 100 - first line second line" {
		t.Errorf("last log line %q", last)
	}
	if got := taskErrorLine("a\nb\n\n"); got != "a b " {
		t.Errorf("only one final newline is chomped: %q", got)
	}
}

// WARNINGS: N counts only log_warn (pve-common src/PVE/RESTEnvironment.pm
// log_warn and warn, which bump warning_count); a plain Perl warn lands in
// the task log and the task still ends OK. Here: the forced stop before a
// container destroy (pve-container src/PVE/API2/LXC.pm destroy_vm, warn)
// and the pending changes dropped by a VM clone (qemu-server
// src/PVE/API2/Qemu.pm clone_vm, warn).
func TestTaskWarningsCountOnlyLogWarn(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.taskOK(t, e.ctPower(t, "100", "start"))
	info := e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", form("force", "1")))
	if !slices.Contains(info.Log, "forced to stop CT 100 before destroying!") {
		t.Errorf("log %q", info.Log)
	}

	e.createVM(t, "200", "scsi0", "local-lvm:4")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/200/status/start", nil))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/200/config", form("cpu", "host")).wantOK(t)
	info = e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/200/clone", form("newid", "201")))
	if !slices.Contains(info.Log, "found pending changes for 'cpu', discarding for clone") {
		t.Errorf("log %q", info.Log)
	}
}
