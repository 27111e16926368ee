package pvesim

import (
	"strings"
	"testing"
)

// qemu-server src/PVE/VZDump/QemuServer.pm prepare and assemble: a disk
// marked backup=0 is left out of the archive (no "#qmdump#map" line) but
// its line stays in the archived config. src/PVE/QemuServer.pm
// restore_update_config_line writes that line back as a comment, which
// parse_vm_config adds to the description after the archive's own
// description lines; restore_merge_config lets a description given with
// the restore replace it.
func TestQemuRestoreExcludedDiskBecomesDescriptionLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "150", "name", "src", "description", "web server\nnightly",
		"scsi0", "local-lvm:2", "scsi1", "local-lvm:1,backup=0")
	volid, err := e.sim.BackupGuest(150, "local")
	if err != nil {
		t.Fatal(err)
	}
	text := e.extractConfig(t, "pve1", volid).text(t)
	if !strings.Contains(text, "\nscsi1: local-lvm:vm-150-disk-1,backup=0,size=1G\n") ||
		!strings.Contains(text, "#qmdump#map:scsi0:") || strings.Contains(text, "#qmdump#map:scsi1:") {
		t.Errorf("archived config:\n%s", text)
	}
	const excluded = "scsi1: local-lvm:vm-150-disk-1,backup=0,size=1G"

	e.taskOK(t, e.postRestoreVM(t, "151", volid))
	wantConfig(t, e.vmConfig(t, "pve1", "151"), map[string]string{
		"scsi0":       "local-lvm:vm-151-disk-0,size=2G",
		"scsi1":       "",
		"description": "web server\nnightly\n" + excluded,
	})
	wantVolids(t, e.sim, 151, "local-lvm:vm-151-disk-0")

	e.taskOK(t, e.postRestoreVM(t, "152", volid, "description", "mine"))
	wantConfig(t, e.vmConfig(t, "pve1", "152"), map[string]string{"description": "mine", "scsi1": ""})

	// Without a description of its own the comment line is the whole
	// description.
	e.createVM(t, "160", "scsi0", "local-lvm:1", "virtio1", "local-lvm:1,backup=0")
	volid160, err := e.sim.BackupGuest(160, "local")
	if err != nil {
		t.Fatal(err)
	}
	e.taskOK(t, e.postRestoreVM(t, "161", volid160))
	wantConfig(t, e.vmConfig(t, "pve1", "161"), map[string]string{
		"description": "virtio1: local-lvm:vm-160-disk-1,backup=0,size=1G", "virtio1": "",
	})
}

// qemu-server src/PVE/QemuServer.pm $restore_cleanup_oldconf: a forced
// restore over the VM frees only the old disks the archive restores; the
// disk excluded from the backup is kept, and rescan (update_disk_config)
// adds it back as unused0.
func TestQemuForcedRestoreKeepsExcludedDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "150", "scsi0", "local-lvm:2", "scsi1", "local-lvm:1,backup=0")
	volid, err := e.sim.BackupGuest(150, "local")
	if err != nil {
		t.Fatal(err)
	}
	info := e.taskOK(t, e.postRestoreVM(t, "150", volid, "force", "1"))
	if log := strings.Join(info.Log, "\n"); !strings.Contains(log,
		"rescan volumes...\nVM 150 add unreferenced volume 'local-lvm:vm-150-disk-1' as 'unused0' to config") {
		t.Errorf("restore log:\n%s", log)
	}
	wantConfig(t, e.vmConfig(t, "pve1", "150"), map[string]string{
		"scsi0":       "local-lvm:vm-150-disk-0,size=2G",
		"scsi1":       "",
		"unused0":     "local-lvm:vm-150-disk-1",
		"description": "scsi1: local-lvm:vm-150-disk-1,backup=0,size=1G",
	})
	wantVolids(t, e.sim, 150, "local-lvm:vm-150-disk-0", "local-lvm:vm-150-disk-1")
}
