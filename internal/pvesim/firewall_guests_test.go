package pvesim

import (
	"net/http"
	"testing"
)

// A guest's firewall file goes with the guest: clone copies it (replacing
// a stale file of the new VMID, or removing it when the source has none),
// destroy removes it (qemu-server src/PVE/API2/Qemu.pm clone_vm,
// destroy_vm; pve-firewall src/PVE/Firewall/Helpers.pm clone_vmfw_conf,
// remove_vmfw_conf). The firewall API does not ask whether the guest
// exists.
func TestFirewallFollowsQemuCloneAndDestroy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1")
	e.createVM(t, "101", "scsi0", "local-lvm:1")
	src := "/nodes/pve1/qemu/100/firewall"
	e.call(t, http.MethodPost, src+"/rules", form("type", "in", "action", "ACCEPT", "macro", "SSH", "comment", "src")).wantNull(t)
	e.call(t, http.MethodPut, src+"/options", form("enable", "1")).wantNull(t)
	// files of VMIDs that have no guest
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/200/firewall/rules", form("type", "in", "action", "DROP", "comment", "stale")).wantNull(t)
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/201/firewall/rules", form("type", "in", "action", "DROP", "comment", "stale")).wantNull(t)

	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "200")))
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/clone", form("newid", "201")))
	if got := fwActions(e.fwRules(t, "/nodes/pve1/qemu/200/firewall/rules")); got != "ACCEPT:src" {
		t.Fatalf("clone's rules = %s", got)
	}
	if got := e.fwOptions(t, "/nodes/pve1/qemu/200/firewall/options"); got["enable"] != float64(1) {
		t.Fatalf("clone's options = %v", got)
	}
	if got := e.fwRules(t, "/nodes/pve1/qemu/201/firewall/rules"); len(got) != 0 {
		t.Fatalf("stale rules survived the clone: %v", got)
	}
	// the copy is independent of the source
	e.call(t, http.MethodDelete, "/nodes/pve1/qemu/200/firewall/rules/0", nil).wantNull(t)
	if got := fwActions(e.fwRules(t, src+"/rules")); got != "ACCEPT:src" {
		t.Fatalf("source rules = %s", got)
	}

	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil))
	if got := e.fwRules(t, src+"/rules"); len(got) != 0 {
		t.Fatalf("destroyed VM's rules = %v", got)
	}
	if got := e.fwOptions(t, src+"/options"); len(got) != 1 {
		t.Fatalf("destroyed VM's options = %v", got)
	}
}

// pve-container src/PVE/API2/LXC.pm clone_vm and destroy_vm do the same.
func TestFirewallFollowsCTCloneAndDestroy(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "300", "rootfs", "local-lvm:1")
	src := "/nodes/pve1/lxc/300/firewall/rules"
	e.call(t, http.MethodPost, src, form("type", "out", "action", "DROP", "comment", "ct")).wantNull(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/300/clone", form("newid", "301")))
	if got := fwActions(e.fwRules(t, "/nodes/pve1/lxc/301/firewall/rules")); got != "DROP:ct" {
		t.Fatalf("clone's rules = %s", got)
	}
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/300", nil))
	if got := e.fwRules(t, src); len(got) != 0 {
		t.Fatalf("destroyed CT's rules = %v", got)
	}
	if got := fwActions(e.fwRules(t, "/nodes/pve1/lxc/301/firewall/rules")); got != "DROP:ct" {
		t.Fatalf("clone's rules after the source's destroy = %s", got)
	}
}
