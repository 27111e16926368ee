package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// postRestoreCT sends a container restore of archive onto vmid on pve1.
func (e *env) postRestoreCT(t *testing.T, vmid, archive string, kv ...string) *answer {
	t.Helper()
	return e.call(t, http.MethodPost, "/nodes/pve1/lxc",
		form(append([]string{"vmid", vmid, "restore", "1", "ostemplate", archive}, kv...)...))
}

// W40: with no mount point given, the archive's rootfs and mount points
// are recreated on "storage" with the sizes the archive recorded; its
// config comes back, given keys winning; the task is vzrestore.
func TestW40CTRestoreTakesSizesFromArchive(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	info := e.taskOK(t, e.postRestoreCT(t, "300", SeedLXCBackup, "storage", "local-lvm", "hostname", "restored", "memory", "1024",
		"password", "not-applied"))
	if info.Type != "vzrestore" || info.ID != "300" {
		t.Errorf("task = %+v", info)
	}
	cfg := e.ctConfig(t, "pve1", "300")
	wantConfig(t, cfg, map[string]string{
		"rootfs": "local-lvm:vm-300-disk-0,size=4G", "mp0": "local-lvm:vm-300-disk-1,mp=/var/cache/app,backup=1,size=2G",
		"hostname": "restored", "memory": "1024", "swap": "256", "features": "nesting=1", "tags": "cache",
		"net0": "name=eth0,bridge=vmbr0,hwaddr=BC:24:11:5E:13:00,ip=dhcp,type=veth", "unprivileged": "1",
		"description": "cache container\n", "lock": "", // W20: read back with its newline
	})
	wantVolids(t, e.sim, 300, "local-lvm:vm-300-disk-0", "local-lvm:vm-300-disk-1")
	if g, _ := e.sim.Guest(300); g.PasswordHash != "" {
		t.Error("a restore applied root's password; the restored file system keeps its own")
	}
}

// W40: mount points without rootfs are refused before anything is made;
// with rootfs the given mount points replace the archive's, which are not
// restored; unique gives the NIC a new MAC. The default storage, local,
// holds no container volumes.
func TestW40CTRestoreGivenMountPoints(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postRestoreCT(t, "301", SeedLXCBackup, "mp0", "local-lvm:1,mp=/data").wantStatus(t, http.StatusInternalServerError,
		"mount points configured, but 'rootfs' not set - aborting")
	e.postRestoreCT(t, "301", SeedLXCBackup).wantParamError(t, "storage", "storage 'local' does not support container directories")
	if _, ok := e.sim.Guest(301); ok {
		t.Fatal("a refused restore left a guest behind")
	}
	e.taskOK(t, e.postRestoreCT(t, "301", SeedLXCBackup, "rootfs", "local-lvm:8", "unique", "1"))
	cfg := e.ctConfig(t, "pve1", "301")
	wantConfig(t, cfg, map[string]string{"rootfs": "local-lvm:vm-301-disk-0,size=8G", "mp0": "", "hostname": "cache-130"})
	if cfg["net0"] == "name=eth0,bridge=vmbr0,hwaddr=BC:24:11:5E:13:00,ip=dhcp,type=veth" {
		t.Errorf("unique kept the MAC: %q", cfg["net0"])
	}
}

// W13, W40, W48: restoring onto a taken id needs force; a forced restore
// replaces the container's volumes and drops its pool membership, which
// "pool" sets again.
func TestW40CTRestoreOverExistingDropsPool(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.taskOK(t, e.postCT(t, "302", []string{"rootfs", "local-lvm:1", "hostname", "old", "pool", "prod"}))
	e.postRestoreCT(t, "302", SeedLXCBackup, "storage", "local-lvm").wantStatus(t, http.StatusInternalServerError,
		"CT 302 already exists on node 'pve1'")
	e.taskOK(t, e.postRestoreCT(t, "302", SeedLXCBackup, "storage", "local-lvm", "force", "1"))
	if p, _ := e.sim.Pool("prod"); p.VMs[302] {
		t.Error("the restored container is still in its pool (W40)")
	}
	cfg := e.ctConfig(t, "pve1", "302")
	wantConfig(t, cfg, map[string]string{"hostname": "cache-130", "rootfs": "local-lvm:vm-302-disk-1,size=4G"})
	wantVolids(t, e.sim, 302, "local-lvm:vm-302-disk-1", "local-lvm:vm-302-disk-2")
	e.taskOK(t, e.postRestoreCT(t, "302", SeedLXCBackup, "storage", "local-lvm", "force", "1", "pool", "prod"))
	if p, _ := e.sim.Pool("prod"); !p.VMs[302] {
		t.Error("pool was not applied")
	}
}

// A VM archive cannot be restored as a container: the task fails and
// removes the reserved container.
func TestCTRestoreOfVMArchiveFails(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.taskFails(t, e.postRestoreCT(t, "303", SeedQemuBackup, "storage", "local-lvm"),
		"unable to restore CT 303 - archive '"+SeedQemuBackup+"' is a qemu backup and cannot be restored as a lxc")
	if _, ok := e.sim.Guest(303); ok {
		t.Fatal("the failed restore left its container behind")
	}
}

// W10, W11: while the vzrestore task runs the container holds "lock:
// create" and has no name; it is complete when the task ends.
func TestW11CTRestoreLockedWhileRunning(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	id := upid(t, e.postRestoreCT(t, "304", SeedLXCBackup, "storage", "local-lvm"))
	r := resourceByID(t, resources(t, e, "vm"), "lxc/304")
	if r["lock"] != "create" || r["name"] != nil {
		t.Errorf("resource mid-restore = %v", r)
	}
	// The restore worker holds the config flock (pve-container
	// src/PVE/API2/LXC.pm create_vm: lock_config in the worker).
	e.setCT(t, "304", []string{"cores", "2"}).wantStatus(t, http.StatusInternalServerError,
		"can't lock file '/run/lock/lxc/pve-config-304.lock' - got timeout")
	clock.Advance(time.Minute)
	if info, _ := e.sim.Task(id); info.ExitStatus != "OK" {
		t.Fatalf("task = %+v", info)
	}
	if cfg := e.ctConfig(t, "pve1", "304"); cfg["lock"] != "" || cfg["hostname"] != "cache-130" {
		t.Errorf("config after restore = %v", cfg)
	}
}

// W49: a restore that ends up privileged (the archive's container was)
// needs Sys.Modify on "/", checked in the task; the reserved container
// goes again. pve-container src/PVE/API2/LXC.pm create_vm dies "$emsg $err"
// with the permission exception, which pve-common src/PVE/Exception.pm
// stringify prefixes with its code.
func TestCTRestorePrivilegedArchiveNeedsSysModify(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.taskOK(t, e.postCT(t, "160", []string{"rootfs", "local-lvm:1", "hostname", "priv", "unprivileged", "0"}))
	volid, err := e.sim.BackupGuest(160, "local")
	if err != nil {
		t.Fatal(err)
	}
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "VM.Backup", "Datastore.Allocate", "Datastore.AllocateSpace",
		"VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network", "VM.Config.Options", "SDN.Use")
	e.taskFails(t, e.postRestoreCT(t, "305", volid, "storage", "local-lvm"),
		"unable to restore CT 305 - 403 Permission check failed (/, Sys.Modify)")
	if _, ok := e.sim.Guest(305); ok {
		t.Fatal("the failed restore left its container behind")
	}
	e.sim.ClearPrivileges(testTokenUser)
	e.taskOK(t, e.postRestoreCT(t, "305", volid, "storage", "local-lvm"))
	wantConfig(t, e.ctConfig(t, "pve1", "305"), map[string]string{"hostname": "priv", "unprivileged": "", "rootfs": "local-lvm:vm-305-disk-0,size=1G"})
}
