package pvesim

import (
	"strconv"
	"strings"
)

// Guest snapshots, shared by VMs and containers: pve-guest-common
// src/PVE/AbstractConfig.pm snapshot_create, snapshot_delete and
// snapshot_rollback, with the per-kind hooks of qemu-server
// src/PVE/QemuConfig.pm and pve-container src/PVE/LXC/Config.pm. The API
// methods are qemu-server src/PVE/API2/Qemu.pm (snapshot_list, snapshot,
// delsnapshot, rollback, get/update_snapshot_config) and pve-container
// src/PVE/API2/LXC/Snapshot.pm.
//
// As PVE's workers do, each task runs its checks and takes its lock when it
// starts (the handler, which forks it) and finishes the work when it ends;
// a check that fails inside PVE's worker fails the task, not the request.

// Keys PVE keeps in a snapshot section besides the copied config.
const (
	snapParent      = "parent"
	snapTime        = "snaptime"
	snapState       = "snapstate"
	snapVMState     = "vmstate"
	snapDescription = "description"
)

// snapshotVolume is one entry of foreach_volume over a config: the key and
// the volume, host path or device it names.
type snapshotVolume struct {
	key   string
	volid string
}

// snapshotVolumes is foreach_volume as the snapshot code walks it.
// QemuConfig: the drive keys, without CD-ROMs (drive_is_cdrom, so the
// cloud-init drive too, as every __snapshot_* hook returns early for
// them). LXC::Config: rootfs and the mpN, of any mount type.
func (cs *guestSchema) snapshotVolumes(typ GuestType, cfg map[string]string) []snapshotVolume {
	var out []snapshotVolume
	if typ == LXC {
		for _, key := range mountKeys(cfg) {
			if mp, err := cs.parseMountPoint(key, cfg[key]); err == nil {
				out = append(out, snapshotVolume{key: key, volid: mp.volume()})
			}
		}
		return out
	}
	for _, key := range guestDrives(cfg) {
		d, ok := cs.parseDrive(key, cfg[key])
		if !ok || d.isCDROM() {
			continue
		}
		out = append(out, snapshotVolume{key: key, volid: d.file()})
	}
	return out
}

// snapshotDescription is how a snapshot's comment reads back from the
// config file: write_vm_config / write_pct_config write one comment line
// per line (split drops trailing empty lines); qemu-server's
// parse_vm_config trims the trailing whitespace of the joined lines,
// pve-container's parse_pct_config keeps a newline after every line.
func snapshotDescription(typ GuestType, comment string) string {
	lines := strings.Split(comment, "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if typ == LXC {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \t\r\n\f\v")
}

// copySnapshotConfig is AbstractConfig::__snapshot_copy_config: every key
// but the snapshot bookkeeping, the lock, the digest, the description and
// the unusedN.
func copySnapshotConfig(src, dst map[string]string) {
	for k, v := range src {
		switch k {
		case snapState, snapTime, snapVMState, "lock", "digest", snapDescription:
			continue
		}
		if isUnusedKey(k) {
			continue
		}
		dst[k] = v
	}
}

// isUnusedKey tells unused0..unused255 apart (the m/^unused\d+$/ of
// __snapshot_copy_config).
func isUnusedKey(k string) bool {
	rest, ok := strings.CutPrefix(k, "unused")
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil && !strings.HasPrefix(rest, "+") && !strings.HasPrefix(rest, "-")
}

// guestRunning is check_running / vm_running_locally.
func guestRunning(g *Guest) bool { return g.Status == "running" }

// snapshotPrepare is pve-guest-common src/PVE/AbstractConfig.pm
// __snapshot_prepare, run where PVE's worker starts: the checks (its
// texts), the "snapshot" lock and the section in state "prepare". It
// returns the volumes to snapshot.
func (s *Sim) snapshotPrepare(cl *Cluster, g *Guest, name string, saveState bool, comment string, t *taskNotes) ([]snapshotVolume, error) {
	if g.IsTemplate() {
		return nil, errorf("you can't take a snapshot if it's a template")
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	if g.Type == QEMU {
		// QemuConfig __snapshot_assert_no_blockers.
		if err := checkNonMigratableResources(g.Config, saveState); err != nil {
			return nil, err
		}
	}
	if g.Snapshots[name] != nil {
		return nil, errorf("snapshot name '%s' already used", name)
	}
	vols := cl.conf.snapshotVolumes(g.Type, g.Config)
	for _, v := range vols {
		if !volumeHasSnapshot(cl, v.volid) {
			return nil, errorf("snapshot feature is not available")
		}
	}
	for _, other := range sortedKeys(g.Snapshots) {
		if g.Snapshots[other][snapParent] == name {
			t.Log("deleting parent '%s' reference from '%s' to avoid bogus snapshot cycle.", name, other)
			delete(g.Snapshots[other], snapParent)
		}
	}
	snap := map[string]string{}
	if saveState && g.Type == QEMU && guestRunning(g) {
		// QemuConfig __snapshot_save_vmstate.
		state, err := s.saveSnapshotState(cl, g, name)
		if err != nil {
			return nil, err
		}
		snap[snapVMState] = state
		snap["runningmachine"] = runningMachine
	}
	copySnapshotConfig(g.Config, snap)
	snap[snapState] = "prepare"
	snap[snapTime] = strconv.FormatInt(s.now().Unix(), 10)
	if comment != "" {
		snap[snapDescription] = snapshotDescription(g.Type, comment)
	}
	if g.Snapshots == nil {
		g.Snapshots = map[string]map[string]string{}
	}
	g.Snapshots[name] = snap
	g.Config["lock"] = "snapshot"
	return vols, nil
}

// saveSnapshotState allocates the RAM state volume of a snapshot
// (QemuConfig __snapshot_save_vmstate): "vm-ID-state-NAME", raw, on the
// vmstate storage, twice the memory plus 500 MiB.
func (s *Sim) saveSnapshotState(cl *Cluster, g *Guest, name string) (string, error) {
	storage := vmstateStorage(cl, g)
	st := cl.Storage(storage)
	if st == nil {
		// pve-storage src/PVE/Storage.pm storage_config.
		return "", errorf("storage '%s' does not exist", storage)
	}
	volname := "vm-" + itoa(g.VMID) + "-state-" + name
	if st.fileStorage() {
		volname += ".raw"
	}
	size := cl.conf.memoryMiB(g.Config)*2*mib + 500*mib
	v, err := s.allocVolume(cl, allocation{storage: storage, node: g.Node, vmid: g.VMID, format: "raw", name: volname, size: size})
	if err != nil {
		return "", err
	}
	return v.VolID, nil
}

// checkNonMigratableResources is qemu-server
// src/PVE/QemuMigrate/Helpers.pm check_non_migratable_resources: with the
// RAM state, amd-sev, intel-tdx and virtiofs block.
func checkNonMigratableResources(cfg map[string]string, withState bool) error {
	if !withState {
		return nil
	}
	var blockers []string
	if cfg["amd-sev"] != "" {
		blockers = append(blockers, "amd-sev")
	}
	if cfg["intel-tdx"] != "" {
		blockers = append(blockers, "intel-tdx")
	}
	for k := range cfg {
		if strings.HasPrefix(k, "virtiofs") {
			blockers = append(blockers, "virtiofs")
			break
		}
	}
	if len(blockers) == 0 {
		return nil
	}
	return errorf("Cannot live-migrate, snapshot (with RAM), or hibernate a VM with: %s", strings.Join(blockers, ", "))
}

// snapshotCommit is the rest of snapshot_create once the worker ran: the
// volume snapshots, then pve-guest-common src/PVE/AbstractConfig.pm
// __snapshot_commit (its texts; state and lock gone, the config's parent is
// the new snapshot).
func snapshotCommit(cl *Cluster, g *Guest, name string, vols []snapshotVolume, t *Task) error {
	for _, v := range vols {
		if g.Type == QEMU {
			t.Log("snapshotting 'drive-%s' (%s)", v.key, v.volid)
		}
		volumeSnapshot(cl, g.Node, v.volid, name)
	}
	if g.Lock() != "snapshot" {
		return errorf("missing snapshot lock")
	}
	snap := g.Snapshots[name]
	if snap == nil {
		return errorf("snapshot '%s' does not exist", name)
	}
	if snap[snapState] != "prepare" {
		return errorf("wrong snapshot state")
	}
	delete(snap, snapState)
	delete(g.Config, "lock")
	g.Config[snapParent] = name
	return nil
}

// snapshotDeletePrepare is the start of pve-guest-common
// src/PVE/AbstractConfig.pm snapshot_delete (its texts): set_lock
// ('snapshot-delete', after check_lock), then the template check and the
// section in state "delete". Like PVE, a refusal after set_lock leaves the
// lock in place.
func snapshotDeletePrepare(g *Guest, name string) error {
	if _, err := loadSnapshot(g, name); err != nil {
		return err
	}
	if err := g.CheckLock(); err != nil {
		return err
	}
	g.Config["lock"] = "snapshot-delete"
	if g.IsTemplate() {
		return errorf("you can't delete a snapshot if vm is a template")
	}
	g.Snapshots[name][snapState] = "delete"
	return nil
}

// snapshotDeleteFinish is the rest of pve-guest-common
// src/PVE/AbstractConfig.pm snapshot_delete ($ensure_correct_lock's text):
// the vmstate volume
// and the volume snapshots go, the parent links skip the deleted snapshot,
// and the volumes only the snapshot still named become unusedN of the
// current config (the add_unused_volume calls; write_vm_config and
// write_pct_config drop those the config still uses).
func snapshotDeleteFinish(cl *Cluster, g *Guest, name string, t *Task) error {
	if g.Lock() != "snapshot-delete" {
		return errorf("encountered invalid lock, expected 'snapshot-delete'")
	}
	snap, err := loadSnapshot(g, name)
	if err != nil {
		return err
	}
	if state := snap[snapVMState]; state != "" {
		if err := freeVolume(cl, g.Node, state); err != nil {
			t.Log("%s", asAPIError(err).Error())
		}
	}
	var unused []string
	for _, v := range cl.conf.snapshotVolumes(g.Type, snap) {
		if g.Type == LXC && strings.HasPrefix(v.volid, "/") {
			continue
		}
		volumeSnapshotDelete(cl, g.Node, v.volid, name)
		unused = append(unused, v.volid)
	}
	parent := snap[snapParent]
	relink := func(cfg map[string]string) {
		if cfg[snapParent] == name {
			if parent != "" {
				cfg[snapParent] = parent
			} else {
				delete(cfg, snapParent)
			}
		}
	}
	relink(g.Config)
	for other, cfg := range g.Snapshots {
		if other != name {
			relink(cfg)
		}
	}
	delete(g.Snapshots, name)
	if len(g.Snapshots) == 0 {
		g.Snapshots = nil
	}
	delete(g.Config, "lock")
	for _, volid := range unused {
		if err := addUnusedAfterSnapshot(g, volid); err != nil {
			return err
		}
	}
	cl.conf.dropUsedUnused(g)
	return nil
}

// addUnusedAfterSnapshot is add_unused_volume with each kind's text
// (QemuConfig frees a cloud-init volume instead, but those never reach it
// here: snapshots skip CD-ROMs).
func addUnusedAfterSnapshot(g *Guest, volid string) error {
	if g.Type == LXC {
		_, err := addCTUnused(g.Config, volid)
		return err
	}
	_, err := addUnused(g.Config, volid)
	return err
}

// dropUsedUnused is the unusedN clean-up of write_vm_config (qemu-server
// src/PVE/QemuServer.pm: volumes of the current and pending drives) and
// write_pct_config (writeCTConfig).
func (cs *guestSchema) dropUsedUnused(g *Guest) {
	if g.Type == LXC {
		cs.writeCTConfig(g)
		return
	}
	used := map[string]bool{}
	for _, cfg := range []map[string]string{g.Config, g.Pending} {
		for _, key := range guestDrives(cfg) {
			if d, ok := cs.parseDrive(key, cfg[key]); ok {
				used[d.file()] = true
			}
		}
	}
	for k, v := range g.Config {
		if isUnusedKey(k) && used[v] {
			delete(g.Config, k)
		}
	}
}

// snapshotRollbackPrepare is the first pass of pve-guest-common
// src/PVE/AbstractConfig.pm snapshot_rollback (its texts): template,
// snapshot, rollback_is_possible for every volume, snapstate, check_lock,
// the guest stopped (__snapshot_rollback_vm_stop), then the "rollback" lock.
func (s *Sim) snapshotRollbackPrepare(cl *Cluster, g *Guest, name string) error {
	if g.IsTemplate() {
		return errorf("you can't rollback if vm is a template")
	}
	snap, err := loadSnapshot(g, name)
	if err != nil {
		return err
	}
	for _, v := range cl.conf.snapshotVolumes(g.Type, snap) {
		if err := volumeRollbackPossible(cl, g.Node, v.volid, name); err != nil {
			return err
		}
	}
	if st := snap[snapState]; st != "" {
		return errorf("unable to rollback to incomplete snapshot (snapstate = %s)", st)
	}
	if err := g.CheckLock(); err != nil {
		return err
	}
	if guestRunning(g) {
		// The lock was checked just above (vm_stop's own check passes).
		if g.Type == LXC {
			ctStop(g)
		} else {
			s.vmStop(cl, g)
		}
	}
	g.Config["lock"] = "rollback"
	return nil
}

// snapshotRollbackFinish is the second pass: the volumes rolled back, the
// current volumes the snapshot lacks kept as unusedN, the snapshot's config
// copied over the current one (__snapshot_apply_config keeps the
// description, the unusedN and the snapshots; the pending section is
// gone), parent set, then the qemu rollback hook.
func (s *Sim) snapshotRollbackFinish(cl *Cluster, g *Guest, name string) error {
	snap, err := loadSnapshot(g, name)
	if err != nil {
		return err
	}
	for _, v := range cl.conf.snapshotVolumes(g.Type, snap) {
		volumeRollback(cl, g.Node, v.volid, name)
	}
	if g.Lock() != "rollback" {
		// pve-guest-common src/PVE/AbstractConfig.pm snapshot_rollback.
		return errorf("got wrong lock")
	}
	delete(g.Config, "lock")
	inSnap := map[string]bool{}
	for _, v := range cl.conf.snapshotVolumes(g.Type, snap) {
		inSnap[v.volid] = true
	}
	for _, v := range cl.conf.snapshotVolumes(g.Type, g.Config) {
		if g.Type == LXC && strings.HasPrefix(v.volid, "/") {
			continue // __snapshot_rollback_get_unused: volumes only
		}
		if !inSnap[v.volid] {
			if err := addUnusedAfterSnapshot(g, v.volid); err != nil {
				return err
			}
		}
	}
	_, hadMachine := g.Config["machine"]
	next := map[string]string{}
	for k, v := range g.Config {
		if isUnusedKey(k) || k == snapDescription {
			next[k] = v
		}
	}
	copySnapshotConfig(snap, next)
	next[snapParent] = name
	if g.Type == QEMU {
		// QemuConfig __snapshot_rollback_hook.
		if _, ok := next["runningmachine"]; ok {
			delete(next, "runningmachine")
			delete(next, "runningcpu")
		} else if snap[snapVMState] != "" && !hadMachine {
			delete(next, "machine")
		}
		if next["vmgenid"] != "" {
			next["vmgenid"] = s.newUUID()
		}
		delete(next, "running-nets-host-mtu")
	}
	g.Config = next
	g.Pending = nil
	return nil
}
