package pvesim

import (
	"net/http"
	"testing"
)

// W34: unprivileged is create-only: setting or deleting it in a config
// update is a 500 and changes nothing.
func TestW34UnprivilegedInPut(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	before := e.ctConfig(t, "pve1", "100")
	e.setCT(t, "100", []string{"unprivileged", "0", "cores", "2"}).
		wantStatus(t, http.StatusInternalServerError, "unable to modify read-only option: 'unprivileged'")
	e.setCT(t, "100", []string{"delete", "unprivileged"}).
		wantStatus(t, http.StatusInternalServerError, "unable to delete read-only option: 'unprivileged'")
	after := e.ctConfig(t, "pve1", "100")
	if after["digest"] != before["digest"] || after["cores"] != "" {
		t.Errorf("config changed: %v", after)
	}
}

// W37, W21, W24: a mount point's live form with the same volume changes
// its options and guest path in place; the create form into an occupied
// slot makes a new volume and the old one becomes unusedN; removing a
// mount point detaches its volume; removing unusedN destroys it.
func TestW37MountPointForms(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.setCT(t, "100", []string{"mp0", "local-lvm:2,mp=/data"}).wantNull(t)
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{"mp0": "local-lvm:vm-100-disk-1,mp=/data,size=2G"})

	e.setCT(t, "100", []string{"mp0", "local-lvm:vm-100-disk-1,mp=/srv/data,backup=1,ro=1"}).wantNull(t)
	cfg := e.ctConfig(t, "pve1", "100")
	wantConfig(t, cfg, map[string]string{
		"mp0": "local-lvm:vm-100-disk-1,mp=/srv/data,backup=1,ro=1,size=2G", "unused0": "",
	})
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1")

	e.setCT(t, "100", []string{"mp0", "local-lvm:3,mp=/srv/data"}).wantNull(t)
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{
		"mp0": "local-lvm:vm-100-disk-2,mp=/srv/data,size=3G", "unused0": "local-lvm:vm-100-disk-1",
	})
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1", "local-lvm:vm-100-disk-2")

	e.setCT(t, "100", []string{"delete", "mp0"}).wantNull(t)
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{
		"mp0": "", "unused0": "local-lvm:vm-100-disk-1", "unused1": "local-lvm:vm-100-disk-2",
	})
	e.setCT(t, "100", []string{"delete", "unused0"}).wantNull(t)
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-2")

	// A storage without container data is refused; protection guards drives.
	e.setCT(t, "100", []string{"mp1", "shared-nfs:2,mp=/x"}).
		wantStatus(t, http.StatusInternalServerError, "storage 'shared-nfs' does not allow content type 'rootdir' (Container)")
	e.setCT(t, "100", []string{"protection", "1"}).wantNull(t)
	e.setCT(t, "100", []string{"delete", "unused1"}).
		wantStatus(t, http.StatusInternalServerError, "can't remove CT 100 drive 'unused1' - protection mode enabled")
	e.setCT(t, "100", []string{"mp1", "local-lvm:2,mp=/x"}).
		wantStatus(t, http.StatusInternalServerError, "can't update CT 100 drive 'mp1' - protection mode enabled")
	e.setCT(t, "100", []string{"delete", "rootfs"}).
		wantStatus(t, http.StatusInternalServerError, "unable to delete required option 'rootfs'")
}

// W16: one request may not set and delete the same key (the lxc texts);
// an unknown key in delete is a 400; deleting an absent known key is
// fine; an update with nothing in it is refused.
func TestW16CTSetAndDelete(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.setCT(t, "100", []string{"cores", "2", "delete", "cores"}).
		wantParamError(t, "delete", "you can't use '-cores' and -delete cores' at the same time")
	e.setCT(t, "100", []string{"cores", "2", "revert", "cores"}).
		wantParamError(t, "revert", "you can't use '-cores' and '-revert cores' at the same time")
	e.setCT(t, "100", []string{"delete", "bogus"}).wantParamError(t, "delete", "unknown option 'bogus'")
	e.setCT(t, "100", []string{"delete", "cpulimit"}).wantNull(t)
	e.setCT(t, "100", nil).wantStatus(t, http.StatusInternalServerError, "no options specified")
}

// W9, W10, W12: the update answers null; a stale digest and a lock are
// refused with the container texts; a missing container (or a VM at the
// container path) is W12's config file text, also for status and destroy.
func TestW12CTMissingAndDigest(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	addGuests(t, e.sim, vm(200, "pve1", "a"))
	for _, id := range []string{"100", "200"} {
		want := "Configuration file 'nodes/pve1/lxc/" + id + ".conf' does not exist"
		e.call(t, http.MethodGet, "/nodes/pve1/lxc/"+id+"/config", nil).wantStatus(t, http.StatusInternalServerError, want)
		e.call(t, http.MethodGet, "/nodes/pve1/lxc/"+id+"/status/current", nil).wantStatus(t, http.StatusInternalServerError, want)
		e.call(t, http.MethodDelete, "/nodes/pve1/lxc/"+id, nil).wantStatus(t, http.StatusInternalServerError, want)
		e.setCT(t, id, []string{"cores", "1"}).wantStatus(t, http.StatusInternalServerError, want)
	}
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.call(t, http.MethodGet, "/nodes/pve2/lxc/100/config", nil).
		wantStatus(t, http.StatusInternalServerError, "Configuration file 'nodes/pve2/lxc/100.conf' does not exist")
	digest := e.ctConfig(t, "pve1", "100")["digest"]
	e.setCT(t, "100", []string{"cores", "2", "digest", digest}).wantNull(t)
	e.setCT(t, "100", []string{"cores", "3", "digest", digest}).wantStatus(t, http.StatusInternalServerError,
		"detected modified configuration - file changed by other user? Try again.")
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	e.setCT(t, "100", []string{"cores", "3"}).wantStatus(t, http.StatusInternalServerError, "CT is locked (backup)") // W10
}

// W5: config values come typed as parse_pct_config leaves them: integers
// and booleans are JSON numbers, cpulimit (a number) stays a string.
func TestW5CTConfigTypes(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "cores", "2", "cpulimit", "1.5", "onboot", "1")
	var raw map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/lxc/100/config", nil).decode(t, &raw)
	if raw["cores"] != float64(2) || raw["onboot"] != float64(1) || raw["cpulimit"] != "1.5" ||
		raw["memory"] != float64(512) || raw["hostname"] != "CT100" {
		t.Errorf("config = %v", raw)
	}
}

// A running container takes memory, cores, NICs and new mount points at
// once; features, DNS and a changed mount point wait in [pve:pending]
// until the next start. GET config shows the pending values unless
// current=1.
func TestCTHotplugAndPending(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "mp0", "local-lvm:1,mp=/a", "start", "1")
	e.setCT(t, "100", []string{
		"memory", "2048", "cores", "4", "net0", "name=eth0,bridge=vmbr0,ip=dhcp", "mp1", "local-lvm:1,mp=/b",
		"features", "nesting=1", "nameserver", "1.1.1.1", "mp0", "local-lvm:vm-100-disk-1,mp=/c",
	}).wantNull(t)
	cur := e.ctConfig(t, "pve1", "100", "current", "1")
	wantConfig(t, cur, map[string]string{
		"memory": "2048", "cores": "4", "mp1": "local-lvm:vm-100-disk-2,mp=/b,size=1G",
		"features": "", "nameserver": "", "mp0": "local-lvm:vm-100-disk-1,mp=/a,size=1G",
	})
	if cur["net0"] == "" {
		t.Error("net0 not hotplugged")
	}
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{
		"features": "nesting=1", "nameserver": "1.1.1.1", "mp0": "local-lvm:vm-100-disk-1,mp=/c",
	})
	var items []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/lxc/100/pending", nil).decode(t, &items)
	found := false
	for _, it := range items {
		if it["key"] == "features" && it["pending"] == "nesting=1" && it["value"] == nil {
			found = true
		}
	}
	if !found {
		t.Errorf("pending = %v", items)
	}
	if p := e.sim.PendingConfig(100); p["features"] != "nesting=1" {
		t.Errorf("pending section = %v", p)
	}
	// A stop keeps them pending; the next start applies them.
	e.taskOK(t, e.ctPower(t, "100", "stop"))
	if p := e.sim.PendingConfig(100); p["features"] == "" {
		t.Errorf("pending after stop = %v", p)
	}
	e.taskOK(t, e.ctPower(t, "100", "start"))
	wantConfig(t, e.ctConfig(t, "pve1", "100", "current", "1"), map[string]string{
		"features": "nesting=1", "nameserver": "1.1.1.1", "mp0": "local-lvm:vm-100-disk-1,mp=/c,size=1G",
	})
	if p := e.sim.PendingConfig(100); p != nil {
		t.Errorf("pending after start = %v", p)
	}
}

// GET /nodes/{node}/lxc lists the node's containers with vmstatus fields.
func TestCTList(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "hostname", "a", "memory", "1024", "swap", "0")
	addGuests(t, e.sim, vm(101, "pve1", "vm"), Guest{VMID: 102, Node: "pve2", Type: LXC})
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/lxc", nil).decode(t, &list)
	if len(list) != 1 {
		t.Fatalf("list = %v", list)
	}
	ct := list[0]
	if ct["vmid"] != float64(100) || ct["name"] != "a" || ct["status"] != "stopped" || ct["type"] != "lxc" ||
		ct["maxmem"] != float64(1024*mib) || ct["maxswap"] != float64(0) || ct["maxdisk"] != float64(4*gib) {
		t.Errorf("entry = %v", ct)
	}
}

// pve-guest-common src/PVE/GuestHelpers.pm assert_tag_permissions (called by
// pve-container src/PVE/LXC.pm check_ct_modify_config_perm) checks
// VM.Config.Options whenever tags are set or deleted, even when the new list
// names the same tags in another case or order; the stored form is
// get_unique_tags'.
func TestContainerTagsNeedConfigOptions(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "tags", "Web;db")
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["tags"] != "db;web" {
		t.Fatalf("tags = %q, want get_unique_tags' form", cfg["tags"])
	}
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.Disk")
	e.setCT(t, "100", []string{"tags", "db,WEB"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Options)")
	e.setCT(t, "100", []string{"delete", "tags"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Options)")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.Options")
	e.setCT(t, "100", []string{"tags", "db,WEB"}).wantNull(t)
	e.sim.ClearPrivileges(testTokenUser)
}

// The container's timezone is checked by its format, at create and at
// update: "host", "UTC" or a zone of zone.tab (pve-container
// src/PVE/LXC/Config.pm verify_ct_timezone, pve-common
// src/PVE/JSONSchema.pm pve_verify_timezone).
func TestCTTimezoneValidated(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "timezone", "Mars/Base"}).
		wantParamError(t, "timezone", "invalid format - invalid time zone 'Mars/Base'\n")
	e.createCT(t, "100", "rootfs", "local-lvm:4", "timezone", "Europe/Vienna")
	e.setCT(t, "100", []string{"timezone", "Etc/UTC"}).
		wantParamError(t, "timezone", "invalid format - invalid time zone 'Etc/UTC'\n")
	e.setCT(t, "100", []string{"timezone", "host"}).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["timezone"] != "host" {
		t.Errorf("timezone = %q", cfg["timezone"])
	}
}
