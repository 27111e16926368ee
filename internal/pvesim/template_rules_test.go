package pvesim

import (
	"net/http"
	"testing"
)

// W17, W22: a template's disk grows like any other: qemu-server
// src/PVE/API2/Qemu.pm resize_vm checks no template flag and pve-storage's
// volume_resize has no base-volume case. The same size is still a no-op.
func TestW17TemplateDiskGrows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil))
	e.taskOK(t, e.resize(t, "100", "scsi0", "+1G"))
	if got := volumeSizeOf(t, e.sim, "local-lvm:base-100-disk-0"); got != 5<<30 {
		t.Errorf("base volume size = %d", got)
	}
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["scsi0"] != "local-lvm:base-100-disk-0,size=5G" {
		t.Errorf("scsi0 = %q", cfg["scsi0"])
	}
	e.taskOK(t, e.resize(t, "100", "scsi0", "5G"))
}

// W17, W22: the same for a container template's root disk (pve-container
// src/PVE/API2/LXC.pm resize_vm checks no template flag either).
func TestW17CTTemplateVolumeGrows(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantNull(t)
	e.taskOK(t, e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", "rootfs", "size", "+1G")))
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["rootfs"] != "local-lvm:base-100-disk-0,size=5G" {
		t.Errorf("rootfs = %q", cfg["rootfs"])
	}
}

// W17: destroying a container template whose base volume backs a linked
// clone fails in the destroy task with vdisk_free's error (the volume
// named without its storage); the template and its volumes stay. Once the
// clone is gone the template is destroyed.
func TestW17CTTemplateWithLinkedCloneIsNotDestroyed(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantNull(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/clone", form("newid", "101", "hostname", "linked")))
	if cfg := e.ctConfig(t, "pve1", "101"); cfg["rootfs"] != "local-lvm:vm-101-disk-0,size=4G" {
		t.Fatalf("linked clone rootfs = %q", cfg["rootfs"])
	}

	e.taskFails(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil),
		"base volume 'base-100-disk-0' is still in use by linked clones")
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["template"] != "1" {
		t.Errorf("template config after refused destroy = %v", cfg)
	}
	wantVolids(t, e.sim, 100, "local-lvm:base-100-disk-0")

	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/101", nil))
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil))
	wantVolids(t, e.sim, 100)
}
