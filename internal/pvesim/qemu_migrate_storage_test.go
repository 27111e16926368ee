package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// Offline migration with a storage map (qemu-server src/PVE/API2/Qemu.pm
// migrate_vm, QemuMigrate.pm scan_local_volumes/sync_offline_local_volumes,
// pve-storage Storage.pm storage_migrate): local volumes land on the mapped
// storage (same name on the same type, $volname_for_storage across types),
// shared volumes stay, the config follows.
func TestMigrateTargetStorage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addStorage(t, e, &Storage{ID: "fast", Type: "lvmthin", Content: []string{"images"}, Capacity: 100 * gib,
		Config: map[string]string{"vgname": "fast", "thinpool": "data"}})
	addStorage(t, e, &Storage{ID: "files", Type: "dir", Content: []string{"images"}, Capacity: 100 * gib,
		Config: map[string]string{"path": "/srv/files"}})
	migrate := func(node, vmid string, kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/"+node+"/qemu/"+vmid+"/migrate", form(kv...))
	}
	e.createVM(t, "100", "scsi0", "local-lvm:1", "scsi1", "shared-nfs:1")
	info := e.taskOK(t, migrate("pve1", "100", "target", "pve2", "targetstorage", "local-lvm:fast"))
	if !strings.Contains(strings.Join(info.Log, "\n"), "volume 'local-lvm:vm-100-disk-0' is 'fast:vm-100-disk-0' on the target") {
		t.Errorf("log = %q", info.Log)
	}
	cfg := e.vmConfig(t, "pve2", "100")
	if cfg["scsi0"] != "fast:vm-100-disk-0,size=1G" || cfg["scsi1"] != "shared-nfs:100/vm-100-disk-0.raw,size=1G" {
		t.Errorf("config = %v", cfg)
	}
	// A single storage maps every local storage; across types the name
	// becomes VMID/NAME.FMT on a directory storage.
	e.taskOK(t, migrate("pve2", "100", "target", "pve3", "targetstorage", "files"))
	if cfg := e.vmConfig(t, "pve3", "100"); cfg["scsi0"] != "files:100/vm-100-disk-0.raw,size=1G" {
		t.Errorf("config = %v", cfg)
	}
	var onTarget bool
	e.sim.View(func(c *Cluster) { onTarget = c.Volume("pve3", "files:100/vm-100-disk-0.raw") != nil })
	if !onTarget {
		t.Error("volume not on the target's storage")
	}

	// qcow2 cannot go to an LVM-thin storage ($volname_for_storage).
	e.createVM(t, "101", "scsi0", "files:1,format=qcow2")
	info = e.taskFails(t, migrate("pve1", "101", "target", "pve2", "targetstorage", "fast"), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"),
		"storage migration for 'files:101/vm-101-disk-0.qcow2' to storage 'fast' failed - unsupported format 'qcow2' for storage type lvmthin") {
		t.Errorf("log = %q", info.Log)
	}
	if g, _ := e.sim.Guest(101); g.Node != "pve1" || g.Config["lock"] != "" {
		t.Errorf("guest after failed migration = %+v", g)
	}

	// $check_storage_access_migrate, before the fork.
	migrate("pve1", "101", "target", "pve2", "targetstorage", "local").
		wantStatus(t, http.StatusInternalServerError, "storage 'local' does not support vm images")
	migrate("pve1", "101", "target", "pve2", "targetstorage", "files:fast,files:local-lvm").
		wantParamError(t, "targetstorage", "failed to parse storage map: duplicate mapping for source 'files'\n")
	migrate("pve1", "101", "target", "pve2", "targetstorage", "1,fast").
		wantParamError(t, "targetstorage", "failed to parse storage map: identity mapping cannot be combined with other mappings\n")
	migrate("pve1", "101", "target", "pve2", "targetstorage", "nope").
		wantStatus(t, http.StatusInternalServerError, "storage 'nope' does not exist")
}

// A real map needs VM.Config.Disk and Datastore.AllocateSpace on each
// target storage; the identity map "1" needs neither (Qemu.pm migrate_vm).
func TestMigrateTargetStoragePermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1")
	e.sim.SetPrivileges(testTokenUser, "VM.Migrate", "VM.Audit")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2", "targetstorage", "local-lvm")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Disk)")
	e.sim.SetPrivileges(testTokenUser, "VM.Migrate", "VM.Audit", "VM.Config.Disk")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2", "targetstorage", "local-lvm")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)")
	e.sim.SetPrivileges(testTokenUser, "VM.Migrate", "VM.Audit")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2", "targetstorage", "1")))
}

// A local volume a snapshot names migrates only offline and only where the
// snapshots can travel; on LVM-thin it cannot (QemuMigrate.pm
// scan_local_volumes). The RAM state of a snapshot is a local volume too.
func TestMigrateWithSnapshots(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")))
	info := e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2")), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"), "can't migrate local disk 'local-lvm:vm-100-disk-0': non-migratable snapshot exists") {
		t.Errorf("log = %q", info.Log)
	}

	// qcow2 files carry their snapshots.
	addStorage(t, e, &Storage{ID: "files", Type: "dir", Content: []string{"images"}, Capacity: 100 * gib,
		Config: map[string]string{"path": "/srv/files"}})
	e.createVM(t, "101", "scsi0", "files:1,format=qcow2")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/snapshot", form("snapname", "s1")))
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/migrate", form("target", "pve2")))
	a := e.call(t, http.MethodGet, "/nodes/pve2/qemu/101/snapshot/s1/config", nil)
	var snap map[string]any
	a.decode(t, &snap)
	if snap["scsi0"] != "files:101/vm-101-disk-0.qcow2,size=1G" {
		t.Errorf("snapshot = %v", snap)
	}
}

// Container migration with target-storage (pve-container
// src/PVE/API2/LXC.pm migrate_vm, LXC/Migrate.pm prepare/phase1): the
// rootfs lands on the mapped storage, a storage without rootdir content is
// refused before the fork, and a local volume a snapshot names cannot move
// off LVM-thin.
func TestMigrateCTTargetStorage(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	addStorage(t, e, &Storage{ID: "fast", Type: "lvmthin", Content: []string{"images", "rootdir"}, Capacity: 100 * gib,
		Config: map[string]string{"vgname": "fast", "thinpool": "data"}})
	e.createCT(t, "200", "rootfs", "local-lvm:1")
	migrate := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/migrate", form(kv...))
	}
	migrate("target", "pve2", "target-storage", "shared-nfs").
		wantStatus(t, http.StatusInternalServerError, "storage 'shared-nfs' does not support CT rootdirs")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot", form("snapname", "s1")))
	info := e.taskFails(t, migrate("target", "pve2", "target-storage", "fast"), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"), "can't migrate local volume 'local-lvm:vm-200-disk-0': non-migratable snapshot exists") {
		t.Errorf("log = %q", info.Log)
	}
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/200/snapshot/s1", nil))
	e.taskOK(t, migrate("target", "pve2", "target-storage", "local-lvm:fast"))
	if cfg := e.ctConfig(t, "pve2", "200"); !strings.HasPrefix(cfg["rootfs"], "fast:vm-200-disk-0,") {
		t.Errorf("config = %v", cfg)
	}
}

// A running VM's attached disks are mirrored online into disks the target
// allocates on the mapped storage, in a format that storage takes
// (qemu-server QemuServer.pm vm_migrate_alloc_nbd_disks,
// resolve_format_hint): qcow2 can go to LVM-thin this way.
func TestMigrateOnlineTargetStorage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addStorage(t, e, &Storage{ID: "fast", Type: "lvmthin", Content: []string{"images"}, Capacity: 100 * gib,
		Config: map[string]string{"vgname": "fast", "thinpool": "data"}})
	addStorage(t, e, &Storage{ID: "files", Type: "dir", Content: []string{"images"}, Capacity: 100 * gib,
		Config: map[string]string{"path": "/srv/files"}})
	e.createVM(t, "100", "scsi0", "files:1,format=qcow2", "start", "1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate",
		form("target", "pve2", "online", "1", "with-local-disks", "1", "targetstorage", "fast")))
	if cfg := e.vmConfig(t, "pve2", "100"); cfg["scsi0"] != "fast:vm-100-disk-0,format=raw,size=1G" {
		t.Errorf("config = %v", cfg)
	}
	if st := e.sim.PowerState(100); st != "running" {
		t.Errorf("power state = %q", st)
	}
}
