package pvesim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// snapshotNames lists GET .../snapshot as name -> item.
func (e *env) snapshotItems(t *testing.T, kind, vmid string) map[string]map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, "/nodes/pve1/"+kind+"/"+vmid+"/snapshot", nil)
	a.wantOK(t)
	var items []map[string]any
	a.decode(t, &items)
	out := map[string]map[string]any{}
	for _, it := range items {
		out[it["name"].(string)] = it
	}
	return out
}

// Snapshot create, list, config and delete of a VM (qemu-server
// src/PVE/API2/Qemu.pm snapshot_list, snapshot, get_snapshot_config,
// delsnapshot; pve-guest-common src/PVE/AbstractConfig.pm
// snapshot_create/__snapshot_commit/snapshot_delete): the config gains
// "parent", the list ends with "current", the section holds the config
// at snapshot time, and GET config?snapshot= answers it with the digest.
func TestQemuSnapshotLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "memory", "1024", "ide2", "local-lvm:cloudinit")
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot",
		form("snapname", "first", "description", "before upgrade\n\n")))
	if info.Type != "qmsnapshot" {
		t.Errorf("task type %q", info.Type)
	}
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["parent"] != "first" || cfg["lock"] != "" {
		t.Fatalf("config after snapshot: parent %q lock %q", cfg["parent"], cfg["lock"])
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "2048")).wantOK(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "second")))

	items := e.snapshotItems(t, "qemu", "100")
	if len(items) != 3 {
		t.Fatalf("items = %v", items)
	}
	if items["first"]["description"] != "before upgrade" || items["first"]["vmstate"] != float64(0) {
		t.Errorf("first = %v", items["first"])
	}
	if _, ok := items["first"]["parent"]; ok {
		t.Errorf("first has a parent: %v", items["first"])
	}
	if items["second"]["parent"] != "first" || items["second"]["description"] != "" {
		t.Errorf("second = %v", items["second"])
	}
	cur := items["current"]
	if cur["parent"] != "second" || cur["running"] != float64(0) || cur["description"] != "You are here!" || cur["digest"] == "" {
		t.Errorf("current = %v", cur)
	}

	// The section keeps the memory of its time; get_snapshot_config has no
	// digest, GET config?snapshot= has.
	a := e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/snapshot/first/config", nil)
	a.wantOK(t)
	var snap map[string]any
	a.decode(t, &snap)
	if snap["memory"] != "1024" || snap["snaptime"] == nil || snap["digest"] != nil {
		t.Errorf("snapshot config = %v", snap)
	}
	sc := e.vmConfig(t, "pve1", "100", "snapshot", "first")
	if sc["memory"] != "1024" || sc["digest"] == "" || sc["parent"] != "" {
		t.Errorf("config?snapshot=first = %v", sc)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/config", form("snapshot", "nope")).
		wantStatus(t, http.StatusInternalServerError, "snapshot 'nope' does not exist")

	// update_snapshot_config sets the comment.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/snapshot/second/config", form("description", "two")).wantOK(t)
	if d := e.snapshotItems(t, "qemu", "100")["second"]["description"]; d != "two" {
		t.Errorf("description = %v", d)
	}

	// Deleting "first" relinks "second" to no parent.
	info = e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/first", nil))
	if info.Type != "qmdelsnapshot" {
		t.Errorf("task type %q", info.Type)
	}
	items = e.snapshotItems(t, "qemu", "100")
	if _, ok := items["first"]; ok || items["second"]["parent"] != nil {
		t.Errorf("after delete: %v", items)
	}
	e.taskFails(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/first", nil),
		"snapshot 'first' does not exist")
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/second", nil))
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["parent"] != "" {
		t.Errorf("parent after deleting all = %q", cfg["parent"])
	}
}

// The checks of the snapshot method and of __snapshot_prepare: reserved
// names before the fork (Qemu.pm snapshot, LXC/Snapshot.pm snapshot), a
// template, a lock, a used name and the storage's snapshot feature in the
// worker (AbstractConfig.pm __snapshot_prepare; pve-storage Plugin.pm
// volume_has_feature: a raw image on a directory storage has none).
func TestSnapshotCreateChecks(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	base := "/nodes/pve1/qemu/100/snapshot"
	e.call(t, http.MethodPost, base, form("snapname", "current")).
		wantStatus(t, http.StatusInternalServerError, "unable to use snapshot name 'current' (reserved name)")
	e.call(t, http.MethodPost, base, form("snapname", "PENDING")).
		wantStatus(t, http.StatusInternalServerError, "unable to use snapshot name 'pending' (reserved name)")
	e.call(t, http.MethodPost, base, form("snapname", "1abc")).wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	e.taskOK(t, e.call(t, http.MethodPost, base, form("snapname", "s1")))
	e.taskFails(t, e.call(t, http.MethodPost, base, form("snapname", "s1")), "snapshot name 's1' already used")
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	e.taskFails(t, e.call(t, http.MethodPost, base, form("snapname", "s2")), "VM is locked (backup)")
	if err := e.sim.SetLock(100, ""); err != nil {
		t.Fatal(err)
	}

	// Raw on a directory storage: no snapshot feature.
	e.createVM(t, "101", "scsi0", "shared-nfs:1,format=raw")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/snapshot", form("snapname", "s1")),
		"snapshot feature is not available")
	// qcow2 there has it.
	e.createVM(t, "102", "scsi0", "shared-nfs:1,format=qcow2")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/102/snapshot", form("snapname", "s1")))

	// A template cannot be snapshotted, and a VM with snapshots cannot
	// become a template (Qemu.pm template).
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/102/template", nil).
		wantStatus(t, http.StatusInternalServerError, "unable to create template, because VM contains snapshots")
	e.createVM(t, "103", "scsi0", "local-lvm:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/103/template", nil))
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/103/snapshot", form("snapname", "s1")),
		"you can't take a snapshot if it's a template")

	// A container's names: 'vzdump' is reserved, 'pending' is not; vmstate
	// is no parameter there.
	e.createCT(t, "200", "rootfs", "local-lvm:1")
	ct := "/nodes/pve1/lxc/200/snapshot"
	e.call(t, http.MethodPost, ct, form("snapname", "vzdump")).
		wantStatus(t, http.StatusInternalServerError, "unable to use snapshot name 'vzdump' (reserved name)")
	e.call(t, http.MethodPost, ct, form("snapname", "xx", "vmstate", "1")).
		wantParamError(t, "vmstate", "property is not defined in schema and the schema does not allow additional properties")
	info := e.taskOK(t, e.call(t, http.MethodPost, ct, form("snapname", "pending")))
	if info.Type != "vzsnapshot" {
		t.Errorf("task type %q", info.Type)
	}
}

// A running VM's snapshot with vmstate saves the RAM to a state volume
// (QemuConfig.pm __snapshot_save_vmstate: vm-ID-state-NAME, twice the
// memory plus 500 MiB); rollback stops the VM
// (__snapshot_rollback_vm_stop) and, with the RAM, starts it again
// (__snapshot_rollback_vm_start); deleting the snapshot frees the state.
func TestQemuSnapshotWithRAM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "memory", "512", "start", "1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "live", "vmstate", "1")))
	a := e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/snapshot/live/config", nil)
	var snap map[string]any
	a.decode(t, &snap)
	if snap["vmstate"] != "local-lvm:vm-100-state-live" || snap["runningmachine"] == nil {
		t.Fatalf("snapshot = %v", snap)
	}
	if items := e.snapshotItems(t, "qemu", "100"); items["live"]["vmstate"] != float64(1) || items["current"]["running"] != float64(1) {
		t.Errorf("items = %v", items)
	}
	var size int64
	e.sim.View(func(c *Cluster) { size = c.Volume("pve1", "local-lvm:vm-100-state-live").Size })
	if size != (512*2+500)*mib {
		t.Errorf("state volume size %d", size)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "1024")).wantOK(t)
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/live/rollback", nil))
	if info.Type != "qmrollback" {
		t.Errorf("task type %q", info.Type)
	}
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["memory"] != "512" || cfg["parent"] != "live" || cfg["runningmachine"] != "" || cfg["vmstate"] != "" {
		t.Errorf("config after rollback = %v", cfg)
	}
	if st := e.sim.PowerState(100); st != "running" {
		t.Errorf("power state after rollback with RAM = %q", st)
	}
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/live", nil))
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0")

	// virtiofs blocks a snapshot with RAM, before the fork
	// (QemuMigrate/Helpers.pm check_non_migratable_resources).
	if err := e.sim.SetGuestConfig(100, "virtiofs0", "share1"); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "xx", "vmstate", "1")).
		wantStatus(t, http.StatusInternalServerError, "Cannot live-migrate, snapshot (with RAM), or hibernate a VM with: virtiofs")
}

// Rollback (AbstractConfig.pm snapshot_rollback, __snapshot_apply_config):
// the snapshot's config replaces the current one except description and
// unusedN; a disk added since becomes unusedN
// (__snapshot_rollback_get_unused); the pending section is gone; the VM is
// stopped and stays stopped without start; start=1 starts it.
func TestQemuSnapshotRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "description", "mine")
	if err := e.sim.SetGuestConfig(100, "vmgenid", "c6a4bcd6-1b2b-4d1b-8a3e-5a7b3f0d9e11"); err != nil {
		t.Fatal(err)
	}
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")))
	gen := e.vmConfig(t, "pve1", "100")["vmgenid"]
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("scsi1", "local-lvm:1", "description", "new text")).wantOK(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cores", "4")).wantOK(t) // pending while running
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/s1/rollback", nil))
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi1"] != "" || cfg["unused0"] != "local-lvm:vm-100-disk-1" || cfg["description"] != "new text" ||
		cfg["cores"] != "" || cfg["parent"] != "s1" {
		t.Errorf("config after rollback = %v", cfg)
	}
	if cfg["vmgenid"] == gen || cfg["vmgenid"] == "" {
		t.Errorf("vmgenid %q not renewed (was %q)", cfg["vmgenid"], gen)
	}
	if st := e.sim.PowerState(100); st != "stopped" {
		t.Errorf("power state = %q", st)
	}
	// The unused disk is still named by no snapshot: it can go.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "unused0")).wantOK(t)

	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/s1/rollback", form("start", "1")))
	if st := e.sim.PowerState(100); st != "running" {
		t.Errorf("power state after start=1 = %q", st)
	}
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/nope/rollback", nil),
		"snapshot 'nope' does not exist")
}

// A disk named by a snapshot survives its removal from the config: it
// becomes unusedN, deleting that unusedN is refused while the snapshot
// names it (qemu-server QemuServer.pm try_deallocate_drive,
// Drive.pm is_volume_in_use), and deleting the snapshot keeps it as
// unusedN (AbstractConfig.pm snapshot_delete adds the snapshot's volumes,
// write_vm_config drops those still in use).
func TestSnapshotKeepsRemovedDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "scsi1", "local-lvm:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi1")).wantOK(t)
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["unused0"] != "local-lvm:vm-100-disk-1" {
		t.Fatalf("config = %v", cfg)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "unused0")).
		wantStatus(t, http.StatusInternalServerError, "unable to delete 'local-lvm:vm-100-disk-1' - volume is still in use (snapshot?)")
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/s1", nil))
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["unused0"] != "local-lvm:vm-100-disk-1" || cfg["unused1"] != "" {
		t.Errorf("config after delete = %v", cfg)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "unused0")).wantOK(t)
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0")
}

// The task holds its lock for its whole run: "snapshot" while it is
// created, "snapshot-delete" while deleted, "rollback" while rolled back
// (AbstractConfig.pm __snapshot_prepare, snapshot_delete set_lock,
// snapshot_rollback), and the section is in state "prepare" meanwhile.
func TestSnapshotLocksDuringTask(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:1"))
	clock.Advance(time.Minute)
	e.taskOK(t, a)

	wait := func(a *answer) {
		t.Helper()
		clock.Advance(time.Minute)
		e.taskOK(t, a)
	}
	a = e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1"))
	if lock := e.vmConfig(t, "pve1", "100")["lock"]; lock != "snapshot" {
		t.Errorf("lock during create = %q", lock)
	}
	if st := e.snapshotItems(t, "qemu", "100")["s1"]["snapstate"]; st != "prepare" {
		t.Errorf("snapstate during create = %v", st)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cores", "2")).
		wantStatus(t, http.StatusInternalServerError, "VM is locked (snapshot)")
	wait(a)

	a = e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/s1/rollback", nil)
	if lock := e.vmConfig(t, "pve1", "100")["lock"]; lock != "rollback" {
		t.Errorf("lock during rollback = %q", lock)
	}
	wait(a)
	a = e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/s1", nil)
	if lock := e.vmConfig(t, "pve1", "100")["lock"]; lock != "snapshot-delete" {
		t.Errorf("lock during delete = %q", lock)
	}
	if st := e.snapshotItems(t, "qemu", "100")["s1"]["snapstate"]; st != "delete" {
		t.Errorf("snapstate during delete = %v", st)
	}
	wait(a)
	if lock := e.vmConfig(t, "pve1", "100")["lock"]; lock != "" {
		t.Errorf("lock after = %q", lock)
	}
}

// Container snapshots (pve-container src/PVE/API2/LXC/Snapshot.pm,
// LXC/Config.pm): no vmstate in the list, the description reads back with
// a newline per line (parse_pct_config), rollback stops a running
// container and start=1 starts it; a directory storage's subvol has no
// snapshot feature (pve-storage Plugin.pm volume_has_feature).
func TestLXCSnapshot(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "200", "rootfs", "local-lvm:1", "memory", "512", "start", "1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot", form("snapname", "s1", "description", "one line")))
	items := e.snapshotItems(t, "lxc", "200")
	if _, ok := items["s1"]["vmstate"]; ok {
		t.Errorf("container snapshot with vmstate: %v", items["s1"])
	}
	if items["s1"]["description"] != "one line\n" || items["current"]["running"] != float64(1) {
		t.Errorf("items = %v", items)
	}
	if cfg := e.ctConfig(t, "pve1", "200"); cfg["parent"] != "s1" {
		t.Errorf("config = %v", cfg)
	}
	e.setCT(t, "200", []string{"memory", "1024"}).wantNull(t)
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot/s1/rollback", nil))
	if info.Type != "vzrollback" {
		t.Errorf("task type %q", info.Type)
	}
	if cfg := e.ctConfig(t, "pve1", "200"); cfg["memory"] != "512" {
		t.Errorf("memory after rollback = %v", cfg["memory"])
	}
	if st := e.sim.PowerState(200); st != "stopped" {
		t.Errorf("power state = %q", st)
	}
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot/s1/rollback", form("start", "1")))
	if st := e.sim.PowerState(200); st != "running" {
		t.Errorf("power state after start=1 = %q", st)
	}
	sc := e.ctConfig(t, "pve1", "200", "snapshot", "s1")
	if sc["memory"] != "512" || sc["digest"] == "" {
		t.Errorf("config?snapshot = %v", sc)
	}
	e.taskOK(t, e.ctPower(t, "200", "stop"))
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/template", nil).
		wantStatus(t, http.StatusInternalServerError, "unable to create template, because CT contains snapshots")
	info = e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/200/snapshot/s1", nil))
	if info.Type != "vzdelsnapshot" {
		t.Errorf("task type %q", info.Type)
	}

	addStorage(t, e, &Storage{ID: "ct-dir", Type: "dir", Content: []string{"rootdir"}, Capacity: 100 * gib,
		Config: map[string]string{"path": "/srv/ct"}})
	e.createCT(t, "201", "rootfs", "ct-dir:1")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/201/snapshot", form("snapname", "s1")),
		"snapshot feature is not available")
}

// ZFS rolls back only to the most recent snapshot (pve-storage
// ZFSPoolPlugin.pm volume_rollback_is_possible), checked in the worker.
func TestSnapshotRollbackZFSMostRecent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addStorage(t, e, &Storage{ID: "tank", Type: "zfspool", Content: []string{"images", "rootdir"},
		Capacity: 100 * gib, Config: map[string]string{"pool": "tank"}})
	e.createVM(t, "100", "scsi0", "tank:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "sa")))
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "sb")))
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/sa/rollback", nil),
		"can't rollback, 'sa' is not most recent snapshot on 'tank:vm-100-disk-0'")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/sb/rollback", nil))
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100/snapshot/sb", nil))
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/sa/rollback", nil))
}

// addStorage adds a storage to storage.cfg.
func addStorage(t *testing.T, e *env, st *Storage) {
	t.Helper()
	if err := e.sim.Update(func(c *Cluster) error {
		c.Storages = append(c.Storages, st)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Moving a disk a snapshot names: with delete=1 refused before the fork,
// without it copied with a warning, the source kept as unusedN
// (qemu-server src/PVE/API2/Qemu.pm move_vm_disk, is_volume_in_use).
func TestSnapshotMoveDisk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")))
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/move_disk", form("disk", "scsi0", "storage", "shared-nfs", "delete", "1")).
		wantStatus(t, http.StatusInternalServerError, "you can't move a disk with snapshots and delete the source")
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/move_disk", form("disk", "scsi0", "storage", "shared-nfs")))
	if !strings.Contains(strings.Join(info.Log, "\n"), "moving disk with snapshots, snapshots will not be moved!") {
		t.Errorf("log = %q", info.Log)
	}
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["unused0"] != "local-lvm:vm-100-disk-0" {
		t.Errorf("config = %v", cfg)
	}
}

// Clone from a snapshot (qemu-server Qemu.pm clone_vm, pve-container
// LXC.pm clone_vm): the snapshot's config is copied without the snapshot
// keys; the storage must offer copy from a snapshot (pve-storage
// ZFSPoolPlugin.pm has no 'copy' of 'snap').
func TestCloneFromSnapshot(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1", "memory", "1024")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("memory", "2048")).wantOK(t)
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "101", "snapname", "nope")).
		wantStatus(t, http.StatusInternalServerError, "snapshot 'nope' does not exist")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "101", "snapname", "s1")))
	cfg := e.vmConfig(t, "pve1", "101")
	if cfg["memory"] != "1024" || cfg["parent"] != "" || cfg["snaptime"] != "" || cfg["scsi0"] == "" {
		t.Errorf("clone config = %v", cfg)
	}

	addStorage(t, e, &Storage{ID: "tank", Type: "zfspool", Content: []string{"images", "rootdir"},
		Capacity: 100 * gib, Config: map[string]string{"pool": "tank"}})
	e.createVM(t, "102", "scsi0", "tank:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/102/snapshot", form("snapname", "s1")))
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/102/clone", form("newid", "103", "snapname", "s1")).
		wantStatus(t, http.StatusInternalServerError, "Full clone feature is not supported for a snapshot of 'tank:vm-102-disk-0' (scsi0)")

	e.createCT(t, "200", "rootfs", "local-lvm:1", "memory", "512")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot", form("snapname", "s1")))
	e.setCT(t, "200", []string{"memory", "1024"}).wantNull(t)
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/clone", form("newid", "201", "snapname", "s1")))
	if cfg := e.ctConfig(t, "pve1", "201"); cfg["memory"] != "512" || cfg["parent"] != "" {
		t.Errorf("container clone config = %v", cfg)
	}
}

// GET .../feature (qemu-server Qemu.pm vm_feature, pve-container LXC.pm
// vm_feature; pve-storage volume_has_feature tables, QemuServer.pm
// shared_nodes): LVM-thin can snapshot, raw on a directory cannot; a VM
// on local storage has only its node; a container answers hasFeature only.
func TestGuestFeature(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1", "ide2", "local:iso/debian-13-netinst.iso,media=cdrom")
	e.createVM(t, "101", "scsi0", "shared-nfs:1,format=raw")
	feature := func(kind, vmid string, kv ...string) map[string]any {
		t.Helper()
		var out map[string]any
		e.call(t, http.MethodGet, "/nodes/pve1/"+kind+"/"+vmid+"/feature", form(kv...)).decode(t, &out)
		return out
	}
	if f := feature("qemu", "100", "feature", "snapshot"); jsonText(f) != `{"hasFeature":1,"nodes":["pve1"]}` {
		t.Errorf("100 snapshot = %s", jsonText(f))
	}
	if f := feature("qemu", "101", "feature", "snapshot"); jsonText(f) != `{"hasFeature":0,"nodes":["pve1","pve2","pve3"]}` {
		t.Errorf("101 snapshot = %s", jsonText(f))
	}
	if f := feature("qemu", "101", "feature", "copy"); f["hasFeature"] != float64(1) {
		t.Errorf("101 copy = %v", f)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/feature", form("feature", "snapshot", "snapname", "nope")).
		wantStatus(t, http.StatusInternalServerError, "snapshot 'nope' does not exist")
	e.createCT(t, "200", "rootfs", "local-lvm:1")
	if f := feature("lxc", "200", "feature", "snapshot"); jsonText(f) != `{"hasFeature":1}` {
		t.Errorf("200 snapshot = %s", jsonText(f))
	}
}

// A container volume a snapshot names cannot move with delete=1
// (pve-container src/PVE/API2/LXC.pm move_volume,
// is_volume_in_use_by_snapshots).
func TestSnapshotMoveCTVolume(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	addStorage(t, e, &Storage{ID: "fast", Type: "lvmthin", Content: []string{"rootdir"}, Capacity: 100 * gib,
		Config: map[string]string{"vgname": "fast", "thinpool": "data"}})
	e.createCT(t, "200", "rootfs", "local-lvm:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot", form("snapname", "s1")))
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/move_volume", form("volume", "rootfs", "storage", "fast", "delete", "1")).
		wantStatus(t, http.StatusInternalServerError, "you can't move a volume with snapshots and delete the source")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/move_volume", form("volume", "rootfs", "storage", "fast")))
}

// Deleting a container's unusedN whose volume a snapshot names drops the
// entry and keeps the volume (pve-container LXC/Config.pm
// vmconfig_apply_pending: delete_mountpoint_volume unless
// is_volume_in_use with snapshots).
func TestSnapshotKeepsCTUnusedVolume(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "200", "rootfs", "local-lvm:1", "mp0", "local-lvm:1,mp=/data")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/200/snapshot", form("snapname", "s1")))
	e.setCT(t, "200", []string{"delete", "mp0"}).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "200"); cfg["unused0"] != "local-lvm:vm-200-disk-1" {
		t.Fatalf("config = %v", cfg)
	}
	e.setCT(t, "200", []string{"delete", "unused0"}).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "200"); cfg["unused0"] != "" {
		t.Errorf("config = %v", cfg)
	}
	wantVolids(t, e.sim, 200, "local-lvm:vm-200-disk-0", "local-lvm:vm-200-disk-1")
}

// A restore over a VM with snapshots leaves none, and frees their RAM
// state (qemu-server QemuServer.pm $restore_cleanup_oldconf: "after the
// restore we have no snapshots anymore").
func TestRestoreDropsSnapshots(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "204", "scsi0", "local-lvm:1", "start", "1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/204/snapshot", form("snapname", "s1", "vmstate", "1")))
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/204/status/stop", nil))
	e.taskOK(t, e.postRestoreVM(t, "204", SeedQemuBackup, "force", "1"))
	if items := e.snapshotItems(t, "qemu", "204"); len(items) != 1 {
		t.Errorf("snapshots after restore = %v", items)
	}
	for _, v := range volids(e.sim, 204) {
		if strings.Contains(v, "state-s1") {
			t.Errorf("state volume %s left", v)
		}
	}
}

// A snapshot task that dies cleans up after itself: snapshot_create's
// failure path deletes the half-made snapshot and its lock
// (AbstractConfig.pm snapshot_create: "snapshot create failed: starting
// cleanup").
func TestSnapshotCreateFailureCleansUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:1")
	injectTaskFail(t, e, "/nodes/{node}/qemu/{vmid}/snapshot")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")), "interrupted by signal")
	if items := e.snapshotItems(t, "qemu", "100"); len(items) != 1 {
		t.Errorf("snapshots = %v", items)
	}
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["lock"] != "" || cfg["parent"] != "" {
		t.Errorf("config = %v", cfg)
	}
}

// qemu-server src/PVE/API2/Qemu.pm rollback: since 7ba9640b (9.1.10, the
// PVE 9.2 updates) start=1 needs VM.PowerMgmt before the fork; before, the
// worker's vm_start class method checks nothing and the VM starts.
func TestQemuSnapshotRollbackStartPowerMgmtByRelease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		release string
		checked bool
	}{{"8.4", false}, {"9.1", false}, {"9.2", true}} {
		e := newEnv(t, Options{PVEVersion: tc.release})
		e.createVM(t, "100", "scsi0", "local-lvm:4")
		e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot", form("snapname", "s1")))
		e.sim.SetPrivileges(testTokenUser, "VM.Snapshot.Rollback", "VM.Audit")
		a := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/s1/rollback", form("start", "1"))
		if tc.checked {
			a.wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.PowerMgmt)")
			e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/snapshot/s1/rollback", nil))
			if st := e.sim.PowerState(100); st != "stopped" {
				t.Errorf("%s: power state = %q", tc.release, st)
			}
			continue
		}
		e.taskOK(t, a)
		if st := e.sim.PowerState(100); st != "running" {
			t.Errorf("%s: power state after start=1 without VM.PowerMgmt = %q", tc.release, st)
		}
	}
}
