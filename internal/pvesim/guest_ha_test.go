package pvesim

import (
	"net/http"
	"slices"
	"testing"
)

// haGuestEnv is haEnv with vm:100 (pve1) and ct:101 (pve2) under HA,
// started, and rounds only through HAStep.
func haGuestEnv(t *testing.T) *env {
	t.Helper()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101")).wantOK(t)
	haSettle(t, e, "vm:100", "started", "started", 4)
	haSettle(t, e, "ct:101", "started", "started", 4)
	return e
}

func guestStatusHA(t *testing.T, e *env, path string) map[string]any {
	t.Helper()
	var st map[string]any
	a := e.call(t, http.MethodGet, path+"/status/current", nil)
	a.wantOK(t)
	a.decode(t, &st)
	ha, _ := st["ha"].(map[string]any)
	return ha
}

func clusterHAState(t *testing.T, e *env, id string) any {
	t.Helper()
	var list []map[string]any
	a := e.call(t, http.MethodGet, "/cluster/resources", nil)
	a.wantOK(t)
	a.decode(t, &list)
	for _, entry := range list {
		if entry["id"] == id {
			return entry["hastate"]
		}
	}
	t.Fatalf("no %s in /cluster/resources", id)
	return nil
}

// status/current's "ha" and /cluster/resources' hastate tell that HA
// manages a guest, with the CRM's state of it.
// pve-ha-manager src/PVE/HA/Config.pm get_service_status; pve-manager
// PVE/API2/Cluster.pm resources.
func TestHAGuestStatusAndClusterResourcesHAState(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.sim.SetHARoundInterval(1 << 40)
	if ha := guestStatusHA(t, e, "/nodes/pve1/qemu/100"); ha["managed"] != float64(0) || ha["state"] != nil {
		t.Fatalf("unmanaged VM: ha = %v", ha)
	}
	if got := clusterHAState(t, e, "qemu/100"); got != nil {
		t.Fatalf("unmanaged VM has hastate %v", got)
	}
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "state", "stopped")).wantOK(t)
	// Before the manager has seen it: the requested state.
	if got := clusterHAState(t, e, "qemu/100"); got != "stopped" {
		t.Fatalf("hastate before the first round = %v, want the requested stopped", got)
	}
	if ha := guestStatusHA(t, e, "/nodes/pve1/qemu/100"); ha["managed"] != float64(1) || ha["state"] != nil {
		t.Fatalf("managed VM before the first round: ha = %v", ha)
	}
	e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("state", "started")).wantOK(t)
	haSettle(t, e, "vm:100", "started", "started", 4)
	if ha := guestStatusHA(t, e, "/nodes/pve1/qemu/100"); ha["managed"] != float64(1) || ha["state"] != "started" {
		t.Fatalf("started VM: ha = %v", ha)
	}
	if got := clusterHAState(t, e, "qemu/100"); got != "started" {
		t.Fatalf("hastate = %v, want started", got)
	}
	if got := clusterHAState(t, e, "node/pve1"); got != "online" {
		t.Fatalf("node hastate = %v, want online", got)
	}
	// ignored: HA lets go of the guest.
	e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("state", "ignored")).wantOK(t)
	if ha := guestStatusHA(t, e, "/nodes/pve1/qemu/100"); ha["managed"] != float64(0) {
		t.Fatalf("ignored VM: ha = %v", ha)
	}
}

// A migration of an HA-managed guest only requests HA's: the hamigrate
// task ends with the guest where it was, and HA moves it in its next
// rounds. qemu-server src/PVE/API2/Qemu.pm and pve-container
// src/PVE/API2/LXC.pm migrate_vm.
func TestHAGuestMigrateIsARequest(t *testing.T) {
	t.Parallel()
	e := haGuestEnv(t)
	// A running VM still needs online (checked before the HA branch).
	wantMessage(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve3")),
		http.StatusInternalServerError, "can't migrate running VM without --online\n")
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve3", "online", "1")))
	if info.Type != "hamigrate" || !slices.Contains(info.Log, "Requesting HA migration for VM 100 to node pve3") {
		t.Fatalf("task %s, log %q", info.Type, info.Log)
	}
	if g := haGuest(t, e.sim, 100); g.Node != "pve1" {
		t.Fatalf("VM moved by the request itself: on %s", g.Node)
	}
	haSettle(t, e, "vm:100", "started", "started", 4)
	if g := haGuest(t, e.sim, 100); g.Node != "pve3" || g.Status != "running" {
		t.Fatalf("after HA's rounds: VM on %s, %s", g.Node, g.Status)
	}

	info = e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve2/lxc/101/migrate", form("target", "pve1", "restart", "1")))
	if info.Type != "hamigrate" || !slices.Contains(info.Log, "Requesting HA migration for CT 101 to node pve1") {
		t.Fatalf("task %s, log %q", info.Type, info.Log)
	}
	for range 4 {
		e.sim.HAStep()
	}
	if g := haGuest(t, e.sim, 101); g.Node != "pve1" || g.Status != "running" {
		t.Fatalf("after HA's rounds: CT on %s, %s", g.Node, g.Status)
	}
}

// Start, stop and shutdown of an HA-managed guest are HA requests: a start
// sets the HA resource's state to started, a stop or shutdown queues the
// CRM's stop command, which sets it to stopped.
// qemu-server src/PVE/API2/Qemu.pm vm_start, vm_stop, vm_shutdown;
// pve-container src/PVE/API2/LXC/Status.pm; pve-ha-manager
// src/PVE/CLI/ha_manager.pm stop, src/PVE/HA/Manager.pm.
func TestHAGuestPowerIsARequest(t *testing.T) {
	t.Parallel()
	e := haGuestEnv(t)
	wantMessage(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/stop", form("overrule-shutdown", "1")),
		http.StatusBadRequest, "Parameter verification failed.\n")
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/shutdown", form("timeout", "30")))
	if info.Type != "hastop" || !slices.Contains(info.Log, "Requesting HA stop for VM 100") {
		t.Fatalf("task %s, log %q", info.Type, info.Log)
	}
	if g := haGuest(t, e.sim, 100); g.Status != "running" {
		t.Fatalf("VM stopped by the request itself")
	}
	haSettle(t, e, "vm:100", "stopped", "stopped", 4)
	if g := haGuest(t, e.sim, 100); g.Status != "stopped" {
		t.Fatalf("VM %s after HA's rounds", g.Status)
	}
	if got := haRead(t, e, "vm:100")["state"]; got != "stopped" {
		t.Fatalf("HA resource state = %v, want stopped", got)
	}

	info = e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil))
	if info.Type != "hastart" || !slices.Contains(info.Log, "Requesting HA start for VM 100") {
		t.Fatalf("task %s, log %q", info.Type, info.Log)
	}
	if got := haRead(t, e, "vm:100")["state"]; got != "started" {
		t.Fatalf("HA resource state = %v, want started", got)
	}
	haSettle(t, e, "vm:100", "started", "started", 4)
	if g := haGuest(t, e.sim, 100); g.Status != "running" {
		t.Fatalf("VM %s after HA's rounds", g.Status)
	}

	info = e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve2/lxc/101/status/stop", nil))
	if info.Type != "hastop" || !slices.Contains(info.Log, "Requesting HA stop for CT 101") {
		t.Fatalf("task %s, log %q", info.Type, info.Log)
	}
	haSettle(t, e, "ct:101", "stopped", "stopped", 4)
	if g := haGuest(t, e.sim, 101); g.Status != "stopped" {
		t.Fatalf("CT %s after HA's rounds", g.Status)
	}
	// A running container's start and a stopped one's stop still refuse first.
	wantMessage(t, e.call(t, http.MethodPost, "/nodes/pve2/lxc/101/status/shutdown", nil),
		http.StatusInternalServerError, "CT 101 not running\n")
}

// A request HA refuses fails the task with the ha-manager command's
// failure (PVE::Tools::run_command).
func TestHAGuestRequestRefusedFailsTheTask(t *testing.T) {
	t.Parallel()
	e := haGuestEnv(t)
	if err := e.sim.Update(func(c *Cluster) error {
		c.HA.Manager.Services["vm:100"].State = "error"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	info := e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil),
		"command 'ha-manager set vm:100 --state started' failed: exit code 255")
	if !slices.Contains(info.Log, "service 'vm:100' in error state, must be disabled and fixed first") {
		t.Fatalf("log %q", info.Log)
	}
}
