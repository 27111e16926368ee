package pvesim

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	macPattern  = regexp.MustCompile(`^virtio=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0$`)
)

// W21, W27: a create with two disks, two NICs, a cloud-init drive and an
// ISO allocates one volume per create form and stores the live forms; PVE
// adds a MAC, the boot order, smbios1, vmgenid and meta.
func TestQemuCreateFull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form(
		"vmid", "100", "name", "web", "memory", "2048", "cores", "2",
		"scsi0", "local-lvm:32,discard=on,ssd=on", "scsi1", "shared-nfs:10",
		"net0", "virtio,bridge=vmbr0", "net1", "e1000=BC:24:11:00:00:01,bridge=vmbr1,firewall=1",
		"ide0", "local-lvm:cloudinit", "cdrom", "local:iso/debian-13-netinst.iso",
		"pool", "prod", "tags", "Web;db", "description", "line one\nline two\n")))
	if info.Type != "qmcreate" || info.ID != "100" {
		t.Errorf("task = %+v", info)
	}
	cfg := e.vmConfig(t, "pve1", "100")
	want := map[string]string{
		"name": "web", "memory": "2048", "cores": "2",
		"scsi0":       "local-lvm:vm-100-disk-0,discard=on,size=32G,ssd=1",
		"scsi1":       "shared-nfs:100/vm-100-disk-0.raw,size=10G",
		"ide0":        "local-lvm:vm-100-cloudinit,media=cdrom",
		"ide2":        "local:iso/debian-13-netinst.iso,media=cdrom,size=754M",
		"net1":        "e1000=BC:24:11:00:00:01,bridge=vmbr1,firewall=1",
		"tags":        "db;web",
		"description": "line one\nline two",
		// get_default_bootdevices: first disk, first CD-ROM (the cloud-init
		// drive counts), first NIC.
		"boot": "order=scsi0;ide0;net0",
	}
	for k, v := range want {
		if cfg[k] != v {
			t.Errorf("%s = %q, want %q", k, cfg[k], v)
		}
	}
	if !macPattern.MatchString(cfg["net0"]) {
		t.Errorf("net0 = %q", cfg["net0"])
	}
	if !uuidPattern.MatchString(cfg["vmgenid"]) || !uuidPattern.MatchString(strings.TrimPrefix(cfg["smbios1"], "uuid=")) {
		t.Errorf("vmgenid %q, smbios1 %q", cfg["vmgenid"], cfg["smbios1"])
	}
	if !regexp.MustCompile(`^creation-qemu=\d+\.\d+\.\d+,ctime=\d+$`).MatchString(cfg["meta"]) || len(cfg["digest"]) != 40 {
		t.Errorf("meta %q digest %q", cfg["meta"], cfg["digest"])
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-cloudinit", "shared-nfs:100/vm-100-disk-0.raw")
	for _, v := range e.sim.VolumesOf(100) {
		if v.Owner != 100 || v.Content != "images" || v.Node == "" && v.Storage != "shared-nfs" {
			t.Errorf("volume %+v", v)
		}
	}
	e.sim.ReportStats()
	r := resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if r["name"] != "web" || r["pool"] != "prod" || r["tags"] != "db;web" || r["maxdisk"] != float64(32*gib) ||
		r["status"] != "stopped" {
		t.Errorf("resource = %v", r)
	}
	if p, _ := e.sim.Pool("prod"); !p.VMs[100] {
		t.Errorf("pool members = %v (W48)", p.VMs)
	}
}

// W6: a top-level boolean accepts only 1/0.
func TestW6CreateStartTrueRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "start", "true")).
		wantParamError(t, "start", "type check ('boolean') failed - got 'true'")
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("refused create left a guest")
	}
}

// W13: a taken vmid (VM or CT, any node) fails synchronously.
func TestW13CreateTakenVMID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "a"), Guest{VMID: 101, Node: "pve2", Type: LXC})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100")).
		wantStatus(t, http.StatusInternalServerError, "unable to create VM 100 - VM 100 already exists on node 'pve1'")
	e.call(t, http.MethodPost, "/nodes/pve3/qemu", form("vmid", "101")).
		wantStatus(t, http.StatusInternalServerError, "unable to create VM 101 - CT 101 already exists on node 'pve2'")
}

// W10, W11: while qmcreate runs, the guest exists with "lock: create" and
// has no name in /cluster/resources. A config write is refused by
// $load_and_check_config's early check_lock before it takes the flock
// (qemu-server src/PVE/API2/Qemu.pm $update_vm_api); with skiplock it waits
// for the flock the create worker holds (create_vm: lock_config_full in the
// worker) and, the create outlasting lock_config's 10 s, fails with
// lock_file_full's timeout (pve-common src/PVE/Tools.pm).
func TestW11NamelessDuringCreate(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	a := e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "name", "web", "scsi0", "local-lvm:8"))
	u := upid(t, a)
	r := resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if got := keysOf(r); got != "id,lock,node,status,type,vmid" || r["lock"] != "create" || r["status"] != "unknown" {
		t.Errorf("mid-create entry = %v", r)
	}
	if cfg := e.vmConfig(t, "pve1", "100"); cfg["lock"] != "create" || cfg["name"] != "" {
		t.Errorf("mid-create config = %v", cfg)
	}
	// W10
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "x")).
		wantStatus(t, http.StatusInternalServerError, "VM is locked (create)")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "x", "skiplock", "1"), e.asRoot(t)).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	wantVolids(t, e.sim, 100)
	clock.Advance(time.Minute)
	if st := taskStatus(t, e, "pve1", u); st.ExitStatus != "OK" {
		t.Fatalf("create task = %+v", st)
	}
	r = resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if r["name"] != "web" || r["lock"] != nil {
		t.Errorf("created entry = %v", r)
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0")
}

// A create form needs a storage with images content; the refusal is a
// synchronous 400 on "storage" and leaves nothing behind.
func TestCreateStorageWithoutImages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local:8")).
		wantParamError(t, "storage", "storage 'local' does not support vm images")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "nope:8")).
		wantStatus(t, http.StatusInternalServerError, "storage 'nope' does not exist")
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("refused create left a guest")
	}
}

// addZFSStorage adds a ZFS pool storage, whose zvols reserve their size.
func addZFSStorage(t *testing.T, e *env, capacity int64) {
	t.Helper()
	if err := e.sim.Update(func(c *Cluster) error {
		c.Storages = append(c.Storages, &Storage{ID: "local-zfs", Type: "zfspool", Content: []string{"images", "rootdir"}, Capacity: capacity})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A thin pool over-commits: pve-storage src/PVE/Storage/LvmThinPlugin.pm
// alloc_image creates the thin volume with lvcreate -V and checks no free
// space, so disks larger than the pool are made.
func TestCreateOverCommitsThinPool(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100",
		"scsi0", "local-lvm:8", "scsi1", "local-lvm:600")))
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1")
	e.taskOK(t, e.resize(t, "100", "scsi0", "+1000G"))
}

// A failing qmcreate removes the reserved guest and frees what it made.
// The failure here is the simulator's own refusal on a storage that
// reserves space (inferred: see Storage.overcommits).
func TestCreateFailureCleansUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addZFSStorage(t, e, 100<<30)
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100",
		"scsi0", "local-lvm:8", "scsi1", "local-zfs:600")),
		"unable to create VM 100 - storage 'local-zfs' has not enough free space on node 'pve1' "+
			"(requested 644245094400 bytes, free 107374182400 bytes)")
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("failed create left a guest")
	}
	wantVolids(t, e.sim, 100)
	// The storage must be usable on the node.
	if err := e.sim.Update(func(c *Cluster) error { c.Storage("local-lvm").Nodes = []string{"pve2"}; return nil }); err != nil {
		t.Fatal(err)
	}
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:8")),
		"unable to create VM 100 - storage 'local-lvm' is not available on node 'pve1'")
}

// W25: import-from needs the size token 0 and an images or import source
// that exists; the new disk takes the source's size: the disk the image
// holds (3G), not its file size (332M).
func TestW25ImportFrom(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	const src = "local:import/debian-13-genericcloud-amd64.qcow2"
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "scsi0", "local-lvm:5,import-from="+src)).
		wantParamError(t, "scsi0", "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>")
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100",
		"scsi0", "local-lvm:0,import-from=local:iso/debian-13-netinst.iso")).
		wantParamError(t, "scsi0", "local:iso/debian-13-netinst.iso has wrong type 'iso' - needs to be 'images' or 'import'")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100",
		"scsi0", "local-lvm:0,import-from=local:import/nope.qcow2")),
		"unable to create VM 100 - cannot import from 'local:import/nope.qcow2' - could not get size of local:import/nope.qcow2")

	e.createVM(t, "100", "scsi0", "local-lvm:0,import-from="+src+",discard=on", "scsi1", "shared-nfs:0,import-from="+src)
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi0"] != "local-lvm:vm-100-disk-0,discard=on,size=3G" {
		t.Errorf("scsi0 = %q (W25: import-from is not reported back)", cfg["scsi0"])
	}
	// A file storage keeps the source's qcow2 format.
	if cfg["scsi1"] != "shared-nfs:100/vm-100-disk-0.qcow2,size=3G" {
		t.Errorf("scsi1 = %q", cfg["scsi1"])
	}
}

// W26: ssd is not an option of the virtio bus (schema, 400); scsi takes it.
func TestW26SSDPerBus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "virtio0", "local-lvm:4,ssd=1")).
		wantParamError(t, "virtio0", "invalid format - invalid key in comma-separated list property: ssd\n")
	e.createVM(t, "100", "scsi0", "local-lvm:4,ssd=1,iothread=1", "virtio0", "local-lvm:4,discard=on,aio=native")
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi0"] != "local-lvm:vm-100-disk-0,iothread=1,size=4G,ssd=1" ||
		cfg["virtio0"] != "local-lvm:vm-100-disk-1,aio=native,discard=on,size=4G" {
		t.Errorf("scsi0 %q virtio0 %q", cfg["scsi0"], cfg["virtio0"])
	}
}

// W27: STORAGE:cloudinit allocates vm-ID-cloudinit (raw on LVM, qcow2 file
// on a file storage) and stores it with media=cdrom; a storage without
// images content is accepted here but the start fails.
func TestW27CloudInitVolume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "ide2", "shared-nfs:cloudinit")
	if got := e.vmConfig(t, "pve1", "100")["ide2"]; got != "shared-nfs:100/vm-100-cloudinit.qcow2,media=cdrom" {
		t.Errorf("ide2 = %q", got)
	}
	vols := e.sim.VolumesOf(100)
	if len(vols) != 1 || vols[0].Size != 4*mib || vols[0].Format != "qcow2" {
		t.Errorf("volumes = %+v", vols)
	}
	// A second cloud-init drive is refused.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("ide0", "local-lvm:cloudinit")).
		wantStatus(t, http.StatusInternalServerError, "ide0 - cloud-init drive is already attached at 'ide2'")

	e.createVM(t, "101", "ide2", "local-lvm:cloudinit")
	// Re-sending the allocation over the live drive fails (W27).
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/101/config", form("ide2", "local-lvm:cloudinit")).
		wantStatus(t, http.StatusInternalServerError,
			`lvcreate 'pve/vm-101-cloudinit' error:   Logical Volume "vm-101-cloudinit" already exists in volume group "pve"`)

	e.createVM(t, "102", "ide2", "local:cloudinit")
	wantVolids(t, e.sim, 102, "local:102/vm-102-cloudinit.qcow2")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/102/status/start", nil),
		"storage 'local' does not support content-type 'images'")
}

// A CD-ROM must name an existing ISO, with media=cdrom; "none" is fine.
func TestCreateCDROM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "ide2", "local:iso/debian-13-netinst.iso")).
		wantParamError(t, "ide2", "explicit 'media=cdrom' is required for iso images")
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "ide2", "local:iso/nope.iso,media=cdrom")),
		"unable to create VM 100 - volume local:iso/nope.iso does not exist")
	e.createVM(t, "100", "ide2", "none,media=cdrom", "ide0", "cdrom,media=cdrom")
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["ide2"] != "none,media=cdrom" || cfg["ide0"] != "cdrom,media=cdrom" || cfg["boot"] != "order=ide0" {
		t.Errorf("config = %v", cfg)
	}
}

// EFI vars and TPM state get PVE's fixed sizes; on LVM the volume is whole
// 4 MiB extents, on a file storage the EFI vars are 528K.
func TestCreateEFIAndTPM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "efidisk0", "shared-nfs:1,efitype=4m,pre-enrolled-keys=1", "tpmstate0", "local-lvm:1,version=v2.0",
		"bios", "ovmf")
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["efidisk0"] != "shared-nfs:100/vm-100-disk-0.raw,efitype=4m,ms-cert=2023,pre-enrolled-keys=1,size=528K" {
		t.Errorf("efidisk0 = %q", cfg["efidisk0"])
	}
	if cfg["tpmstate0"] != "local-lvm:vm-100-disk-0,size=4M,version=v2.0" {
		t.Errorf("tpmstate0 = %q", cfg["tpmstate0"])
	}
	if _, ok := cfg["boot"]; ok {
		t.Errorf("boot = %q without a boot device", cfg["boot"])
	}
}

// start=1 starts the guest at the end of qmcreate; pool= must exist (W48).
func TestCreateStartAndPool(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", "100", "pool", "nope")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (pool 'nope' does not exist)")
	e.createVM(t, "100", "scsi0", "local-lvm:4", "start", "1")
	if got := e.sim.PowerState(100); got != PowerRunning {
		t.Fatalf("power = %q", got)
	}
}

// A fresh VM's config holds the boot key create_vm writes when none is
// given: the first disk, the first CD-ROM and the first NIC, disks looked
// for in ide, scsi, virtio, sata order (qemu-server src/PVE/API2/Qemu.pm
// create_vm, src/PVE/QemuServer.pm get_default_bootdevices and
// print_bootorder, src/PVE/QemuServer/Drive.pm resolve_first_disk).
func TestFreshVMBootKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "sata0", "local-lvm:1", "virtio0", "local-lvm:1", "ide2", "local:iso/debian-13-netinst.iso,media=cdrom",
		"net1", "virtio,bridge=vmbr0", "net3", "virtio,bridge=vmbr0")
	if got := e.vmConfig(t, "pve1", "100")["boot"]; got != "order=virtio0;ide2;net1" {
		t.Errorf("boot = %q", got)
	}
	e.createVM(t, "101", "net0", "virtio,bridge=vmbr0")
	if got := e.vmConfig(t, "pve1", "101")["boot"]; got != "order=net0" {
		t.Errorf("boot = %q", got)
	}
	e.createVM(t, "102", "scsi0", "local-lvm:1", "ide0", "local:iso/debian-13-netinst.iso,media=cdrom", "boot", "order=ide0;scsi0")
	if got := e.vmConfig(t, "pve1", "102")["boot"]; got != "order=ide0;scsi0" {
		t.Errorf("a given boot order is kept: %q", got)
	}
}
