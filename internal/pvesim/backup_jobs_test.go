package pvesim

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func backupJob(t *testing.T, e *env, id string) map[string]any {
	t.Helper()
	var out map[string]any
	e.call(t, http.MethodGet, "/cluster/backup/"+id, nil).decode(t, &out)
	return out
}

func wantParamError(t *testing.T, a *answer, param, text string) {
	t.Helper()
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors[param] != text {
		t.Fatalf("errors = %v, want %s: %q", a.errors, param, text)
	}
}

// pve-manager PVE/API2/Backup.pm create_job, read_job, index, delete_job:
// a job is stored with enabled=1, read back with its id and type, the
// property strings as objects.
func TestBackupJobCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.call(t, http.MethodPost, "/cluster/backup", form(
		"id", "nightly", "schedule", "21:00", "vmid", "100", "storage", "local",
		"mode", "snapshot", "prune-backups", "keep-last=3,keep-daily=7", "fleecing", "1,storage=local-lvm",
		"comment", "every night")).wantOK(t)
	j := backupJob(t, e, "nightly")
	if j["id"] != "nightly" || j["type"] != "vzdump" || j["enabled"] != float64(1) || j["vmid"] != "100" ||
		j["schedule"] != "21:00" || j["comment"] != "every night" {
		t.Fatalf("job = %v", j)
	}
	if pb, _ := j["prune-backups"].(map[string]any); pb["keep-last"] != float64(3) || pb["keep-daily"] != float64(7) {
		t.Errorf("prune-backups = %v", j["prune-backups"])
	}
	if f, _ := j["fleecing"].(map[string]any); f["enabled"] != float64(1) || f["storage"] != "local-lvm" {
		t.Errorf("fleecing = %v", j["fleecing"])
	}
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "nightly", "schedule", "21:00", "all", "1")).
		wantStatus(t, http.StatusInternalServerError, "Job 'nightly' already exists")

	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/backup", nil).decode(t, &list)
	if len(list) != 1 || list[0]["id"] != "nightly" {
		t.Fatalf("list = %v", list)
	}

	e.call(t, http.MethodDelete, "/cluster/backup/nightly", nil).wantOK(t)
	wantParamError(t, e.call(t, http.MethodGet, "/cluster/backup/nightly", nil), "id", "No such job 'nightly'")
	wantParamError(t, e.call(t, http.MethodDelete, "/cluster/backup/nightly", nil), "id", "No such job 'nightly'")
	e.call(t, http.MethodPut, "/cluster/backup/nightly", form("comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "no such vzdump job")
}

// pve-manager PVE/API2/Backup.pm create_job: without an id the job gets
// UUID::uuid().
func TestBackupJobGeneratedID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/backup", form("schedule", "sat 02:00", "all", "1")).wantOK(t)
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/backup", nil).decode(t, &list)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	if len(list) != 1 || !uuid.MatchString(list[0]["id"].(string)) {
		t.Fatalf("list = %v", list)
	}
}

// pve-manager PVE/VZDump.pm verify_vzdump_parameters and PVE/API2/Backup.pm
// $schedule_param_check: the selection rules and the schedule.
func TestBackupJobSelectionRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	post := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/backup", form(append([]string{"schedule", "daily"}, kv...)...))
	}
	wantParamError(t, post("all", "1", "vmid", "100"), "all", "option conflicts with option 'vmid'")
	wantParamError(t, post("exclude", "101", "vmid", "100"), "exclude", "option conflicts with option 'vmid'")
	wantParamError(t, post("storage", "local"), "vmid", "property is missing")
	wantParamError(t, e.call(t, http.MethodPost, "/cluster/backup", form("all", "1")),
		"schedule", "neither 'starttime' nor 'schedule' were set")
	wantParamError(t, post("all", "1", "starttime", "02:00"), "starttime", "'starttime' and 'schedule' cannot both be set")
	// PVE/API2/Backup.pm create_job: check_pool_exist is a permission
	// exception.
	post("pool", "nope").wantStatus(t, http.StatusForbidden, "Permission check failed (pool 'nope' does not exist)")
	// verify_backup_fleecing (pve-guest-common src/PVE/VZDump/Common.pm).
	wantParamError(t, post("all", "1", "fleecing", "enabled=1"), "fleecing",
		"invalid format - 'storage' parameter is required when 'enabled' is set\n")
	wantParamError(t, post("all", "1", "storage", "local", "notes-template", "{{guestname}} {{foo}} \\t"),
		"notes-template", "found unknown: escape sequence '\\t' at char 22, variable 'foo' at char 18\n")

	// exclude without a pool means all guests.
	post("id", "ex", "exclude", "100").wantOK(t)
	if j := backupJob(t, e, "ex"); j["all"] != float64(1) || j["exclude"] != "100" {
		t.Fatalf("job = %v", j)
	}
	// starttime and dow become a schedule.
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "old", "starttime", "02:30", "dow", "mon,tue", "all", "1")).wantOK(t)
	if j := backupJob(t, e, "old"); j["schedule"] != "mon,tue 02:30" || j["starttime"] != nil {
		t.Fatalf("job = %v", j)
	}
}

// pve-manager PVE/API2/Backup.pm assert_param_permission_common: tmpdir,
// dumpdir and script only for root@pam; a token of root@pam is not
// root@pam.
func TestBackupJobRootOnlyOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{testPassword, "root@pam=secret"}})
	for _, k := range []string{"tmpdir", "dumpdir", "script"} {
		wantParamError(t, e.call(t, http.MethodPost, "/cluster/backup",
			form("schedule", "daily", "all", "1", k, "/tmp/x")), k, "Only root may set this option.")
	}
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "jb", "schedule", "daily", "all", "1")).wantOK(t)
	wantParamError(t, e.call(t, http.MethodPut, "/cluster/backup/jb", form("delete", "script")),
		"script", "Only root may set this option.")

	// root@pam with a ticket may.
	tk := login(t, e, "root@pam", "secret")
	asRoot := []func(*http.Request){withTicket(tk.Ticket), withHeader(csrfHeader, tk.CSRF)}
	e.call(t, http.MethodPut, "/cluster/backup/jb", form("script", "/usr/local/bin/hook", "dumpdir", "/srv/dump"), asRoot...).wantOK(t)
	// A job with a dumpdir is root's alone (assert_param_permission_update).
	e.call(t, http.MethodPut, "/cluster/backup/jb", form("comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "only root@pam may edit jobs with a 'dumpdir' option.")
}

// pve-manager PVE/API2/Backup.pm update_job: deletable keys, the
// selection switch, "no options specified".
func TestBackupJobUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	if err := e.sim.Update(func(c *Cluster) error {
		c.Pools["prod"] = &Pool{ID: "prod", VMs: map[int]bool{}, Storages: map[string]bool{}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "jb", "schedule", "daily", "all", "1", "exclude", "100",
		"comment", "c", "enabled", "0")).wantOK(t)
	e.call(t, http.MethodPut, "/cluster/backup/jb", nil).wantStatus(t, http.StatusInternalServerError, "no options specified")
	wantParamError(t, e.call(t, http.MethodPut, "/cluster/backup/jb", form("delete", "enabled")), "delete", "unknown option 'enabled'")
	wantParamError(t, e.call(t, http.MethodPut, "/cluster/backup/jb", form("delete", "schedule")), "delete", "unknown option 'schedule'")

	e.call(t, http.MethodPut, "/cluster/backup/jb", form("vmid", "100,101", "delete", "comment")).wantOK(t)
	j := backupJob(t, e, "jb")
	if j["vmid"] != "100,101" || j["all"] != nil || j["exclude"] != nil || j["comment"] != nil || j["enabled"] != float64(0) {
		t.Fatalf("after vmid: %v", j)
	}
	e.call(t, http.MethodPut, "/cluster/backup/jb", form("pool", "prod")).wantOK(t)
	if j := backupJob(t, e, "jb"); j["pool"] != "prod" || j["vmid"] != nil {
		t.Fatalf("after pool: %v", j)
	}
	e.call(t, http.MethodPut, "/cluster/backup/jb", form("all", "1", "delete", "pool")).wantOK(t)
	if j := backupJob(t, e, "jb"); j["all"] != float64(1) || j["pool"] != nil {
		t.Fatalf("after all: %v", j)
	}
	wantParamError(t, e.call(t, http.MethodPut, "/cluster/backup/jb", form("delete", "all")), "vmid", "property is missing")
}

// pve-guest-common src/PVE/VZDump/Plugin.pm remove_vmid_from_backup_jobs:
// a purged guest leaves guest lists and exclude lists; a job whose guest
// list becomes empty is deleted.
func TestBackupJobPurgeRemovesGuest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "a"), vm(101, "pve1", "b"))
	for _, f := range [][]string{
		{"id", "two", "vmid", "100,101"},
		{"id", "one", "vmid", "100"},
		{"id", "ex", "all", "1", "exclude", "100"},
	} {
		e.call(t, http.MethodPost, "/cluster/backup", form(append([]string{"schedule", "daily"}, f...)...)).wantOK(t)
	}
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", form("purge", "1")))
	if j := backupJob(t, e, "two"); j["vmid"] != "101" {
		t.Errorf("two = %v", j)
	}
	if j := backupJob(t, e, "ex"); j["exclude"] != nil || j["all"] != float64(1) {
		t.Errorf("ex = %v", j)
	}
	wantParamError(t, e.call(t, http.MethodGet, "/cluster/backup/one", nil), "id", "No such job 'one'")
	// Without purge the lists keep the id.
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/101", nil))
	if j := backupJob(t, e, "two"); j["vmid"] != "101" {
		t.Errorf("two after destroy without purge = %v", j)
	}
}

// pve-manager PVE/API2/Cluster/BackupInfo.pm get_guests_not_in_backup and
// PVE/VZDump.pm get_included_guests (a job bound to a node covers only
// its guests).
func TestBackupInfoNotBackedUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "a"), vm(101, "pve2", "b"),
		Guest{VMID: 102, Node: "pve1", Type: LXC, Config: map[string]string{"hostname": "c"}})
	e.call(t, http.MethodPost, "/cluster/backup", form("schedule", "daily", "all", "1", "node", "pve1", "exclude", "102")).wantOK(t)
	var out []map[string]any
	e.call(t, http.MethodGet, "/cluster/backup-info/not-backed-up", nil).decode(t, &out)
	if len(out) != 2 || out[0]["vmid"] != float64(101) || out[0]["name"] != "b" || out[0]["type"] != "qemu" ||
		out[1]["vmid"] != float64(102) || out[1]["name"] != "c" || out[1]["type"] != "lxc" {
		t.Fatalf("not backed up = %v", out)
	}
}

// pve-manager PVE/API2/Backup.pm index: next-run from now, per the
// schedule (the simulated nodes run in UTC); read_job has none.
func TestBackupJobNextRun(t *testing.T) {
	t.Parallel()
	clock := newFakeClock() // Wednesday 2026-05-20 10:00 UTC
	e := newEnv(t, Options{Now: clock.Now})
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "tonight", "schedule", "21:00", "all", "1")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "weekend", "schedule", "sat 02:00", "all", "1")).wantOK(t)
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/backup", nil).decode(t, &list)
	want := map[string]int64{
		"tonight": time.Date(2026, 5, 20, 21, 0, 0, 0, time.UTC).Unix(),
		"weekend": time.Date(2026, 5, 23, 2, 0, 0, 0, time.UTC).Unix(),
	}
	for _, j := range list {
		if got, _ := j["next-run"].(float64); int64(got) != want[j["id"].(string)] {
			t.Errorf("%v next-run = %v, want %d", j["id"], j["next-run"], want[j["id"].(string)])
		}
	}
	if j := backupJob(t, e, "tonight"); j["next-run"] != nil {
		t.Errorf("read_job answers next-run: %v", j)
	}
	// The schedule's format check is the schema layer's (its text is
	// pinned with the calendar grammar).
	a := e.call(t, http.MethodPost, "/cluster/backup", form("schedule", "fry 02:00", "all", "1"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if !strings.Contains(a.errors["schedule"], "invalid calendar event 'fry 02:00'") {
		t.Errorf("errors = %v", a.errors)
	}
}

// The job stores prune-backups as PVE's validator leaves it (pve-storage
// src/PVE/Storage/Plugin.pm validate_prune_backups via
// print_property_string).
func TestBackupJobPruneBackupsNormalized(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "zero", "schedule", "daily", "all", "1", "prune-backups", "keep-last=0")).wantOK(t)
	if pb, _ := backupJob(t, e, "zero")["prune-backups"].(map[string]any); len(pb) != 1 || pb["keep-all"] != float64(1) {
		t.Errorf("zero counts = %v", pb)
	}
	e.call(t, http.MethodPut, "/cluster/backup/zero", form("prune-backups", "keep-all=0,keep-weekly=2")).wantOK(t)
	if pb, _ := backupJob(t, e, "zero")["prune-backups"].(map[string]any); len(pb) != 1 || pb["keep-weekly"] != float64(2) {
		t.Errorf("keep-all=0 with a count = %v", pb)
	}
	wantParamError(t, e.call(t, http.MethodPut, "/cluster/backup/zero", form("prune-backups", "keep-all=1,keep-last=2")),
		"prune-backups", "invalid format - keep-all cannot be set together with other options.\n")
}

// pve-manager PVE/API2/Backup.pm get_volume_backup_included with
// qemu-server src/PVE/QemuConfig.pm and pve-container src/PVE/LXC/Config.pm
// get_backup_volumes: each guest's volumes and why they are in or out; a
// listed guest that does not exist is "unknown".
func TestBackupJobIncludedVolumes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	g := vm(100, "pve1", "web")
	g.Config["scsi0"] = "local-lvm:vm-100-disk-0,size=4G"
	g.Config["scsi1"] = "local-lvm:vm-100-disk-1,backup=0,size=4G"
	g.Config["ide2"] = "none,media=cdrom"
	g.Config["efidisk0"] = "local-lvm:vm-100-disk-2,size=4M"
	ct := Guest{VMID: 101, Node: "pve1", Type: LXC, Config: map[string]string{
		"hostname": "db", "rootfs": "local-lvm:subvol-101-disk-0,size=8G",
		"mp0": "local-lvm:subvol-101-disk-1,mp=/srv,backup=1,size=1G", "mp1": "/mnt/host,mp=/host",
	}}
	addGuests(t, e.sim, g, ct)
	e.call(t, http.MethodPost, "/cluster/backup", form("id", "jb", "schedule", "daily", "vmid", "100,101,199")).wantOK(t)
	var tree struct {
		Children []struct {
			ID       int              `json:"id"`
			Type     string           `json:"type"`
			Name     string           `json:"name"`
			Children []map[string]any `json:"children"`
		} `json:"children"`
	}
	e.call(t, http.MethodGet, "/cluster/backup/jb/included_volumes", nil).decode(t, &tree)
	if len(tree.Children) != 3 || tree.Children[2].ID != 199 || tree.Children[2].Type != "unknown" {
		t.Fatalf("tree = %+v", tree)
	}
	got := func(i int) string {
		var parts []string
		for _, v := range tree.Children[i].Children {
			parts = append(parts, fmt.Sprintf("%v %v %v %v", v["id"], v["name"], v["included"], v["reason"]))
		}
		return strings.Join(parts, "; ")
	}
	if want := "100:scsi0 local-lvm:vm-100-disk-0 1 backup=yes; 100:scsi1 local-lvm:vm-100-disk-1 0 backup=no; " +
		"100:efidisk0 local-lvm:vm-100-disk-2 0 efidisk but no OVMF BIOS"; got(0) != want || tree.Children[0].Name != "web" {
		t.Errorf("vm volumes = %s", got(0))
	}
	if want := "101:rootfs local-lvm:subvol-101-disk-0 1 rootfs; 101:mp0 local-lvm:subvol-101-disk-1 1 enabled; " +
		"101:mp1 /mnt/host 0 not a volume"; got(1) != want || tree.Children[1].Name != "db" {
		t.Errorf("container volumes = %s", got(1))
	}
}
