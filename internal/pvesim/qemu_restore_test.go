package pvesim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// postRestoreVM sends a VM restore of archive onto vmid on pve1.
func (e *env) postRestoreVM(t *testing.T, vmid, archive string, kv ...string) *answer {
	t.Helper()
	return e.call(t, http.MethodPost, "/nodes/pve1/qemu", form(append([]string{"vmid", vmid, "archive", archive}, kv...)...))
}

// W8, W21: a restore is a qmrestore task that recreates every backed-up
// disk, the cloud-init drive included, as a new volume of the new vmid on
// the requested storage; overrides replace the archive's keys, the rest
// is the archive's, MAC and smbios uuid kept, vmgenid new.
func TestQemuRestoreRecreatesDisksAndAppliesOverrides(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	info := e.taskOK(t, e.postRestoreVM(t, "200", SeedQemuBackup, "storage", "shared-nfs", "name", "restored", "cores", "4",
		"description", "restored\nmarker"))
	if info.Type != "qmrestore" || info.ID != "200" {
		t.Errorf("task = %+v", info)
	}
	cfg := e.vmConfig(t, "pve1", "200")
	wantConfig(t, cfg, map[string]string{
		"scsi0": "shared-nfs:200/vm-200-disk-0.raw,discard=on,iothread=1,size=16G",
		"scsi1": "shared-nfs:200/vm-200-disk-1.raw,size=4G",
		"ide2":  "shared-nfs:200/vm-200-cloudinit.raw,media=cdrom",
		"name":  "restored", "cores": "4", "memory": "2048", "tags": "prod;web", "ciuser": "debian",
		"net0":        "virtio=BC:24:11:5E:12:00,bridge=vmbr0,firewall=1",
		"smbios1":     "uuid=6f0c1c52-4d8e-4d5c-9a0b-2f4f8b1e1200",
		"description": "restored\nmarker", "lock": "",
	})
	if cfg["vmgenid"] == "" || cfg["vmgenid"] == "2d3f7e58-0a4b-4c61-8f2e-9b7d6c5a1200" {
		t.Errorf("vmgenid = %q, want a new one", cfg["vmgenid"])
	}
	wantVolids(t, e.sim, 200, "shared-nfs:200/vm-200-cloudinit.raw", "shared-nfs:200/vm-200-disk-0.raw", "shared-nfs:200/vm-200-disk-1.raw")
}

// Without storage each disk goes back to its original storage; unique
// gives new MACs and a new smbios uuid; pool joins the pool (W48).
func TestQemuRestoreUniqueOriginalStorageAndPool(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.taskOK(t, e.postRestoreVM(t, "201", SeedQemuBackup, "unique", "1", "pool", "prod"))
	cfg := e.vmConfig(t, "pve1", "201")
	wantConfig(t, cfg, map[string]string{"scsi0": "local-lvm:vm-201-disk-0,discard=on,iothread=1,size=16G"})
	if cfg["net0"] == "virtio=BC:24:11:5E:12:00,bridge=vmbr0,firewall=1" || cfg["smbios1"] == "uuid=6f0c1c52-4d8e-4d5c-9a0b-2f4f8b1e1200" {
		t.Errorf("unique kept identity: net0 %q smbios1 %q", cfg["net0"], cfg["smbios1"])
	}
	if p, _ := e.sim.Pool("prod"); !p.VMs[201] {
		t.Errorf("pool members = %v", p.VMs)
	}
}

// A drive may not be given with an archive: PVE's parameter error names it.
func TestQemuRestoreRefusesDriveOverride(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.postRestoreVM(t, "202", SeedQemuBackup, "scsi0", "local-lvm:8").wantParamError(t, "scsi0", "option conflicts with option 'archive'")
	e.postRestoreVM(t, "202", "local:backup/vzdump-qemu-9-x.vma.zst").wantStatus(t, http.StatusInternalServerError,
		"can't find file 'local:backup/vzdump-qemu-9-x.vma.zst'")
	e.postRestoreVM(t, "202", ctTemplate).wantStatus(t, http.StatusInternalServerError,
		"unable to use volume "+ctTemplate+" - content type needs to be 'backup'")
	if _, ok := e.sim.Guest(202); ok {
		t.Fatal("a refused restore left a guest behind")
	}
	// A container archive fails in the task: qemu-server
	// src/PVE/QemuServer.pm restore_tar_archive finds no qemu-server.conf.
	e.taskFails(t, e.postRestoreVM(t, "203", SeedLXCBackup),
		"ERROR: file '/var/lib/vz/dump/"+strings.TrimPrefix(SeedLXCBackup, "local:backup/")+
			"' does not look like a QemuServer vzdump backup")
	// A failed restore is not cleaned up: the VM stays, empty and unlocked.
	e.taskFails(t, e.postRestoreVM(t, "207", SeedQemuBackup, "live-restore", "1"),
		"live-restore is only compatible with backup images from a Proxmox Backup Server")
	if g, ok := e.sim.Guest(207); !ok || len(g.Config) != 0 {
		t.Errorf("guest after a failed restore = %+v, %v; want an empty config", g, ok)
	}
	wantVolids(t, e.sim, 207)
}

// W13: restoring onto a taken vmid is refused synchronously, with
// restore's prefix; with force the VM is overwritten: the old disks whose
// slots the archive restores go, a disk the archive does not hold (scsi2)
// is kept and the rescan lists it as unused0 (qemu-server
// src/PVE/QemuServer.pm $restore_cleanup_oldconf, rescan).
func TestW13QemuRestoreOntoTakenID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "204", "name", "old", "scsi0", "local-lvm:1", "scsi1", "local-lvm:1", "scsi2", "local-lvm:1")
	e.postRestoreVM(t, "204", SeedQemuBackup).wantStatus(t, http.StatusInternalServerError,
		"unable to restore VM 204 - VM 204 already exists on node 'pve1'")
	e.createCTForRestore(t, "205")
	e.postRestoreVM(t, "205", SeedQemuBackup, "force", "1").wantStatus(t, http.StatusInternalServerError,
		"unable to restore VM 205 - CT 205 already exists on node 'pve1'")
	e.taskOK(t, e.postRestoreVM(t, "204", SeedQemuBackup, "force", "1"))
	cfg := e.vmConfig(t, "pve1", "204")
	wantConfig(t, cfg, map[string]string{"name": "web-120", "scsi2": "", "unused0": "local-lvm:vm-204-disk-2"})
	wantVolids(t, e.sim, 204, "local-lvm:vm-204-cloudinit", "local-lvm:vm-204-disk-0", "local-lvm:vm-204-disk-1", "local-lvm:vm-204-disk-2")
}

// W10, W11: while the task runs the VM holds "lock: create", has no name
// and refuses config writes: the early check_lock first, then, with
// skiplock, the flock the restore worker holds (qemu-server
// src/PVE/API2/Qemu.pm $update_vm_api, create_vm).
func TestW11QemuRestoreLockedWhileRunning(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	a := e.postRestoreVM(t, "206", SeedQemuBackup)
	id := upid(t, a)
	r := resourceByID(t, resources(t, e, "vm"), "qemu/206")
	if r["lock"] != "create" || r["name"] != nil {
		t.Errorf("resource mid-restore = %v", r)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/206/config", form("cores", "2")).wantStatus(t, http.StatusInternalServerError,
		"VM is locked (create)")
	// The restore worker holds the config flock (Qemu.pm create_vm).
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/206/config", form("cores", "2", "skiplock", "1"), e.asRoot(t)).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-206.conf' - got timeout")
	clock.Advance(time.Minute)
	if info, _ := e.sim.Task(id); info.ExitStatus != "OK" {
		t.Fatalf("task = %+v", info)
	}
	if cfg := e.vmConfig(t, "pve1", "206"); cfg["lock"] != "" || cfg["name"] != "web-120" {
		t.Errorf("config after restore = %v", cfg)
	}
}

// createCTForRestore makes a container to restore over.
func (e *env) createCTForRestore(t *testing.T, vmid string) {
	t.Helper()
	e.taskOK(t, e.postCT(t, vmid, []string{"rootfs", "local-lvm:1", "hostname", "old-ct"}))
}

// qemu-server src/PVE/API2/Qemu.pm create_vm $restorefn runs
// check_protection($conf, $emsg) with $emsg "unable to restore VM N -", so
// the text carries two dashes; the create lock goes, the VM stays.
func TestQemuRestoreOverProtectedVM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "208", "name", "old", "scsi0", "local-lvm:1", "protection", "1")
	e.taskFails(t, e.postRestoreVM(t, "208", SeedQemuBackup, "force", "1"),
		"unable to restore VM 208 - - protection mode enabled")
	if cfg := e.vmConfig(t, "pve1", "208"); cfg["lock"] != "" || cfg["name"] != "old" {
		t.Errorf("config after the failed restore = %v", cfg)
	}
}
