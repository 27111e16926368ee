package pvesim

import (
	"net/http"
	"regexp"
	"testing"
	"time"
)

var ctNetPattern = regexp.MustCompile(`^name=eth0,bridge=vmbr0,firewall=1,gw=10\.0\.0\.1,hwaddr=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},` +
	`ip=10\.0\.0\.6/24,ip6=auto,tag=20,type=veth$`)

// W35, W36, W37, W38, W48: root@pam (password login) creates a container
// with a rootfs, a volume mount point and a bind mount. The volumes share
// the disk counter, the config holds their live forms, the template is not
// kept, the NIC carries ip/gw inline with a generated MAC, the container
// joins its pool; password and keys land in the guest, not the config.
func TestCTCreateAsRootWithMountPoints(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	root := e.asRoot(t)
	info := e.taskOK(t, e.postCT(t, "130", []string{
		"hostname", "db-1", "rootfs", "local-lvm:8", "mp0", "local-lvm:10,mp=/data,backup=1",
		"mp1", "/srv/share,mp=/share,ro=1", "cores", "2", "cpulimit", "1.5", "memory", "1024", "swap", "256",
		"net0", "name=eth0,bridge=vmbr0,tag=20,firewall=1,ip=10.0.0.6/24,gw=10.0.0.1,ip6=auto",
		"features", "nesting=1,keyctl=1", "nameserver", "10.0.0.1 10.0.0.2", "searchdomain", "lan",
		"password", "secret-pw", "ssh-public-keys", testSSHKey + "\n", "pool", "prod", "tags", "DB;prod",
		"onboot", "1", "description", "database\n",
	}, root))
	if info.Type != "vzcreate" || info.ID != "130" || info.User != "root@pam" {
		t.Errorf("task = %+v", info)
	}
	cfg := e.ctConfig(t, "pve1", "130")
	wantConfig(t, cfg, map[string]string{
		"hostname": "db-1", "rootfs": "local-lvm:vm-130-disk-0,size=8G",
		"mp0":   "local-lvm:vm-130-disk-1,mp=/data,backup=1,size=10G",
		"mp1":   "/srv/share,mp=/share,ro=1",
		"cores": "2", "cpulimit": "1.5", "memory": "1024", "swap": "256", "unprivileged": "1",
		"features": "nesting=1,keyctl=1", "nameserver": "10.0.0.1 10.0.0.2", "searchdomain": "lan",
		"tags": "db;prod", "onboot": "1", "description": "database\n", "arch": "amd64", "ostype": "debian",
		"ostemplate": "", "password": "", "ssh-public-keys": "", "lock": "",
	})
	if !ctNetPattern.MatchString(cfg["net0"]) {
		t.Errorf("net0 = %q (W38)", cfg["net0"])
	}
	wantVolids(t, e.sim, 130, "local-lvm:vm-130-disk-0", "local-lvm:vm-130-disk-1")
	g, _ := e.sim.Guest(130)
	if g.AuthorizedKeys != testSSHKey+"\n" || !hashedPassword.MatchString(g.PasswordHash) {
		t.Errorf("guest keys %q, password hash %q", g.AuthorizedKeys, g.PasswordHash)
	}
	e.sim.ReportStats()
	r := resourceByID(t, resources(t, e, "vm"), "lxc/130")
	if r["name"] != "db-1" || r["pool"] != "prod" || r["status"] != "stopped" || r["type"] != "lxc" ||
		r["maxmem"] != float64(1024*mib) || r["maxdisk"] != float64(8*gib) || r["template"] != float64(0) {
		t.Errorf("resource = %v", r)
	}
}

// W36: a bind mount is root@pam's alone: root@pam's own API token is
// refused with PVE's 403 and nothing is left behind.
func TestW36BindMountRefusedUnderToken(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postCT(t, "100", []string{"rootfs", "local-lvm:8", "mp0", "/srv/share,mp=/share"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (mount point type bind is only allowed for root@pam)")
	e.postCT(t, "100", []string{"rootfs", "local-lvm:8", "mp0", "/dev/sdb1,mp=/share"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (mount point type device is only allowed for root@pam)")
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("refused create left a guest")
	}
	// The same request as root@pam is accepted.
	e.taskOK(t, e.postCT(t, "100", []string{"rootfs", "local-lvm:8", "mp0", "/srv/share,mp=/share"}, e.asRoot(t)))
	// A later bind mount under the token is refused too.
	e.setCT(t, "100", []string{"mp1", "/srv/other,mp=/other"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (mount point type bind is only allowed for root@pam)")
}

// W33: under a token only nesting may be set (it needs VM.Allocate);
// keyctl, fuse, mknod and mount are root@pam's; a privileged container's
// flags are root@pam's altogether; a top-level nesting= is a schema error.
func TestW33FeaturesByIdentity(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	const exceptNesting = "Permission check failed (changing feature flags (except nesting) is only allowed for root@pam)"
	for _, features := range []string{"keyctl=1", "nesting=1,fuse=1", "mount=nfs"} {
		e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "features", features}).
			wantStatus(t, http.StatusForbidden, exceptNesting)
	}
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "nesting", "1"}).
		wantParamError(t, "nesting", "property is not defined in schema and the schema does not allow additional properties")
	// A lone nesting=0 is a nesting change like nesting=1: pve-container
	// src/PVE/LXC.pm check_ct_modify_config_perm tests
	// exists($features->{nesting}), whatever its value (commit 651478e,
	// in 5.2.4).
	e.createCT(t, "102", "rootfs", "local-lvm:4", "features", "nesting=0")
	e.createCT(t, "100", "rootfs", "local-lvm:4", "features", "nesting=1")

	e.setCT(t, "100", []string{"features", "nesting=1,keyctl=1"}).wantStatus(t, http.StatusForbidden, exceptNesting)
	e.setCT(t, "100", []string{"features", "nesting=0"}).wantNull(t)
	// Removing a lone nesting=0 is a nesting change too (pve-container
	// 651478e), and so is removing nesting=1.
	e.setCT(t, "100", []string{"delete", "features"}).wantNull(t)
	e.setCT(t, "100", []string{"features", "nesting=1"}).wantNull(t)
	e.setCT(t, "100", []string{"delete", "features"}).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["features"] != "" {
		t.Errorf("features = %q after delete", cfg["features"])
	}
	// nesting needs VM.Allocate, however it changes.
	e.setCT(t, "102", []string{"features", "nesting=0,keyctl=1"}, e.asRoot(t)).wantNull(t)
	e.setCT(t, "102", []string{"delete", "features"}).wantStatus(t, http.StatusForbidden, exceptNesting)
	e.setCT(t, "102", []string{"features", "nesting=0"}, e.asRoot(t)).wantNull(t)
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.Options", "VM.Config.Disk")
	e.setCT(t, "100", []string{"features", "nesting=1"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Allocate)")
	e.setCT(t, "102", []string{"delete", "features"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/102, VM.Allocate)")
	e.sim.ClearPrivileges(testTokenUser)

	root := e.asRoot(t)
	e.setCT(t, "100", []string{"features", "nesting=1,keyctl=1,fuse=1"}, root).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["features"] != "nesting=1,keyctl=1,fuse=1" {
		t.Errorf("features = %q", cfg["features"])
	}
	// A change that keeps keyctl and fuse and toggles only nesting is fine.
	e.setCT(t, "100", []string{"features", "nesting=0,keyctl=1,fuse=1"}).wantNull(t)

	e.taskOK(t, e.postCT(t, "101", []string{"rootfs", "local-lvm:4", "unprivileged", "0"}, root))
	e.setCT(t, "101", []string{"features", "nesting=1"}).wantStatus(t, http.StatusForbidden,
		"Permission check failed (changing feature flags for privileged container is only allowed for root@pam)")
}

// A privileged container needs Sys.Modify on /; unprivileged is the
// default of create.
func TestCTCreatePrivilegedNeedsSysModify(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "VM.Audit", "VM.Config.Disk", "Datastore.AllocateSpace", "Datastore.Audit")
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "unprivileged", "0"}).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/, Sys.Modify)")
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["unprivileged"] != "1" {
		t.Errorf("unprivileged = %q", cfg["unprivileged"])
	}
}

// W35: the template must be an existing vztmpl volume: another content
// type is refused at once, a missing one fails the task, which removes the
// reserved container and frees what it allocated.
func TestW35TemplateChecks(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postCT(t, "100", []string{"ostemplate", "local:iso/debian-13-netinst.iso", "rootfs", "local-lvm:4"}).
		wantStatus(t, http.StatusInternalServerError, "unable to use volume local:iso/debian-13-netinst.iso - content type needs to be 'vztmpl'")
	e.postCT(t, "100", []string{"ostemplate", "/root/t.tar.gz", "rootfs", "local-lvm:4"}).
		wantStatus(t, http.StatusInternalServerError, "Only root can pass arbitrary filesystem paths.")
	e.taskFails(t, e.postCT(t, "100", []string{"ostemplate", "local:vztmpl/nope.tar.zst", "rootfs", "local-lvm:4", "mp0", "local-lvm:2,mp=/x"}),
		"unable to create CT 100 - volume 'local:vztmpl/nope.tar.zst' does not exist")
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("failed create left a guest")
	}
	wantVolids(t, e.sim, 100)
}

// Storage rules of create: rootdir content is needed (400 on storage),
// mount points need a rootfs, and no rootfs means 4 GiB on the default
// storage "local", which holds no container data.
func TestCTCreateStorageRules(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postCT(t, "100", []string{"rootfs", "shared-nfs:8"}).
		wantParamError(t, "storage", "storage 'shared-nfs' does not support container directories")
	e.postCT(t, "100", nil).wantParamError(t, "storage", "storage 'local' does not support container directories")
	e.postCT(t, "100", []string{"mp0", "local-lvm:2,mp=/x"}).
		wantStatus(t, http.StatusInternalServerError, "mount points configured, but 'rootfs' not set - aborting")
	e.createCT(t, "100", "storage", "local-lvm")
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["rootfs"] != "local-lvm:vm-100-disk-0,size=4G" ||
		cfg["hostname"] != "CT100" || cfg["memory"] != "512" || cfg["swap"] != "512" {
		t.Errorf("defaults: %v", cfg)
	}
	// A directory storage with rootdir content keeps a raw image file.
	if err := e.sim.Update(func(c *Cluster) error {
		st := c.Storage("shared-nfs")
		st.Content = append(st.Content, "rootdir")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.createCT(t, "101", "rootfs", "shared-nfs:0.5")
	if cfg := e.ctConfig(t, "pve1", "101"); cfg["rootfs"] != "shared-nfs:101/vm-101-disk-0.raw,size=512M" {
		t.Errorf("rootfs = %q", cfg["rootfs"])
	}
}

// W39: tty, the container's TTY count, is a config key like any other in
// create_vm's parameters (pve-container src/PVE/LXC/Config.pm, the tty
// entry of $confdesc, integer 0..6; src/PVE/API2/LXC.pm create_vm takes
// json_config_properties): accepted at create and by a config update.
// "ttys" is no parameter at all and is refused as unknown (W7).
func TestW39TtyAcceptedAtCreate(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "ttys", "2"}).
		wantParamError(t, "ttys", "property is not defined in schema and the schema does not allow additional properties")
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "tty", "7"}).
		wantParamError(t, "tty", "value must have a maximum value of 6")
	e.createCT(t, "100", "rootfs", "local-lvm:4", "tty", "4")
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["tty"] != "4" {
		t.Errorf("tty = %q after create, want 4", cfg["tty"])
	}
	e.setCT(t, "100", []string{"tty", "1"}).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["tty"] != "1" {
		t.Errorf("tty = %q after update, want 1", cfg["tty"])
	}
}

// W10, W11: while vzcreate runs the container carries "lock: create", has
// no name in /cluster/resources and refuses config writes with the CT
// text.
func TestW11CTNamelessDuringCreate(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	u := upid(t, e.postCT(t, "100", []string{"hostname", "web", "rootfs", "local-lvm:4"}))
	r := resourceByID(t, resources(t, e, "vm"), "lxc/100")
	if got := keysOf(r); got != "id,lock,node,status,type,vmid" || r["lock"] != "create" || r["status"] != "unknown" {
		t.Errorf("mid-create entry = %v", r)
	}
	// W10: the create worker holds the config flock (pve-container
	// src/PVE/API2/LXC.pm create_vm: lock_config in the worker).
	e.setCT(t, "100", []string{"hostname", "x"}).wantStatus(t, http.StatusInternalServerError,
		"can't lock file '/run/lock/lxc/pve-config-100.lock' - got timeout")
	wantVolids(t, e.sim, 100)
	clock.Advance(time.Minute)
	if st := taskStatus(t, e, "pve1", u); st.ExitStatus != "OK" {
		t.Fatalf("create task = %+v", st)
	}
	r = resourceByID(t, resources(t, e, "vm"), "lxc/100")
	if r["name"] != "web" || r["lock"] != nil {
		t.Errorf("created entry = %v", r)
	}
}

// W13: a taken vmid, VM or container, is refused synchronously with the
// text of check_vmid_unused.
func TestW13CTCreateTakenVMID(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve2", "a"), Guest{VMID: 101, Node: "pve3", Type: LXC})
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4"}).
		wantStatus(t, http.StatusInternalServerError, "VM 100 already exists on node 'pve2'")
	e.postCT(t, "101", []string{"rootfs", "local-lvm:4"}).
		wantStatus(t, http.StatusInternalServerError, "CT 101 already exists on node 'pve3'")
}

// W49: without VM.Allocate create is refused with create_vm's bare 403,
// destroy and template with the path and privilege.
func TestW49CTTokenWithoutVMAllocate(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit", "VM.Config.Options", "Datastore.AllocateSpace")
	e.postCT(t, "101", []string{"rootfs", "local-lvm:4"}).wantStatus(t, http.StatusForbidden, "Permission check failed")
	e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Allocate)")
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Allocate)")
}

// Create validates the public keys and starts the container when asked.
func TestCTCreateKeysAndStart(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "ssh-public-keys", "ssh-ed25519 AAAA me@host"}).
		wantStatus(t, http.StatusInternalServerError, "SSH public key validation error")
	e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "password", "1234"}).
		wantParamError(t, "password", "value must be at least 5 characters long")
	e.createCT(t, "100", "rootfs", "local-lvm:4", "start", "1")
	if got := e.sim.PowerState(100); got != PowerRunning {
		t.Errorf("power = %q", got)
	}
}

// A container's volumes are listed with content rootdir, a VM's disks
// with content images.
func TestCTVolumesAreRootdirContent(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4")
	e.createVM(t, "101", "scsi0", "local-lvm:4")
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/storage/local-lvm/content", nil).decode(t, &list)
	got := map[string]any{}
	for _, v := range list {
		got[v["volid"].(string)] = v["content"]
	}
	if got["local-lvm:vm-100-disk-0"] != "rootdir" || got["local-lvm:vm-101-disk-0"] != "images" {
		t.Errorf("content = %v", got)
	}
}
