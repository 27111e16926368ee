package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// W9: PUT config answers data null, POST config a qmconfig UPID.
func TestW9PutNullPostUPID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	a := e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "a"))
	a.wantOK(t)
	if string(a.data) != "null" {
		t.Errorf("PUT data = %s", a.data)
	}
	info := e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/config", form("name", "b")))
	if info.Type != "qmconfig" || info.ID != "100" {
		t.Errorf("task = %+v", info)
	}
	if got := e.vmConfig(t, "pve1", "100")["name"]; got != "b" {
		t.Errorf("name = %q", got)
	}
}

// W10: a config write on a locked guest fails synchronously, for PUT and
// POST alike.
func TestW10ConfigWriteWhileLocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{http.MethodPut, http.MethodPost} {
		e.call(t, m, "/nodes/pve1/qemu/100/config", form("name", "a")).
			wantStatus(t, http.StatusInternalServerError, "VM is locked (backup)")
	}
}

// W12: a VM that is not on the requested node is a missing config file
// named after that node, for config, status and destroy.
func TestW12MissingVM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	for _, c := range []struct{ method, path, text string }{
		{http.MethodGet, "/nodes/pve1/qemu/999/config", "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist"},
		{http.MethodGet, "/nodes/pve1/qemu/999/status/current", "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist"},
		{http.MethodDelete, "/nodes/pve1/qemu/999", "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist"},
		{http.MethodGet, "/nodes/pve2/qemu/100/config", "Configuration file 'nodes/pve2/qemu-server/100.conf' does not exist"},
		{http.MethodPut, "/nodes/pve2/qemu/100/config", "Configuration file 'nodes/pve2/qemu-server/100.conf' does not exist"},
		{http.MethodGet, "/nodes/pve1/qemu/999/pending", "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist"},
	} {
		f := form()
		if c.method == http.MethodPut {
			f = form("name", "x")
		}
		e.call(t, c.method, c.path, f).wantStatus(t, http.StatusInternalServerError, c.text)
	}
	// A container with that vmid is no VM either.
	addGuests(t, e.sim, Guest{VMID: 200, Node: "pve1", Type: LXC})
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/200/config", nil).
		wantStatus(t, http.StatusInternalServerError, "Configuration file 'nodes/pve1/qemu-server/200.conf' does not exist")
}

// W16: one request may not set and delete the same key; deleting an
// unknown key is a 400; an empty request is "no options specified".
func TestW16SetAndDeleteDisjoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "name", "a")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "b", "delete", "name")).
		wantParamError(t, "delete", "you can't use '-name' and -delete name' at the same time")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cdrom", "none", "delete", "cdrom")).
		wantParamError(t, "delete", "you can't use '-ide2' and -delete ide2' at the same time")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "bogus")).
		wantParamError(t, "delete", "unknown option 'bogus'")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", nil).
		wantStatus(t, http.StatusInternalServerError, "no options specified")
	// Deleting a known key that is absent is fine.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "description")).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "name")).wantOK(t)
	if _, ok := e.vmConfig(t, "pve1", "100")["name"]; ok {
		t.Error("name not deleted")
	}
}

// The digest guards against concurrent changes.
func TestConfigDigest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "name", "a")
	digest := e.vmConfig(t, "pve1", "100")["digest"]
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "b", "digest", digest)).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "c", "digest", digest)).
		wantStatus(t, http.StatusInternalServerError, "checksum mismatch (file change by other user?)")
}

// W21: a create form written into an occupied slot allocates a new volume
// and the old one becomes unusedN; a live form with the same volid only
// changes options.
func TestW21CreateFormIntoOccupiedSlot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8", "scsi1", "local-lvm:4")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("scsi1", "local-lvm:4")).wantOK(t)
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi1"] != "local-lvm:vm-100-disk-2,size=4G" || cfg["unused0"] != "local-lvm:vm-100-disk-1" {
		t.Errorf("scsi1 %q unused0 %q", cfg["scsi1"], cfg["unused0"])
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1", "local-lvm:vm-100-disk-2")

	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config",
		form("scsi0", "local-lvm:vm-100-disk-0,discard=on,iothread=1,size=8G")).wantOK(t)
	cfg = e.vmConfig(t, "pve1", "100")
	if cfg["scsi0"] != "local-lvm:vm-100-disk-0,discard=on,iothread=1,size=8G" || cfg["unused1"] != "" {
		t.Errorf("scsi0 %q unused1 %q", cfg["scsi0"], cfg["unused1"])
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1", "local-lvm:vm-100-disk-2")
	// A live form naming a volume that does not exist is refused.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("scsi2", "local-lvm:vm-100-disk-9")).
		wantStatus(t, http.StatusInternalServerError, "volume local-lvm:vm-100-disk-9 does not exist")
}

// W24: delete=scsiN detaches the disk to the first free unusedN (the data
// stays); delete=unusedN destroys the volume; a live form naming an unused
// volume attaches it again.
func TestW24DeleteDetachesToUnused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8", "scsi1", "local-lvm:4", "scsi2", "local-lvm:2")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi1,scsi2")).wantOK(t)
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["unused0"] != "local-lvm:vm-100-disk-1" || cfg["unused1"] != "local-lvm:vm-100-disk-2" || cfg["scsi1"] != "" {
		t.Fatalf("config = %v", cfg)
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1", "local-lvm:vm-100-disk-2")

	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "unused1")).wantOK(t)
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1")

	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("virtio3", "local-lvm:vm-100-disk-1")).wantOK(t)
	cfg = e.vmConfig(t, "pve1", "100")
	if cfg["virtio3"] != "local-lvm:vm-100-disk-1,size=4G" || cfg["unused0"] != "" {
		t.Errorf("config = %v", cfg)
	}
	// With force, a deleted disk is destroyed.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "virtio3", "force", "1")).wantOK(t)
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0")
}

// Protection refuses removing disks, with PVE's text.
func TestProtectionRefusesDiskRemoval(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8", "protection", "1")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi0")).
		wantStatus(t, http.StatusInternalServerError, "can't remove drive 'scsi0' - protection mode enabled")
	// In a POST the same refusal ends the task.
	e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/config", form("delete", "scsi0")),
		"can't remove drive 'scsi0' - protection mode enabled")
	e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil).
		wantStatus(t, http.StatusInternalServerError, "can't remove VM 100 - protection mode enabled")
}

// W28: attaching a CD-ROM appends it to an explicit boot order; a disk is
// not appended; deleting a device drops it from the order.
func TestW28BootOrderOnAttach(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8")
	if got := e.vmConfig(t, "pve1", "100")["boot"]; got != "order=scsi0" {
		t.Fatalf("boot = %q", got)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config",
		form("ide2", "local:iso/debian-13-netinst.iso,media=cdrom", "scsi1", "local-lvm:1")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "100")["boot"]; got != "order=scsi0;ide2" {
		t.Errorf("boot after attach = %q", got)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "ide2")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "100")["boot"]; got != "order=scsi0" {
		t.Errorf("boot after delete = %q", got)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("boot", "order=scsi0;net0")).
		wantStatus(t, http.StatusInternalServerError, "invalid bootorder: device 'net0' does not exist'")
}

// W31: cipassword is stored hashed and always read back as the mask.
func TestW31CipasswordMasked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cipassword", "s3cret", "ciuser", "admin")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "100")["cipassword"]; got != cipasswordMask {
		t.Errorf("cipassword = %q", got)
	}
	raw, _ := e.sim.GuestConfig(100)
	if !strings.HasPrefix(raw["cipassword"], "$6$") || strings.Contains(raw["cipassword"], "s3cret") {
		t.Errorf("stored cipassword = %q", raw["cipassword"])
	}
	var items []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/pending", nil).decode(t, &items)
	for _, it := range items {
		if it["key"] == "cipassword" && it["value"] != cipasswordMask {
			t.Errorf("pending item = %v", it)
		}
	}
}

// W19, W20, W30: tags are folded, deduplicated and sorted; a description
// keeps its newlines; sshkeys are stored as sent (urlencoded).
func TestTagsDescriptionSSHKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	keys := "ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g%20me%40host" +
		"%0Assh-rsa%20AAAAB3NzaC1yc2EAAAADAQABAAAABQDA%2F%2B4B%20you%40host"
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form(
		"tags", "Prod,web;prod", "description", "# Title\n\nbody  text\n", "sshkeys", keys)).wantOK(t)
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["tags"] != "prod;web" || cfg["description"] != "# Title\n\nbody  text" || cfg["sshkeys"] != keys {
		t.Errorf("config = %q", cfg)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("tags", "bad tag!")).
		wantParamError(t, "tags", "invalid format - invalid characters in tag\n")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("sshkeys", "ssh-ed25519 AAAA me@host")).
		wantParamError(t, "sshkeys", "invalid format - invalid urlencoded string: ssh-ed25519 AAAA me@host\n")
	// A urlencoded value that is no key fails validate_ssh_public_keys.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("sshkeys", "ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5%20me")).
		wantStatus(t, http.StatusInternalServerError, "SSH public key validation error")
}

// A running guest takes hot-pluggable changes at once; the rest waits in
// [PENDING] (GET config shows it applied, current=1 does not) until the
// guest stops.
func TestRunningGuestPendingChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8", "net0", "virtio,bridge=vmbr0", "cores", "1", "start", "1")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form(
		"cores", "4", "name", "web", "net1", "virtio,bridge=vmbr1", "scsi1", "local-lvm:2", "bios", "ovmf")).wantOK(t)
	cur := e.vmConfig(t, "pve1", "100", "current", "1")
	if cur["cores"] != "1" || cur["bios"] != "" || cur["name"] != "web" || cur["net1"] == "" || cur["scsi1"] == "" {
		t.Errorf("current config = %v", cur)
	}
	if got := e.vmConfig(t, "pve1", "100"); got["cores"] != "4" || got["bios"] != "ovmf" {
		t.Errorf("config with pending = %v", got)
	}
	var items []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/pending", nil).decode(t, &items)
	pending := map[string]any{}
	for _, it := range items {
		if p, ok := it["pending"]; ok {
			pending[it["key"].(string)] = p
		}
	}
	if len(pending) != 2 || pending["cores"] != float64(4) || pending["bios"] != "ovmf" { // W5: integers are numbers
		t.Errorf("pending = %v", pending)
	}
	// The boot disk cannot be unplugged; the deletion stays pending and
	// the request reports the hotplug problem.
	a := e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi0"))
	a.wantParamError(t, "scsi0", "hotplug problem - can't unplug bootdisk 'scsi0'")
	// Other disks unplug to unusedN at once.
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("delete", "scsi1")).wantOK(t)
	if got := e.vmConfig(t, "pve1", "100", "current", "1")["unused0"]; got != "local-lvm:vm-100-disk-1" {
		t.Errorf("unused0 = %q", got)
	}
	e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/stop", nil))
	cur = e.vmConfig(t, "pve1", "100", "current", "1")
	if cur["cores"] != "4" || cur["bios"] != "ovmf" || cur["scsi0"] != "" || cur["unused1"] != "local-lvm:vm-100-disk-0" {
		t.Errorf("config after stop = %v", cur)
	}
	if p := e.sim.PendingConfig(100); len(p) != 0 {
		t.Errorf("pending after stop = %v", p)
	}
}

// revert drops a pending change.
func TestRevertPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "cores", "1", "start", "1")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cores", "2")).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("revert", "cores")).wantOK(t)
	if p := e.sim.PendingConfig(100); len(p) != 0 {
		t.Errorf("pending = %v", p)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cores", "2", "revert", "cores")).
		wantParamError(t, "delete", "you can't use '-cores' and -revert cores' at the same time")
}

// unlink removes disk keys; with force the volumes are destroyed.
func TestUnlink(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "scsi0", "local-lvm:8", "scsi1", "local-lvm:4", "scsi2", "local-lvm:4")
	a := e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/unlink", form("idlist", "scsi1", "force", "1"))
	a.wantOK(t)
	if string(a.data) != "null" {
		t.Errorf("data = %s", a.data)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/unlink", form("idlist", "scsi2")).wantOK(t)
	cfg := e.vmConfig(t, "pve1", "100")
	if cfg["scsi1"] != "" || cfg["scsi2"] != "" || cfg["unused0"] != "local-lvm:vm-100-disk-2" {
		t.Errorf("config = %v", cfg)
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-2")
}

// W5: config reads give integers and booleans as JSON numbers, everything
// else (memory is a property string) as strings.
func TestW5ConfigValueTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "cores", "2", "onboot", "1", "memory", "2048", "cpulimit", "1.5", "name", "web")
	a := e.call(t, http.MethodGet, "/nodes/pve1/qemu/100/config", nil)
	var raw map[string]any
	a.decode(t, &raw)
	if raw["cores"] != float64(2) || raw["onboot"] != float64(1) || raw["cpulimit"] != 1.5 ||
		raw["memory"] != "2048" || raw["name"] != "web" {
		t.Errorf("config = %v", raw)
	}
}

// qemu-server src/PVE/API2/Qemu.pm $updatefn runs pve-guest-common
// src/PVE/GuestHelpers.pm assert_tag_permissions for tags: VM.Config.Options
// on the VM, even when the tags do not change.
func TestTagsNeedConfigOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "tags", "a")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.CPU")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("tags", "a")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Options)")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.Options")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("tags", "a;b")).wantOK(t)
}
