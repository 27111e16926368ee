package pvesim

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Backup job API: pve-manager PVE/API2/Backup.pm (/cluster/backup) and
// PVE/API2/Cluster/BackupInfo.pm (/cluster/backup-info). Jobs live in
// jobs.cfg (pve-common src/PVE/Job/Registry.pm); the legacy vzdump.cron
// is always empty here.

func (s *Sim) registerBackupJobRoutes() {
	audit := permission{path: "/", privs: []string{"Sys.Audit"}}
	modify := permission{path: "/", privs: []string{"Sys.Modify"}}
	s.handle(http.MethodGet, "/cluster/backup", route{perm: audit, handle: s.listBackupJobs})
	s.handle(http.MethodPost, "/cluster/backup", route{perm: modify, handle: createBackupJob})
	s.handle(http.MethodGet, "/cluster/backup/{id}", route{perm: audit, handle: s.readBackupJob})
	s.handle(http.MethodPut, "/cluster/backup/{id}", route{perm: modify, handle: updateBackupJob})
	s.handle(http.MethodDelete, "/cluster/backup/{id}", route{perm: modify, handle: deleteBackupJob})
	s.handle(http.MethodGet, "/cluster/backup/{id}/included_volumes", route{perm: audit, handle: includedVolumes})
	s.handle(http.MethodGet, "/cluster/backup-info", route{handle: func(*call) (any, error) {
		return []map[string]any{{"subdir": "not-backed-up"}}, nil
	}})
	s.handle(http.MethodGet, "/cluster/backup-info/not-backed-up", route{perm: audit, handle: notBackedUp})
}

// listBackupJobs is pve-manager PVE/API2/Backup.pm index: the jobs in
// jobs.cfg order, each with its id and, for a job with a schedule, the
// next run computed from now.
func (s *Sim) listBackupJobs(c *call) (any, error) {
	out := []map[string]any{}
	for _, j := range c.cluster.BackupJobs.sorted() {
		e := s.backupJobAnswer(j)
		if next, ok := s.nextBackupRun(j.Props["schedule"]); ok {
			e["next-run"] = next
		}
		out = append(out, e)
	}
	return out, nil
}

// readBackupJob is pve-manager PVE/API2/Backup.pm read_job (no next-run).
func (s *Sim) readBackupJob(c *call) (any, error) {
	j := c.cluster.BackupJobs.Jobs[c.str("id")]
	if j == nil {
		return nil, paramError(map[string]string{"id": "No such job '" + c.str("id") + "'"})
	}
	return s.backupJobAnswer(j), nil
}

// backupJobAnswer is a job as the API returns it: jobs.cfg's options typed
// by the schema, the property strings as objects (pve-manager
// PVE/API2/Backup.pm $backup_job_return_schema), the section type and id,
// and enabled defaulting to 1 (pve-common src/PVE/Job/Registry.pm
// parse_config).
func (s *Sim) backupJobAnswer(j *BackupJob) map[string]any {
	m, _, _ := s.pve.api.Lookup(http.MethodPost, "/cluster/backup")
	out := map[string]any{"id": j.ID, "type": "vzdump", "enabled": 1}
	for k, v := range j.Props {
		info, ok := m.Param(k)
		switch {
		case ok && info.PropertyString:
			obj := map[string]any{}
			props, _ := m.PropertyString(k, v)
			for pk, pv := range props {
				obj[pk] = numberOrString(pv)
			}
			out[k] = obj
		case ok && (info.Type == "integer" || info.Type == "boolean"):
			out[k] = numberOrString(v)
		default:
			out[k] = v
		}
	}
	return out
}

func numberOrString(v string) any {
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return v
}

// assertBackupParamPermission is pve-manager PVE/API2/Backup.pm
// assert_param_permission_common plus the storage checks of
// assert_param_permission_create/_update; root@pam passes all of them.
// keys are the options set (or, for deleted, removed).
func assertBackupParamPermission(c *call, set map[string]string, deleted map[string]bool) error {
	if c.user.String() == rootUser {
		return nil
	}
	for _, keys := range []map[string]bool{backupKeySet(set), deleted} {
		for _, k := range backupRootOnlyKeys {
			if keys[k] {
				return paramError(map[string]string{k: "Only root may set this option."})
			}
		}
	}
	for _, k := range []string{"bwlimit", "ionice", "performance"} {
		if _, ok := set[k]; ok {
			if err := c.check("/", false, "Sys.Modify"); err != nil {
				return err
			}
			break
		}
	}
	if f, ok := set["fleecing"]; ok {
		props, _ := c.method.PropertyString("fleecing", f)
		if st := props["storage"]; st != "" {
			if err := c.check("/storage/"+st, false, "Datastore.AllocateSpace"); err != nil {
				return err
			}
		}
	}
	return nil
}

func backupKeySet(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// backupStorageParam is pve-manager PVE/VZDump.pm get_storage_param.
func backupStorageParam(p map[string]string) string {
	if p["dumpdir"] != "" {
		return ""
	}
	if st := p["storage"]; st != "" {
		return st
	}
	return "local"
}

// checkBackupPool is the pool check of create_job and update_job:
// check_pool_exist (pve-access-control src/PVE/RPCEnvironment.pm, a
// permission exception) and VM.Backup on the pool.
func checkBackupPool(c *call, p map[string]string) error {
	pool := p["pool"]
	if pool == "" {
		return nil
	}
	if c.cluster.Pools[pool] == nil {
		return permError("pool '" + pool + "' does not exist")
	}
	return c.check("/pool/"+pool, false, "VM.Backup")
}

// requestParams are the call's parameters without the path's id.
func (c *call) requestParams() map[string]string {
	p := map[string]string{}
	for k, v := range c.params {
		p[k] = v
	}
	return p
}

// createBackupJob is pve-manager PVE/API2/Backup.pm create_job.
func createBackupJob(c *call) (any, error) {
	p := c.requestParams()
	if c.user.String() != rootUser {
		if err := assertBackupParamPermission(c, p, nil); err != nil {
			return nil, err
		}
		if st := backupStorageParam(p); st != "" {
			if err := c.check("/storage/"+st, false, "Datastore.Allocate"); err != nil {
				return nil, err
			}
		}
	}
	if err := checkBackupPool(c, p); err != nil {
		return nil, err
	}
	if err := scheduleParamCheck(p, true); err != nil {
		return nil, err
	}
	if _, ok := p["enabled"]; !ok {
		p["enabled"] = "1"
	}
	id, ok := p["id"]
	if !ok {
		id = newJobUUID()
	}
	delete(p, "id")
	jobs := c.cluster.BackupJobs
	if jobs.Jobs[id] != nil {
		return nil, errorf("Job '%s' already exists", id)
	}
	if err := verifyVzdumpParameters(p, true); err != nil {
		return nil, err
	}
	if err := normalizePruneBackups(c, p); err != nil {
		return nil, err
	}
	jobs.add(id, p)
	return nil, nil
}

// updateBackupJob is pve-manager PVE/API2/Backup.pm update_job.
func updateBackupJob(c *call) (any, error) {
	p := c.requestParams()
	id := p["id"]
	delete(p, "id")
	deleted := map[string]bool{}
	if d, ok := p["delete"]; ok {
		for _, k := range pvegrammar.SplitList(d) {
			deleted[k] = true
		}
		delete(p, "delete")
	}
	if err := assertBackupParamPermission(c, p, deleted); err != nil {
		return nil, err
	}
	if c.user.String() != rootUser {
		var st string
		if p["storage"] != "" {
			st = p["storage"]
		} else if deleted["storage"] {
			st = "local"
		}
		if st != "" {
			if err := c.check("/storage/"+st, false, "Datastore.Allocate"); err != nil {
				return nil, err
			}
		}
	}
	if err := checkBackupPool(c, p); err != nil {
		return nil, err
	}
	if err := scheduleParamCheck(p, false); err != nil {
		return nil, err
	}
	if len(p) == 0 && len(deleted) == 0 {
		return nil, errorf("no options specified")
	}
	if err := verifyVzdumpParameters(p, false); err != nil {
		return nil, err
	}
	if err := normalizePruneBackups(c, p); err != nil {
		return nil, err
	}
	j := c.cluster.BackupJobs.Jobs[id]
	if j == nil {
		return nil, errorf("no such vzdump job")
	}
	if c.user.String() != rootUser {
		if j.Props["dumpdir"] != "" {
			// PVE dies without a newline here, so Perl appends the
			// source location to this text.
			return nil, errorf("only root@pam may edit jobs with a 'dumpdir' option.")
		}
		if st := backupStorageParam(j.Props); st != "" {
			if err := c.check("/storage/"+st, false, "Datastore.Allocate"); err != nil {
				return nil, err
			}
		}
	}
	m, _, _ := c.sim.pve.api.Lookup(http.MethodPost, "/cluster/backup")
	next := map[string]string{}
	for k, v := range j.Props {
		next[k] = v
	}
	// pve-manager PVE/API2/Backup.pm update_job: only vzdump options
	// (PVE::VZDump::option_exists) and $deletable may be deleted.
	for _, k := range sortedKeys(deleted) {
		_, isOption := m.Param(k)
		isOption = isOption && !backupJobOwnKeys[k]
		if !isOption && k != "comment" && k != "repeat-missed" {
			return nil, paramError(map[string]string{"delete": "unknown option '" + k + "'"})
		}
		delete(next, k)
	}
	for k, v := range p {
		next[k] = v
	}
	truthy := pvegrammar.PerlTruthy
	if _, ok := next["exclude"]; ok && !truthy(next["pool"]) {
		next["all"] = "1"
	}
	switch _, hasVMID := p["vmid"]; {
	case hasVMID:
		delete(next, "all")
		delete(next, "exclude")
		delete(next, "pool")
	case truthy(p["all"]):
		delete(next, "vmid")
		delete(next, "pool")
	case truthy(next["pool"]):
		delete(next, "vmid")
		delete(next, "all")
		delete(next, "exclude")
	}
	if err := verifyVzdumpParameters(next, true); err != nil {
		return nil, err
	}
	j.Props = next
	return nil, nil
}

// deleteBackupJob is pve-manager PVE/API2/Backup.pm delete_job.
func deleteBackupJob(c *call) (any, error) {
	id := c.str("id")
	jobs := c.cluster.BackupJobs
	if jobs.Jobs[id] == nil {
		return nil, paramError(map[string]string{"id": "No such job '" + id + "'"})
	}
	delete(jobs.Jobs, id)
	return nil, nil
}

// includedVolumes is pve-manager PVE/API2/Backup.pm
// get_volume_backup_included: the guests the job backs up that the caller
// may audit, with their type, name and volumes; a listed guest that does
// not exist is "unknown".
func includedVolumes(c *call) (any, error) {
	cl := c.cluster
	j := cl.BackupJobs.Jobs[c.str("id")]
	if j == nil {
		return nil, paramError(map[string]string{"id": "No such job '" + c.str("id") + "'"})
	}
	ids := sortedIntKeys(cl.includedGuests(j))
	children := []map[string]any{}
	for _, id := range ids {
		if !c.can("/vms/"+strconv.Itoa(id), false, "VM.Audit") {
			continue
		}
		g := cl.Guests[id]
		if g == nil {
			children = append(children, map[string]any{"id": id, "type": "unknown", "leaf": 1})
			continue
		}
		vols := cl.conf.backupVolumes(g)
		leaf := 0
		if len(vols) == 0 {
			leaf = 1
		}
		children = append(children, map[string]any{
			"id": id, "type": string(g.Type), "name": backupGuestName(g),
			"children": vols, "leaf": leaf,
		})
	}
	return map[string]any{"children": children}, nil
}

// notBackedUp is pve-manager PVE/API2/Cluster/BackupInfo.pm
// get_guests_not_in_backup: the guests the caller may audit that no job
// includes (get_included_vmids).
func notBackedUp(c *call) (any, error) {
	cl := c.cluster
	included := map[int]bool{}
	for _, j := range cl.BackupJobs.Jobs {
		for id := range cl.includedGuests(j) {
			included[id] = true
		}
	}
	out := []map[string]any{}
	ids := make([]int, 0, len(cl.Guests))
	for id := range cl.Guests {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if included[id] || !c.can("/vms/"+strconv.Itoa(id), false, "VM.Audit") {
			continue
		}
		g := cl.Guests[id]
		e := map[string]any{"vmid": id, "type": string(g.Type)}
		if name, ok := guestNameKey(g); ok {
			e["name"] = name
		}
		out = append(out, e)
	}
	return out, nil
}

// guestNameKey is the config's name (qemu) or hostname (lxc).
func guestNameKey(g *Guest) (string, bool) {
	key := "name"
	if g.Type == LXC {
		key = "hostname"
	}
	v, ok := g.Config[key]
	return v, ok
}

func backupGuestName(g *Guest) string {
	n, _ := guestNameKey(g)
	return n
}

func sortedIntKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// nextBackupRun is the listing's next-run: pve-manager PVE/API2/Backup.pm
// index computes it from now with Proxmox::RS::CalendarEvent
// compute_next_event, in the node's local time. The simulated nodes run
// in UTC.
func (s *Sim) nextBackupRun(schedule string) (int64, bool) {
	if schedule == "" {
		return 0, false
	}
	ev, msg := pvegrammar.ParseCalendarEvent(schedule)
	if msg != "" || ev == nil {
		return 0, false
	}
	return ev.NextEvent(s.now().Unix(), time.UTC)
}

// normalizePruneBackups stores prune-backups as PVE writes it: parsed with
// its validator, which turns counts of zero into keep-all=1 and drops a
// keep-all beside counts (pve-manager PVE/VZDump.pm
// verify_vzdump_parameters $parse_prune_backups, then pve-guest-common
// src/PVE/VZDump/JobBase.pm encode_value, print_property_string).
func normalizePruneBackups(c *call, p map[string]string) error {
	v, ok := p["prune-backups"]
	if !ok {
		return nil
	}
	opts, _ := c.method.PropertyString("prune-backups", v)
	printed, msg := pvegrammar.PrintPruneBackups(opts)
	if msg != "" {
		return paramError(map[string]string{"prune-backups": msg})
	}
	p["prune-backups"] = printed
	return nil
}

// backupVolumes are a guest's volumes with whether a backup includes them:
// qemu-server src/PVE/QemuConfig.pm get_backup_volumes (drives in
// valid_drive_names order, CD-ROMs left out, backup=0 excluded, an EFI
// disk only with OVMF) and pve-container src/PVE/LXC/Config.pm
// get_backup_volumes with mountpoint_backup_enabled (rootfs always, a
// mount point when it is a volume with backup=1).
func (cs *guestSchema) backupVolumes(g *Guest) []map[string]any {
	out := []map[string]any{}
	add := func(key, name string, included bool, reason string) {
		out = append(out, map[string]any{
			"id": strconv.Itoa(g.VMID) + ":" + key, "name": name, "included": boolInt(included),
			"reason": reason, "leaf": 1,
		})
	}
	if g.Type == QEMU {
		for _, key := range pvegrammar.QemuDriveKeys() {
			v, ok := g.Config[key]
			if !ok {
				continue
			}
			d, ok := cs.parseDrive(key, v)
			if !ok || d.isCDROM() {
				continue
			}
			b, set := d["backup"]
			included, reason := !set || pvegrammar.PerlTruthy(b), "backup=yes"
			if set {
				reason = "backup=no"
			}
			if strings.HasPrefix(key, "efidisk") && g.Config["bios"] != "ovmf" {
				included, reason = false, "efidisk but no OVMF BIOS"
			}
			add(key, d.file(), included, reason)
		}
		return out
	}
	keys := []string{"rootfs"}
	for i := 0; i < pvegrammar.LXCMountPoints; i++ {
		keys = append(keys, "mp"+strconv.Itoa(i))
	}
	for _, key := range keys {
		v, ok := g.Config[key]
		if !ok {
			continue
		}
		mp, err := cs.parseMountPoint(key, v)
		if err != nil {
			continue
		}
		switch {
		case key == "rootfs":
			add(key, mp.volume(), true, "rootfs")
		case !mp.isVolume():
			add(key, mp.volume(), false, "not a volume")
		case pvegrammar.PerlTruthy(mp["backup"]):
			add(key, mp.volume(), true, "enabled")
		default:
			add(key, mp.volume(), false, "disabled")
		}
	}
	return out
}
