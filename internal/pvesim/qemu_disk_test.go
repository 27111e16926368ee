package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

func (e *env) resize(t *testing.T, vmid, disk, size string) *answer {
	t.Helper()
	return e.call(t, http.MethodPut, "/nodes/pve1/qemu/"+vmid+"/resize", form("disk", disk, "size", size))
}

func volumeSizeOf(t *testing.T, s *Sim, volid string) int64 {
	t.Helper()
	storage, _, _ := strings.Cut(volid, ":")
	for _, v := range s.Volumes(storage) {
		if v.VolID == volid {
			return v.Size
		}
	}
	t.Fatalf("no volume %s", volid)
	return 0
}

// W22: resize is a task; "+N" grows, the same size is a no-op, a smaller
// absolute size fails in the task; the volume and the config's size= follow.
func TestW22Resize(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:32", "ide2", "local:iso/debian-13-netinst.iso,media=cdrom")
	info := e.taskOK(t, e.resize(t, "100", "scsi0", "+2G"))
	if info.Type != "resize" {
		t.Errorf("task type %q", info.Type)
	}
	if got := e.vmConfig(t, "pve1", "100")["scsi0"]; got != "local-lvm:vm-100-disk-0,size=34G" {
		t.Errorf("scsi0 = %q", got)
	}
	if got := volumeSizeOf(t, e.sim, "local-lvm:vm-100-disk-0"); got != 34*gib {
		t.Errorf("volume size = %d", got)
	}
	e.taskOK(t, e.resize(t, "100", "scsi0", "34G"))
	e.taskFails(t, e.resize(t, "100", "scsi0", "16G"), "shrinking disks is not supported")
	e.taskFails(t, e.resize(t, "100", "scsi5", "+1G"), "disk 'scsi5' does not exist")
	e.taskFails(t, e.resize(t, "100", "ide2", "+1G"), "you can't resize a cdrom")
	e.taskFails(t, e.resize(t, "999", "scsi0", "+1G"), "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist")
	if got := volumeSizeOf(t, e.sim, "local-lvm:vm-100-disk-0"); got != 34*gib {
		t.Errorf("volume size after refusals = %d", got)
	}
}

// W23: move_disk copies the data to a new volume on the target storage;
// the source is kept as unusedN, or destroyed with delete=1.
func TestW23MoveDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8,discard=on", "scsi1", "local-lvm:4",
		"ide2", "local:iso/debian-13-netinst.iso,media=cdrom")
	move := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/move_disk", form(kv...))
	}
	info := e.taskOK(t, move("disk", "scsi0", "storage", "shared-nfs"))
	if info.Type != "qmmove" {
		t.Errorf("task type %q", info.Type)
	}
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi0"] != "shared-nfs:100/vm-100-disk-0.raw,discard=on,size=8G" || cfg["unused0"] != "local-lvm:vm-100-disk-0" {
		t.Errorf("config = %v", cfg)
	}
	e.taskOK(t, move("disk", "scsi1", "storage", "shared-nfs", "format", "qcow2", "delete", "1"))
	cfg = e.vmConfig(t, "pve1", "100")
	if cfg["scsi1"] != "shared-nfs:100/vm-100-disk-1.qcow2,size=4G" || cfg["unused1"] != "" {
		t.Errorf("config = %v", cfg)
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "shared-nfs:100/vm-100-disk-0.raw", "shared-nfs:100/vm-100-disk-1.qcow2")

	move("disk", "scsi0", "storage", "shared-nfs").
		wantStatus(t, http.StatusInternalServerError, "you can't move to the same storage with same format")
	move("disk", "scsi0", "storage", "local").wantParamError(t, "storage", "storage 'local' does not support vm images")
	move("disk", "ide2", "storage", "local-lvm").wantStatus(t, http.StatusInternalServerError, "you can't move a cdrom")
	move("disk", "scsi7", "storage", "local-lvm").wantStatus(t, http.StatusInternalServerError, "disk 'scsi7' does not exist")
	move("disk", "scsi0").wantParamError(t, "storage", "both 'storage' and 'target-vmid' missing, either needs to be set")
}

// qemu-server src/PVE/API2/Qemu.pm move_vm_disk refuses a CD-ROM with
// drive_is_cdrom($drive, 1), which excludes cloud-init drives: those move.
func TestMoveCloudInitDrive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "ide0", "local-lvm:cloudinit")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/move_disk",
		form("disk", "ide0", "storage", "shared-nfs", "delete", "1")))
	cfg := e.vmConfig(t, "pve1", "100")
	if !strings.HasPrefix(cfg["ide0"], "shared-nfs:100/vm-100-cloudinit.") || !strings.Contains(cfg["ide0"], "media=cdrom") {
		t.Errorf("ide0 = %q", cfg["ide0"])
	}
}
