package pvesim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Destroy: a running or protected VM is refused synchronously; the task
// frees the VM's own volumes (disks, unusedN, cloud-init, EFI vars) and
// removes it from its pool; a volume it owns but does not reference stays
// unless destroy-unreferenced-disks is set.
func TestDestroy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.createVM(t, "100", "scsi0", "local-lvm:4", "scsi1", "local-lvm:2", "ide2", "local-lvm:cloudinit",
		"efidisk0", "local-lvm:1", "ide0", "local:iso/debian-13-netinst.iso,media=cdrom", "pool", "prod", "start", "1")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi1")).wantOK(t)
	e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil).
		wantStatus(t, http.StatusInternalServerError, "VM 100 is running - destroy failed")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/stop", nil))
	// An image of vmid 100 that its config does not name.
	if err := e.sim.Update(func(c *Cluster) error {
		return c.AddVolume(&Volume{VolID: "local-lvm:vm-100-disk-9", Storage: "local-lvm", Node: "pve1",
			Content: "images", Format: "raw", Size: gib, Owner: 100})
	}); err != nil {
		t.Fatal(err)
	}
	info := e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", form("purge", "1")))
	if info.Type != "qmdestroy" {
		t.Errorf("task type %q", info.Type)
	}
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("guest still there")
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-9")
	if p, _ := e.sim.Pool("prod"); p.VMs[100] {
		t.Error("destroyed VM still in its pool")
	}
	if len(e.sim.Volumes("local")) != 3*seedLocalVolumes {
		t.Error("the ISO went with the VM")
	}

	e.createVM(t, "100")
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", form("destroy-unreferenced-disks", "1")))
	wantVolids(t, e.sim, 100)
}

// Destroy checks the lock inside its task.
func TestDestroyLocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	e.taskFails(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil), "VM is locked (backup)")
}

// W17: a template's disks become base volumes (the cloud-init drive is a
// CD-ROM and stays); a template cannot be converted again or started.
func TestTemplate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "scsi1", "shared-nfs:1", "ide2", "local-lvm:cloudinit")
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil))
	if info.Type != "qmtemplate" {
		t.Errorf("task type %q", info.Type)
	}
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["template"] != "1" || cfg["scsi0"] != "local-lvm:base-100-disk-0,size=4G" ||
		cfg["scsi1"] != "shared-nfs:100/base-100-disk-0.raw,size=1G" || cfg["ide2"] != "local-lvm:vm-100-cloudinit,media=cdrom" {
		t.Errorf("config = %v", cfg)
	}
	wantVolids(t, e.sim, 100, "local-lvm:base-100-disk-0", "local-lvm:vm-100-cloudinit", "shared-nfs:100/base-100-disk-0.raw")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil).
		wantStatus(t, http.StatusInternalServerError, "you can't convert a template to a template")
	// W17: there is no way back.
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/untemplate", nil).
		wantStatus(t, http.StatusNotImplemented, "Method 'POST /nodes/pve1/qemu/100/untemplate' not implemented")

	e.createVM(t, "101", "start", "1")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/101/template", nil).
		wantStatus(t, http.StatusInternalServerError, "you can't convert a VM to template if VM is running")
	// A new disk of a template is a base volume at once.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("scsi2", "local-lvm:1")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "100")["scsi2"]; got != "local-lvm:base-100-disk-1,size=1G" {
		t.Errorf("scsi2 = %q", got)
	}
}

// W13, W14: clone onto a taken id or from a missing source fails
// synchronously; a storage without images is a 400 and leaves no VM.
func TestW13W14CloneRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	e.createVM(t, "101")
	clone := func(path string, kv ...string) *answer {
		return e.call(t, http.MethodPost, path, form(kv...))
	}
	clone("/nodes/pve1/qemu/100/clone", "newid", "101").
		wantStatus(t, http.StatusInternalServerError, "unable to create VM 101: config file already exists")
	clone("/nodes/pve1/qemu/999/clone", "newid", "102").
		wantStatus(t, http.StatusInternalServerError, "unable to find configuration file for VM 999 on node 'pve1'")
	clone("/nodes/pve1/qemu/100/clone", "newid", "102", "storage", "local").
		wantParamError(t, "storage", "storage 'local' does not support vm images")
	clone("/nodes/pve1/qemu/100/clone", "newid", "102", "start", "1").
		wantParamError(t, "start", "property is not defined in schema and the schema does not allow additional properties")
	clone("/nodes/pve1/qemu/100/clone", "newid", "102", "target", "pve2").
		wantStatus(t, http.StatusInternalServerError, "can't clone VM to node 'pve2' (VM uses local storage)")
	clone("/nodes/pve1/qemu/100/clone", "newid", "102", "full", "0").
		wantStatus(t, http.StatusInternalServerError, "Linked clone feature is not supported for 'local-lvm:vm-100-disk-0' (scsi0)")
	if _, ok := e.sim.Guest(102); ok {
		t.Fatal("refused clone left a VM")
	}
}

// W14: a full clone copies the config (cloud-init data, onboot, tags, boot
// order, hardware, meta) but not the name, with new vmgenid, smbios1 uuid
// and MACs, and new volumes; W11: the target is nameless and locked while
// the task runs.
func TestW14FullClone(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Second, Now: clock.Now})
	done := func(a *answer) {
		t.Helper()
		u := upid(t, a)
		clock.Advance(time.Second)
		if st := taskStatus(t, e, "pve1", u); st.ExitStatus != "OK" {
			t.Fatalf("task %s = %+v", u, st)
		}
	}
	done(e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "tpl", "scsi0", "local-lvm:4",
		"ide2", "local-lvm:cloudinit", "net0", "virtio,bridge=vmbr0", "ciuser", "admin", "onboot", "1", "tags", "base",
		"cores", "2", "scsi1", "local-lvm:1")))
	// An unused volume is not cloned.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi1")).wantOK(t)
	done(e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil))
	src := e.vmConfig(t, "pve1", "100")

	u := upid(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "200", "full", "1", "pool", "")))
	r := resourceByID(t, resources(t, e, "vm"), "qemu/200")
	if keysOf(r) != "id,lock,node,status,type,vmid" || r["lock"] != "clone" {
		t.Errorf("mid-clone entry = %v (W11)", r)
	}
	clock.Advance(time.Second)
	if st := taskStatus(t, e, "pve1", u); st.ExitStatus != "OK" || st.Type != "qmclone" || st.ID != "100" {
		t.Fatalf("clone task = %+v", st)
	}
	cfg := e.vmConfig(t, "pve1", "200")
	for _, k := range []string{"ciuser", "onboot", "tags", "cores", "boot", "meta"} {
		if cfg[k] != src[k] {
			t.Errorf("%s = %q, source %q", k, cfg[k], src[k])
		}
	}
	if cfg["name"] != "Copy-of-VM-tpl" || cfg["template"] != "" || cfg["lock"] != "" {
		t.Errorf("name %q template %q lock %q", cfg["name"], cfg["template"], cfg["lock"])
	}
	if cfg["vmgenid"] == src["vmgenid"] || cfg["smbios1"] == src["smbios1"] || cfg["net0"] == src["net0"] {
		t.Errorf("identity copied: %v", cfg)
	}
	if cfg["scsi0"] != "local-lvm:vm-200-disk-0,size=4G" || cfg["ide2"] != "local-lvm:vm-200-cloudinit,media=cdrom,size=4M" ||
		cfg["unused0"] != "" {
		t.Errorf("drives: %v", cfg)
	}
	wantVolids(t, e.sim, 200, "local-lvm:vm-200-cloudinit", "local-lvm:vm-200-disk-0")
}

// A linked clone of a template is backed by the base volume; the template
// cannot be destroyed while the clone exists.
func TestLinkedClone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.createVM(t, "100", "scsi0", "local-lvm:4", "scsi1", "shared-nfs:1")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/template", nil))
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "101", "name", "web", "pool", "prod")))
	cfg := e.vmConfig(t, "pve1", "101")
	if cfg["name"] != "web" || cfg["scsi0"] != "local-lvm:vm-101-disk-0,size=4G" ||
		cfg["scsi1"] != "shared-nfs:100/base-100-disk-0.raw/101/vm-101-disk-0.qcow2,size=1G" {
		t.Errorf("config = %v", cfg)
	}
	for _, v := range e.sim.VolumesOf(101) {
		if !strings.Contains(v.Base, "base-100-disk-0") {
			t.Errorf("volume %+v has no base", v)
		}
	}
	if p, _ := e.sim.Pool("prod"); !p.VMs[101] {
		t.Error("clone not in pool")
	}
	e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", "102", "storage", "local-lvm", "full", "0")).
		wantStatus(t, http.StatusInternalServerError, "parameter 'storage' not allowed for linked clones")
	e.taskFails(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil),
		"base volume 'local-lvm:base-100-disk-0' is still in use by linked cloned")
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/101", nil))
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil))
	wantVolids(t, e.sim, 100)
}

// Offline migration moves the config and the local volumes (same volids)
// to the target node; the old node then answers W12.
func TestMigrateOffline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "scsi1", "shared-nfs:1", "ide2", "local-lvm:cloudinit")
	migrate := func(vmid string, kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/qemu/"+vmid+"/migrate", form(kv...))
	}
	var pre map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/migrate", nil).decode(t, &pre)
	if pre["running"] != float64(0) || jsonText(pre["allowed_nodes"]) != `["pve2","pve3"]` {
		t.Errorf("precondition = %v", pre)
	}
	if disks, _ := pre["local_disks"].([]any); len(disks) != 2 {
		t.Errorf("local disks = %v", pre["local_disks"])
	}
	migrate("100", "target", "pve1").wantParamError(t, "target", "target is local node.")
	migrate("100", "target", "pve9").wantStatus(t, http.StatusInternalServerError, "no such cluster node 'pve9'")
	info := e.taskOK(t, migrate("100", "target", "pve2"))
	if info.Type != "qmigrate" {
		t.Errorf("task type %q", info.Type)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/config", nil).
		wantStatus(t, http.StatusInternalServerError, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")
	cfg := e.vmConfig(t, "pve2", "100")
	if cfg["scsi0"] != "local-lvm:vm-100-disk-0,size=4G" || cfg["lock"] != "" {
		t.Errorf("config = %v", cfg)
	}
	for _, v := range e.sim.VolumesOf(100) {
		if v.Storage == "local-lvm" && v.Node != "pve2" {
			t.Errorf("volume %s stayed on %s", v.VolID, v.Node)
		}
	}
	if n := len(e.sim.VolumesOf(100)); n != 3 {
		t.Errorf("volumes = %v", volids(e.sim, 100))
	}
	if r := resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["node"] != "pve2" {
		t.Errorf("resource node = %v", r["node"])
	}
}

// A running VM needs online=1, and its attached local disks need
// with-local-disks=1 (else the task aborts); a local ISO cannot move.
func TestMigrateOnline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4", "start", "1")
	migrate := func(vmid string, kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/qemu/"+vmid+"/migrate", form(kv...))
	}
	migrate("100", "target", "pve2").
		wantStatus(t, http.StatusInternalServerError, "can't migrate running VM without --online")
	info := e.taskFails(t, migrate("100", "target", "pve2", "online", "1"), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"),
		"can't migrate local disk 'local-lvm:vm-100-disk-0': can't live migrate attached local disks without with-local-disks option") {
		t.Errorf("log = %q", info.Log)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["lock"] != "" {
		t.Errorf("lock left after abort: %v", cfg)
	}
	e.taskOK(t, migrate("100", "target", "pve3", "online", "1", "with-local-disks", "1"))
	if g, _ := e.sim.Guest(100); g.Node != "pve3" || g.Status != "running" {
		t.Errorf("guest = %+v", g)
	}

	e.createVM(t, "101", "ide2", "local:iso/debian-13-netinst.iso,media=cdrom")
	info = e.taskFails(t, migrate("101", "target", "pve2"), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"), "can't migrate local disk 'local:iso/debian-13-netinst.iso': local cdrom image") {
		t.Errorf("log = %q", info.Log)
	}
	// A storage that is not available on the target is refused at once.
	if err := e.sim.Update(func(c *Cluster) error { c.Storage("local-lvm").Nodes = []string{"pve1", "pve3"}; return nil }); err != nil {
		t.Fatal(err)
	}
	e.createVM(t, "102", "scsi0", "local-lvm:1")
	migrate("102", "target", "pve2").
		wantStatus(t, http.StatusInternalServerError, "storage 'local-lvm' is not available on node 'pve2'")
}

// The test helpers see what the API did and change the guest outside it.
func TestGuestTestHelpers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.createVM(t, "100", "name", "web", "scsi0", "local-lvm:4", "pool", "prod")
	if err := e.sim.SetGuestConfig(100, "name", "drifted"); err != nil {
		t.Fatal(err)
	}
	if got := e.vmConfig(t, "pve1", "100")["name"]; got != "drifted" {
		t.Errorf("name = %q", got)
	}
	if err := e.sim.SetGuestConfig(100, "name", ""); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["name"] != "" {
		t.Errorf("config = %v", cfg)
	}
	if err := e.sim.SetGuestConfig(999, "name", "x"); err == nil {
		t.Error("SetGuestConfig on a missing guest")
	}
	if err := e.sim.DeleteGuest(100); err != nil {
		t.Fatal(err)
	}
	if e.sim.PowerState(100) != "" || len(e.sim.VolumesOf(100)) != 0 {
		t.Errorf("after DeleteGuest: %q %v", e.sim.PowerState(100), volids(e.sim, 100))
	}
	if p, _ := e.sim.Pool("prod"); p.VMs[100] {
		t.Error("deleted guest still in pool")
	}
}

// A migration to a full thin pool is made: the target's thin volume
// over-commits (pve-storage src/PVE/Storage/LvmThinPlugin.pm alloc_image
// checks no free space).
func TestMigrateOverCommitsThinTarget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	if err := e.sim.Update(func(c *Cluster) error {
		return c.AddVolume(&Volume{VolID: "local-lvm:vm-999-disk-0", Storage: "local-lvm", Node: "pve2",
			Content: "images", Format: "raw", Size: 498 << 30, Owner: 999})
	}); err != nil {
		t.Fatal(err)
	}
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2")))
}

// A migration whose local volumes do not fit on the target's instance of a
// storage that reserves space fails its task before anything is copied:
// the VM, its volumes and its config stay on the source, unlocked. The
// refusal is the simulator's (inferred: see Storage.overcommits).
func TestMigrateTargetFull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addZFSStorage(t, e, 100<<30)
	e.createVM(t, "100", "scsi0", "local-zfs:4")
	if err := e.sim.Update(func(c *Cluster) error {
		return c.AddVolume(&Volume{VolID: "local-zfs:vm-999-disk-0", Storage: "local-zfs", Node: "pve2",
			Content: "images", Format: "raw", Size: 98 << 30, Owner: 999})
	}); err != nil {
		t.Fatal(err)
	}
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/migrate", form("target", "pve2")), "migration aborted")
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi0"] != "local-zfs:vm-100-disk-0,size=4G" || cfg["lock"] != "" {
		t.Errorf("config after a failed migration = %v", cfg)
	}
	for _, v := range e.sim.VolumesOf(100) {
		if v.Node != "pve1" {
			t.Errorf("volume %s moved to %s", v.VolID, v.Node)
		}
	}
}

// W13: clone_vm's early check looks for the new id's VM config file on
// the node it runs on only (qemu-server src/PVE/API2/Qemu.pm clone_vm,
// load_and_check). A vmid taken by a VM on another node, or by a container
// on this one, is accepted with a UPID; the worker then fails writing the
// temporary config, which the cluster file system refuses (pve-common
// src/PVE/File.pm file_set_contents), and nothing is left behind.
func TestW13CloneOntoIDTakenElsewhereFailsInTask(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:4")
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve2/qemu", form("vmid", "101")))
	e.createCT(t, "102", "rootfs", "local-lvm:4")
	for _, newid := range []string{"101", "102"} {
		info := e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/clone", form("newid", newid)),
			"close (rename) atomic file '/etc/pve/nodes/pve1/qemu-server/"+newid+".conf' failed: File exists")
		if info.Type != "qmclone" || len(info.Log) == 0 || info.Log[0] != "creating a clone of VM 100 with ID "+newid {
			t.Errorf("task %s, log %q", info.Type, info.Log)
		}
	}
	if g, _ := e.sim.Guest(101); g.Node != "pve2" || g.Lock() != "" {
		t.Errorf("VM 101 is now on %s with lock %q", g.Node, g.Lock())
	}
	if g, _ := e.sim.Guest(102); g.Type != LXC {
		t.Errorf("guest 102 is %s", g.Type)
	}
	if vols := e.sim.VolumesOf(101); len(vols) != 0 {
		t.Errorf("the failed clone made volumes %v", vols)
	}
}
