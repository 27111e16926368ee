package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// extractConfig sends GET /nodes/{node}/vzdump/extractconfig.
func (e *env) extractConfig(t *testing.T, node, volid string) *answer {
	t.Helper()
	return e.call(t, http.MethodGet, "/nodes/"+node+"/vzdump/extractconfig", form("volume", volid))
}

func (a *answer) text(t *testing.T) string {
	t.Helper()
	a.wantOK(t)
	var s string
	a.decode(t, &s)
	return s
}

// W40: every node starts with one VM and one container archive whose
// embedded config extractconfig returns as config file text: the VM's
// with vzdump's "#qmdump#map" lines, the container's with its sized
// rootfs and mount point.
func TestW40ExtractConfigOfSeededArchives(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Nodes: 2})
	vm := e.extractConfig(t, "pve2", SeedQemuBackup).text(t)
	for _, want := range []string{
		"#web server, backed up nightly\n", "scsi0: local-lvm:vm-120-disk-0,discard=on,iothread=1,size=16G\n",
		"ide2: local-lvm:vm-120-cloudinit,media=cdrom\n", "tags: prod;web\n", "#qmdump#map:scsi1:drive-scsi1:local-lvm:raw:\n",
	} {
		if !strings.Contains(vm, want) {
			t.Errorf("VM archive config lacks %q:\n%s", want, vm)
		}
	}
	ct := parseConfigText(e.extractConfig(t, "pve1", SeedLXCBackup).text(t))
	wantConfig(t, ct, map[string]string{
		"rootfs": "local-lvm:vm-130-disk-0,size=4G", "mp0": "local-lvm:vm-130-disk-1,mp=/var/cache/app,backup=1,size=2G",
		"hostname": "cache-130", "description": "cache container",
	})
	a := e.call(t, http.MethodGet, "/nodes/pve1/storage/local/content", form("content", "backup"))
	var list []map[string]any
	a.decode(t, &list)
	if len(list) != 2 || list[0]["volid"] != SeedLXCBackup || list[0]["vmid"] != float64(130) || list[0]["format"] != "tar.zst" ||
		list[1]["volid"] != SeedQemuBackup || list[1]["format"] != "vma.zst" {
		t.Errorf("backup content = %v", list)
	}
}

// W4: a missing archive and a volume that is no backup are refused with
// PVE's 500s.
func TestW40ExtractConfigErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	missing := "local:backup/vzdump-qemu-999-2026_01_01-00_00_00.vma.zst"
	e.extractConfig(t, "pve1", missing).wantStatus(t, http.StatusInternalServerError, "can't find file '"+missing+"'")
	e.extractConfig(t, "pve1", "local:iso/debian-13-netinst.iso").wantStatus(t, http.StatusInternalServerError,
		"unable to use volume local:iso/debian-13-netinst.iso - content type needs to be 'backup'")
	e.extractConfig(t, "pve1", "nosuch:backup/vzdump-lxc-1-x.tar").wantStatus(t, http.StatusInternalServerError,
		"storage 'nosuch' does not exist")
}

// extractconfig needs VM.Backup on the archive's guest (W49).
func TestExtractConfigNeedsVMBackup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "Datastore.Allocate", "Datastore.AllocateSpace")
	e.extractConfig(t, "pve1", SeedLXCBackup).wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/130, VM.Backup)")
}

// A test can back up a guest it made and read the archive's config back.
func TestBackupGuestEmbedsItsConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "150", "name", "src", "scsi0", "local-lvm:2", "cores", "3")
	volid, err := e.sim.BackupGuest(150, "local")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(volid, "local:backup/vzdump-qemu-150-") || !strings.HasSuffix(volid, ".vma.zst") {
		t.Fatalf("volid = %q", volid)
	}
	text := e.extractConfig(t, "pve1", volid).text(t)
	cfg := parseConfigText(text)
	wantConfig(t, cfg, map[string]string{"name": "src", "cores": "3", "scsi0": "local-lvm:vm-150-disk-0,size=2G"})
	if !strings.Contains(text, "#qmdump#map:scsi0:drive-scsi0:local-lvm::\n") {
		t.Errorf("no map line in\n%s", text)
	}
	if err := e.sim.AddBackup("pve1", "local-lvm:backup/vzdump-lxc-1-x.tar", "rootfs: a\n"); err == nil {
		t.Error("AddBackup accepted a storage without backup content")
	}
}

// W49: restoring another guest's backup needs Datastore.AllocateSpace on
// the storage and VM.Backup on the guest the archive was made from.
func TestRestoreOfAnotherGuestsBackupNeedsVMBackup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "Datastore.AllocateSpace", "VM.Config.Disk", "VM.Config.CPU",
		"VM.Config.Memory", "VM.Config.Network", "VM.Config.Options")
	e.postRestoreVM(t, "210", SeedQemuBackup, "storage", "local-lvm").wantStatus(t, http.StatusForbidden,
		"Permission check failed (/vms/120, VM.Backup)")
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "Datastore.AllocateSpace", "VM.Backup", "VM.Config.Disk", "VM.Config.CPU",
		"VM.Config.Memory", "VM.Config.Network", "VM.Config.Options")
	e.taskOK(t, e.postRestoreVM(t, "210", SeedQemuBackup, "storage", "local-lvm"))
}
