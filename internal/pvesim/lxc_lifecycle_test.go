package pvesim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Power: pve-container refuses a start of a running container and a stop,
// shutdown or reboot of a stopped one synchronously (reboot says "VM").
func TestCTPowerRules(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "hostname", "web", "cores", "2")
	for _, action := range []string{"stop", "shutdown", "suspend"} {
		e.ctPower(t, "100", action).wantStatus(t, http.StatusInternalServerError, "CT 100 not running")
	}
	e.ctPower(t, "100", "reboot").wantStatus(t, http.StatusInternalServerError, "VM 100 not running")
	info := e.taskOK(t, e.ctPower(t, "100", "start"))
	if info.Type != "vzstart" {
		t.Errorf("task type %q", info.Type)
	}
	e.ctPower(t, "100", "start").wantStatus(t, http.StatusInternalServerError, "CT 100 already running")
	e.ctPower(t, "100", "resume").wantStatus(t, http.StatusInternalServerError, "CT 100 already running")
	var st map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/lxc/100/status/current", nil).decode(t, &st)
	if st["status"] != "running" || st["name"] != "web" || st["cpus"] != float64(2) || st["pid"] == nil ||
		st["ha"] == nil || st["maxdisk"] != float64(4*gib) {
		t.Errorf("status = %v", st)
	}
	e.taskOK(t, e.ctPower(t, "100", "reboot"))
	e.taskOK(t, e.ctPower(t, "100", "shutdown"))
	if got := e.sim.PowerState(100); got != PowerStopped {
		t.Errorf("power = %q", got)
	}
	// A locked container's start fails in its task.
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	e.taskFails(t, e.ctPower(t, "100", "start"), "CT is locked (backup)")
	// A start of a missing container fails in the task with W12's text.
	e.taskFails(t, e.ctPower(t, "999", "start"), "Configuration file 'nodes/pve1/lxc/999.conf' does not exist")
}

// W9, W17: the container template call answers null (no UPID); when it
// returns, rootfs and the volume mount points are "base-" volumes and the
// config says template. A running container is refused; a template does
// not start and cannot be made a template again.
func TestW17CTTemplate(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "mp0", "local-lvm:1,mp=/data", "start", "1")
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).
		wantStatus(t, http.StatusInternalServerError, "you can't convert a CT to template if the CT is running")
	e.taskOK(t, e.ctPower(t, "100", "stop"))
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantNull(t)
	cfg := e.ctConfig(t, "pve1", "100")
	wantConfig(t, cfg, map[string]string{
		"template": "1", "rootfs": "local-lvm:base-100-disk-0,size=4G", "mp0": "local-lvm:base-100-disk-1,mp=/data,size=1G",
	})
	wantVolids(t, e.sim, 100, "local-lvm:base-100-disk-0", "local-lvm:base-100-disk-1")
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).
		wantStatus(t, http.StatusInternalServerError, "you can't convert a template to a template")
	e.taskFails(t, e.ctPower(t, "100", "start"), "you can't start a CT if it's a template")
	e.sim.ReportStats()
	if r := resourceByID(t, resources(t, e, "vm"), "lxc/100"); r["template"] != float64(1) {
		t.Errorf("resource = %v", r)
	}
}

// W17: a bind mount has no template feature: the template task fails, the
// answer is still null, and nothing is renamed.
func TestW17CTTemplateWithBindMount(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	root := e.asRoot(t)
	e.taskOK(t, e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "mp0", "/srv/x,mp=/x"}, root))
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantNull(t)
	if cfg := e.ctConfig(t, "pve1", "100"); cfg["template"] != "" || cfg["rootfs"] != "local-lvm:vm-100-disk-0,size=4G" {
		t.Errorf("config = %v", cfg)
	}
}

// W22: resize is a task that grows; shrinking and the same size are
// refused before the task, with pve-container's texts.
func TestW22CTResize(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:8", "mp0", "local-lvm:2,mp=/data")
	resize := func(disk, size string) *answer {
		return e.call(t, http.MethodPut, "/nodes/pve1/lxc/100/resize", form("disk", disk, "size", size))
	}
	info := e.taskOK(t, resize("rootfs", "+2G"))
	if info.Type != "resize" {
		t.Errorf("task type %q", info.Type)
	}
	e.taskOK(t, resize("mp0", "3G"))
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{
		"rootfs": "local-lvm:vm-100-disk-0,size=10G", "mp0": "local-lvm:vm-100-disk-1,mp=/data,size=3G",
	})
	if got := volumeSizeOf(t, e.sim, "local-lvm:vm-100-disk-0"); got != 10*gib {
		t.Errorf("volume size %d", got)
	}
	resize("rootfs", "8G").wantStatus(t, http.StatusInternalServerError, "unable to shrink disk size")
	resize("rootfs", "10G").wantStatus(t, http.StatusInternalServerError, "disk is already at specified size")
	a := resize("mp1", "1G")
	a.wantStatus(t, http.StatusInternalServerError, "format error")
	if a.errors["volume"] != "property is missing and it is not optional" {
		t.Errorf("errors = %v", a.errors)
	}
}

// W23: move_volume copies a volume to another storage with rootdir
// content under a new volid; the source becomes unusedN unless delete=1.
// A running container is refused at once; a target without container
// data fails the task.
func TestW23CTMoveVolume(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	if err := e.sim.Update(func(c *Cluster) error {
		st := c.Storage("shared-nfs")
		st.Content = append(st.Content, "rootdir")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.createCT(t, "100", "rootfs", "local-lvm:4", "mp0", "local-lvm:1,mp=/data,backup=1")
	move := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/move_volume", form(kv...))
	}
	info := e.taskOK(t, move("volume", "rootfs", "storage", "shared-nfs"))
	if info.Type != "move_volume" {
		t.Errorf("task type %q", info.Type)
	}
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{
		"rootfs": "shared-nfs:100/vm-100-disk-0.raw,size=4G", "unused0": "local-lvm:vm-100-disk-0", "lock": "",
	})
	e.taskOK(t, move("volume", "mp0", "storage", "shared-nfs", "delete", "1"))
	wantConfig(t, e.ctConfig(t, "pve1", "100"), map[string]string{
		"mp0": "shared-nfs:100/vm-100-disk-1.raw,mp=/data,backup=1,size=1G", "unused1": "",
	})
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "shared-nfs:100/vm-100-disk-0.raw", "shared-nfs:100/vm-100-disk-1.raw")
	e.taskFails(t, move("volume", "mp0", "storage", "local"),
		"content type 'rootdir' is not available or configured on storage 'local'")
	move("volume", "unused0", "storage", "shared-nfs").wantStatus(t, http.StatusInternalServerError,
		"cannot move volume 'unused0', only configured volumes can be moved to another storage")
	move("volume", "rootfs").wantParamError(t, "storage", "both 'storage' and 'target-vmid' missing, either needs to be set")
	e.taskOK(t, e.ctPower(t, "100", "start"))
	move("volume", "rootfs", "storage", "local-lvm").
		wantStatus(t, http.StatusInternalServerError, "cannot move volumes of a running container")
}

// A running container migrates only in restart mode; live migration is
// refused in the task. The container moves with its local volumes under
// the same volids and runs again on the target.
func TestCTMigrateRestartRule(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "100", "rootfs", "local-lvm:4", "mp0", "local-lvm:1,mp=/data", "start", "1")
	migrate := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/migrate", form(append([]string{"target", "pve2"}, kv...)...))
	}
	migrate().wantStatus(t, http.StatusInternalServerError, "can't migrate running container without --online or --restart")
	info := e.taskFails(t, migrate("online", "1"), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"), "lxc live migration is currently not implemented") {
		t.Errorf("log = %q", info.Log)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["lock"] != "" {
		t.Errorf("lock left after abort: %q", cfg["lock"])
	}
	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/migrate", form("target", "pve1")).
		wantParamError(t, "target", "target is local node.")
	info = e.taskOK(t, migrate("restart", "1"))
	if info.Type != "vzmigrate" {
		t.Errorf("task type %q", info.Type)
	}
	g, _ := e.sim.Guest(100)
	if g.Node != "pve2" || g.Status != "running" || g.Lock() != "" {
		t.Errorf("guest after migrate: node %s status %s lock %q", g.Node, g.Status, g.Lock())
	}
	for _, v := range e.sim.VolumesOf(100) {
		if v.Node != "pve2" {
			t.Errorf("volume %s stayed on %s", v.VolID, v.Node)
		}
	}
	wantVolids(t, e.sim, 100, "local-lvm:vm-100-disk-0", "local-lvm:vm-100-disk-1")
	wantConfig(t, e.ctConfig(t, "pve2", "100"), map[string]string{"rootfs": "local-lvm:vm-100-disk-0,size=4G"})
}

// A bind mount that is not marked shared keeps a container on its node.
func TestCTMigrateBindMount(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.taskOK(t, e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "mp0", "/srv/x,mp=/x"}, e.asRoot(t)))
	info := e.taskFails(t, e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/migrate", form("target", "pve2")), "migration aborted")
	if !strings.Contains(strings.Join(info.Log, "\n"), "cannot migrate local bind mount point 'mp0'") {
		t.Errorf("log = %q", info.Log)
	}
}

// Destroy: protection and a running container are refused synchronously;
// purge destroys the owned volumes (a detached one too) and removes the
// container from its pool.
func TestCTDestroy(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.createCT(t, "100", "rootfs", "local-lvm:4", "mp0", "local-lvm:1,mp=/data", "pool", "prod",
		"protection", "1", "start", "1")
	e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil).
		wantStatus(t, http.StatusInternalServerError, "can't remove CT 100 - protection mode enabled")
	e.setCT(t, "100", []string{"delete", "protection"}).wantNull(t)
	e.setCT(t, "100", []string{"delete", "mp0"}).wantNull(t) // pending: the container runs
	e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", nil).
		wantStatus(t, http.StatusInternalServerError, "unable to destroy CT 100 - container is running")
	e.taskOK(t, e.ctPower(t, "100", "stop"))
	e.taskOK(t, e.ctPower(t, "100", "start")) // applies the pending removal: mp0 becomes unused0
	e.taskOK(t, e.ctPower(t, "100", "stop"))
	if cfg, _ := e.sim.GuestConfig(100); cfg["unused0"] != "local-lvm:vm-100-disk-1" {
		t.Fatalf("config = %v", cfg)
	}
	info := e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/lxc/100", form("purge", "1")))
	if info.Type != "vzdestroy" {
		t.Errorf("task type %q", info.Type)
	}
	if _, ok := e.sim.Guest(100); ok {
		t.Fatal("guest still there")
	}
	wantVolids(t, e.sim, 100)
	if p, _ := e.sim.Pool("prod"); p.VMs[100] {
		t.Error("still a pool member")
	}
}

// The test helpers work for containers: DeleteGuest frees the owned
// volumes, a bind mount's host path is not a volume.
func TestCTDeleteGuestHelper(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.taskOK(t, e.postCT(t, "100", []string{"rootfs", "local-lvm:4", "mp0", "/srv/x,mp=/x", "start", "1"}, e.asRoot(t)))
	if err := e.sim.SetGuestConfig(100, "description", "drift"); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["description"] != "drift" {
		t.Errorf("config = %v", cfg)
	}
	if err := e.sim.DeleteGuest(100); err != nil {
		t.Fatal(err)
	}
	wantVolids(t, e.sim, 100)
	e.call(t, http.MethodGet, "/nodes/pve1/lxc/100/config", nil).
		wantStatus(t, http.StatusInternalServerError, "Configuration file 'nodes/pve1/lxc/100.conf' does not exist")
}

// Clone: the new container's config is written at once with "lock:
// create" (W11: nameless until the task ends), a taken newid is refused
// synchronously (W13); a full clone copies each volume, gets new MACs and
// no template flag; a linked clone of a template shares its base volumes;
// a bind mount cannot be cloned.
func TestCTClone(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newCTEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	settle := func(a *answer) TaskInfo {
		t.Helper()
		u := upid(t, a)
		clock.Advance(time.Minute)
		info, _ := e.sim.Task(u)
		return info
	}
	settle(e.postCT(t, "100", []string{"hostname", "base", "rootfs", "local-lvm:4", "mp0", "local-lvm:1,mp=/data",
		"net0", "name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01"}))
	clone := func(src string, kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/lxc/"+src+"/clone", form(kv...))
	}
	addGuests(t, e.sim, vm(150, "pve2", "taken"))
	clone("100", "newid", "150").wantStatus(t, http.StatusInternalServerError, "VM 150 already exists on node 'pve2'")

	a := clone("100", "newid", "101", "hostname", "copy")
	if r := resourceByID(t, resources(t, e, "vm"), "lxc/101"); r["lock"] != "create" || r["name"] != nil {
		t.Errorf("mid-clone entry = %v", r)
	}
	if cfg, _ := e.sim.GuestConfig(100); cfg["lock"] != "disk" {
		t.Errorf("source lock = %q", cfg["lock"])
	}
	if info := settle(a); info.ExitStatus != "OK" {
		t.Fatalf("clone task = %+v", info)
	}
	cfg := e.ctConfig(t, "pve1", "101")
	wantConfig(t, cfg, map[string]string{
		"hostname": "copy", "rootfs": "local-lvm:vm-101-disk-0,size=4G", "mp0": "local-lvm:vm-101-disk-1,mp=/data,size=1G",
		"lock": "",
	})
	if cfg["net0"] == "" || strings.Contains(cfg["net0"], "BC:24:11:00:00:01") {
		t.Errorf("net0 = %q", cfg["net0"])
	}
	if src, _ := e.sim.GuestConfig(100); src["lock"] != "" {
		t.Errorf("source still locked: %q", src["lock"])
	}

	e.call(t, http.MethodPost, "/nodes/pve1/lxc/100/template", nil).wantNull(t)
	if info := settle(clone("100", "newid", "102")); info.ExitStatus != "OK" {
		t.Fatalf("linked clone task = %+v", info)
	}
	wantConfig(t, e.ctConfig(t, "pve1", "102"), map[string]string{
		"rootfs": "local-lvm:vm-102-disk-0,size=4G", "template": "",
	})
	for _, v := range e.sim.VolumesOf(102) {
		if !strings.HasPrefix(v.Base, "local-lvm:base-100-disk-") {
			t.Errorf("volume %s base %q", v.VolID, v.Base)
		}
	}
	clone("100", "newid", "103", "storage", "local-lvm", "full", "0").
		wantStatus(t, http.StatusInternalServerError, "parameter 'storage' not allowed for linked clones")

	settle(e.postCT(t, "104", []string{"rootfs", "local-lvm:4", "mp0", "/srv/x,mp=/x"}, e.asRoot(t)))
	clone("104", "newid", "105").wantStatus(t, http.StatusInternalServerError, "unable to clone mountpoint 'mp0' (type bind)")
	if cfg, _ := e.sim.GuestConfig(104); cfg["lock"] != "" {
		t.Errorf("refused clone left lock %q", cfg["lock"])
	}
}
