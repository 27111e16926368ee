package pvesim

import (
	"sort"
	"strings"
)

// Migration with a storage map (targetstorage): qemu-server
// src/PVE/API2/Qemu.pm migrate_vm, src/PVE/QemuMigrate.pm
// scan_local_volumes and sync_offline_local_volumes, pve-storage
// src/PVE/Storage.pm storage_migrate.

// storageMap is pve-common src/PVE/JSONSchema.pm parse_idmap of a
// storage-pair-list: "1" (identity), one default target, or source:target
// entries.
type storageMap struct {
	identity bool
	def      string
	entries  map[string]string
}

// parseStorageMap is pve-common src/PVE/JSONSchema.pm parse_idmap over the
// whole value (the schema checked each entry alone, verify_storagepair): a
// source mapped twice, a second default, or the identity beside other
// entries fail it; qemu-server src/PVE/API2/Qemu.pm migrate_vm (and
// pve-container src/PVE/API2/LXC.pm migrate_vm) answer "failed to parse
// storage map: ..." on its parameter.
func parseStorageMap(param, value string) (*storageMap, error) {
	if value == "" {
		return nil, nil
	}
	fail := func(msg string) error {
		return paramError(map[string]string{param: "failed to parse storage map: " + msg + "\n"})
	}
	m := &storageMap{entries: map[string]string{}}
	for _, entry := range splitList(value) {
		src, dst, pair := strings.Cut(entry, ":")
		switch {
		case entry == "1":
			m.identity = true
		case pair && !strings.Contains(dst, ":"):
			if _, dup := m.entries[src]; dup {
				return nil, fail("duplicate mapping for source '" + src + "'")
			}
			m.entries[src] = dst
		default:
			if m.def != "" {
				return nil, fail("default target ID can only be provided once")
			}
			m.def = entry
		}
	}
	if m.identity && (m.def != "" || len(m.entries) > 0) {
		return nil, fail("identity mapping cannot be combined with other mappings")
	}
	return m, nil
}

// mapID is JSONSchema.pm map_id: an entry, else the default, else the
// source itself.
func (m *storageMap) mapID(source string) string {
	if m == nil {
		return source
	}
	if t, ok := m.entries[source]; ok {
		return t
	}
	if m.def != "" {
		return m.def
	}
	return source
}

// checkMigrateStorages is migrate_vm's storage checks before the fork:
// without a map (or with the identity map) check_storage_availability;
// with a real map, VM.Config.Disk on the VM and, for every target storage,
// $check_storage_access_migrate (enabled on the target node,
// Datastore.AllocateSpace, the images content).
func checkMigrateStorages(c *call, g *Guest, target string) (*storageMap, error) {
	m, err := parseStorageMap("targetstorage", c.str("targetstorage"))
	if err != nil {
		return nil, err
	}
	if m == nil || m.identity {
		return m, checkStorageAvailability(c.cluster, g, target)
	}
	return m, checkStorageMapTargets(c, m, g.VMID, target, "images", "storage '%s' does not support vm images")
}

// checkStorageMapTargets is the storage-map half of migrate_vm in
// qemu-server (content images) and pve-container (content rootdir,
// $check_storage_access_migrate's own text): VM.Config.Disk unless the map
// is the identity, then each target storage enabled on the target node,
// Datastore.AllocateSpace on it, and the content.
func checkStorageMapTargets(c *call, m *storageMap, vmid int, target, content, refusal string) error {
	if m == nil || m.identity {
		return nil
	}
	cl := c.cluster
	if err := c.check("/vms/"+itoa(vmid), false, "VM.Config.Disk"); err != nil {
		return err
	}
	targets := make([]string, 0, len(m.entries)+1)
	for _, t := range m.entries {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	if m.def != "" {
		targets = append(targets, m.def)
	}
	for _, sid := range targets {
		st, err := usableStorage(cl, sid, target)
		if err != nil {
			return err
		}
		if err := c.check("/storage/"+sid, false, "Datastore.AllocateSpace"); err != nil {
			return err
		}
		if !st.hasContent(content) {
			return errorf(refusal, sid)
		}
	}
	return nil
}

// targetStorageFor is the target storage of a local volume: the map
// applies to storage that is not shared (scan_local_volumes: "local
// ignores shared mappings").
func targetStorageFor(cl *Cluster, m *storageMap, volid string) string {
	sid, _, _ := strings.Cut(volid, ":")
	if st := cl.Storage(sid); st != nil && st.Shared {
		return sid
	}
	return m.mapID(sid)
}

// targetStorageAvailable is qemu-server src/PVE/QemuMigrate.pm
// target_storage_check_available (its text):
// the target storage enabled on the target node, with the volume's content.
func targetStorageAvailable(cl *Cluster, targetSID, target, volid string) error {
	st, err := usableStorage(cl, targetSID, target)
	if err != nil {
		return err
	}
	_, info, err := parseVolume(cl, volid)
	if err != nil {
		return err
	}
	if !st.hasContent(info.vtype) {
		return errorf("%s: content type '%s' is not available on storage '%s'", volid, info.vtype, targetSID)
	}
	return nil
}

// snapshotMigratable is scan_local_volumes' rule for a local volume a
// snapshot names: not online, and only where the snapshots can travel
// (zfspool, raw on btrfs, qcow2 files).
func snapshotMigratable(st *Storage, format string, running bool) string {
	if running {
		return "online storage migration not possible if non-replicated snapshot exists"
	}
	if st.Type == "zfspool" || st.Type == "btrfs" && format == "raw" || format == "qcow2" {
		return ""
	}
	return "non-migratable snapshot exists"
}

// transferFormats is Storage.pm volume_transfer_formats: the source
// plugin's export formats the target plugin can import, in the source's
// order (volume_export_formats / volume_import_formats of Plugin.pm for
// file storages, LVMPlugin.pm for lvm and lvmthin, ZFSPoolPlugin.pm).
func transferFormats(src, dst *Storage, format string, withSnapshots, migrationSnapshot bool) []string {
	export := pluginTransferFormats(src, format, withSnapshots, migrationSnapshot, true)
	imp := pluginTransferFormats(dst, format, withSnapshots, migrationSnapshot, false)
	var out []string
	for _, f := range export {
		for _, g := range imp {
			if f == g {
				out = append(out, f)
			}
		}
	}
	return out
}

func pluginTransferFormats(st *Storage, format string, withSnapshots, migrationSnapshot, export bool) []string {
	switch {
	case st.Type == "zfspool":
		return []string{"zfs"}
	case st.Type == "lvm" || st.Type == "lvmthin":
		if export && migrationSnapshot || withSnapshots {
			return nil
		}
		return []string{"raw+size"}
	case st.fileStorage():
		if export && migrationSnapshot {
			return nil
		}
		if withSnapshots {
			if format == "qcow2" || format == "vmdk" {
				return []string{format + "+size"}
			}
			return nil
		}
		if format == "subvol" {
			return []string{"tar+size"}
		}
		return []string{"raw+size"}
	}
	// inferred: a storage type the simulator does not model transfers
	// nothing, so the migration fails as for incompatible plugins.
	return nil
}

// targetVolname is pve-storage src/PVE/Storage.pm storage_migrate's target
// name: the same volume name on a storage of the same type, else
// $volname_for_storage (its "unsupported format" text; the format must
// be valid there; "VMID/NAME.FMT" on a storage with a path, "NAME"
// elsewhere).
func targetVolname(cl *Cluster, src, dst *Storage, volid string, vmid int, format string) (string, error) {
	_, volname, _ := strings.Cut(volid, ":")
	if src.Type == dst.Type {
		return volname, nil
	}
	if _, valid := dst.formats(); !valid[format] {
		return "", errorf("unsupported format '%s' for storage type %s", format, dst.Type)
	}
	name := volname
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, "."+format)
	if dst.fileStorage() {
		return itoa(vmid) + "/" + name + "." + format, nil
	}
	return name, nil
}

// migrateOnlineVolume is an attached disk of a running VM, mirrored over
// NBD into a disk the target allocates (QemuServer.pm
// vm_migrate_alloc_nbd_disks): the mapped storage, the source format if
// that storage takes it (resolve_format_hint), the next free name.
func (s *Sim) migrateOnlineVolume(cl *Cluster, g *Guest, volid, targetSID, target string) (string, error) {
	v := cl.Volume(g.Node, volid)
	if v == nil {
		return volid, nil
	}
	src := cl.Storage(v.Storage)
	if src.Shared && src.ID == targetSID {
		return volid, nil
	}
	dst := cl.Storage(targetSID)
	nv, err := s.allocVolume(cl, allocation{storage: dst.ID, node: target, vmid: g.VMID,
		format: dst.resolveFormat(v.Format), size: v.Size})
	if err != nil {
		return "", err
	}
	cl.RemoveVolume(g.Node, volid)
	return nv.VolID, nil
}

// migrateMappedVolume is sync_offline_local_volumes for one volume
// (storage_migrate with allow_rename unless it is a vmstate or cloud-init
// volume): it returns the volume's id on the target.
func migrateMappedVolume(cl *Cluster, g *Guest, volid, targetSID, target string, snapshotted bool) (string, error) {
	v := cl.Volume(g.Node, volid)
	if v == nil {
		return volid, nil
	}
	src, dst := cl.Storage(v.Storage), cl.Storage(targetSID)
	if src.Shared && src.ID == dst.ID {
		return volid, nil
	}
	withSnapshots := snapshotted || v.Format == "qcow2" || v.Format == "vmdk"
	// storage_migrate_snapshot: ZFS (and btrfs with snapshots) export from
	// a migration snapshot.
	migSnap := src.Type == "zfspool" || src.Type == "btrfs" && withSnapshots
	name, err := targetVolname(cl, src, dst, volid, g.VMID, v.Format)
	if err != nil {
		return "", err
	}
	if len(transferFormats(src, dst, v.Format, withSnapshots, migSnap)) == 0 {
		// pve-storage src/PVE/Storage.pm storage_migrate.
		return "", errorf("cannot migrate from storage type '%s' to '%s'", src.Type, dst.Type)
	}
	newVolid := dst.ID + ":" + name
	if cl.Volume(target, newVolid) != nil {
		preserve := v.Content == "images" && (strings.Contains(volid, "-state-") || cloudInitFile.MatchString(volid))
		if preserve {
			// inferred: on PVE the target's pvesm import refuses (each
			// plugin's volume_import, with its own wording and the path
			// or pool name) and storage_migrate fails with the
			// export|import pipeline's exit code; see INFERRED.md.
			return "", errorf("volume '%s' already exists", newVolid)
		}
		fresh := nextDiskName(cl, dst, target, g.VMID, v.Format)
		if dst.fileStorage() {
			fresh = itoa(g.VMID) + "/" + fresh
		}
		newVolid = dst.ID + ":" + fresh
	}
	moved := *v
	moved.VolID, moved.Storage, moved.Node, moved.Base = newVolid, dst.ID, target, ""
	if !withSnapshots {
		moved.Snapshots = nil
	}
	cl.RemoveVolume(g.Node, volid)
	if err := cl.AddVolume(&moved); err != nil {
		return "", err
	}
	return newVolid, nil
}

// checkMappedTargetSpace refuses a migration whose local volumes do not fit
// on the target node's instances of their target storages, before anything
// is copied.
// inferred: storage_migrate would fail part-way on a full file storage
// (the copy command's error), while thin storages over-commit; the
// simulator refuses up front with its own text, as every allocation in
// the simulator does.
func checkMappedTargetSpace(cl *Cluster, g *Guest, volids []string, m *storageMap, target string) error {
	need := map[string]int64{}
	for _, volid := range volids {
		if v := cl.Volume(g.Node, volid); v != nil {
			need[targetStorageFor(cl, m, volid)] += v.Size
		}
	}
	for _, id := range sortedKeys(need) {
		st := cl.Storage(id)
		if free := st.Capacity - cl.used(st, target); need[id] > free && !st.overcommits() {
			return errorf("storage '%s' has not enough free space on node '%s' (requested %d bytes, free %d bytes)",
				id, target, need[id], free)
		}
	}
	return nil
}

// rewriteSnapshotVolumeRefs is the snapshot half of
// AbstractConfig::update_volume_ids after a migration renamed volumes.
func (cs *guestSchema) rewriteSnapshotVolumeRefs(g *Guest, renamed map[string]string) {
	for _, snap := range g.Snapshots {
		for _, key := range sortedKeys(snap) {
			if key == snapVMState {
				if nv, ok := renamed[snap[key]]; ok {
					snap[key] = nv
				}
				continue
			}
			if g.Type == LXC {
				continue
			}
			if isUnusedKey(key) {
				if nv, ok := renamed[snap[key]]; ok {
					snap[key] = nv
				}
				continue
			}
			if !isDriveKey(key) {
				continue
			}
			if d, ok := cs.parseDrive(key, snap[key]); ok {
				if nv, ok := renamed[d.file()]; ok {
					d["file"] = nv
					snap[key] = d.print()
				}
			}
		}
		if g.Type == LXC {
			cs.rewriteMountPoints(snap, renamed)
		}
	}
}

// snapshotDriveVolumes are the volumes the snapshots' drives name (not
// CD-ROMs): foreach_volid's referenced_in_snapshot.
func (cs *guestSchema) snapshotDriveVolumes(g *Guest) map[string]bool {
	out := map[string]bool{}
	for _, snap := range g.Snapshots {
		for _, v := range cs.snapshotVolumes(g.Type, snap) {
			out[v.volid] = true
		}
	}
	return out
}

// ctSnapshotVolumeProblems is pve-container src/PVE/LXC/Migrate.pm
// phase1's rule for the local volumes of the snapshots: only zfspool and
// btrfs carry snapshots along ("non-migratable snapshot exists").
func ctSnapshotVolumeProblems(cl *Cluster, g *Guest, m *storageMap) []string {
	var out []string
	seen := map[string]bool{}
	for _, name := range sortedKeys(g.Snapshots) {
		for _, v := range cl.conf.snapshotVolumes(LXC, g.Snapshots[name]) {
			if seen[v.volid] || strings.HasPrefix(v.volid, "/") {
				continue
			}
			seen[v.volid] = true
			st, _, err := parseVolume(cl, v.volid)
			if err != nil || st.Shared || st.Type == "zfspool" || st.Type == "btrfs" {
				continue
			}
			out = append(out, "can't migrate local volume '"+v.volid+"': non-migratable snapshot exists")
		}
	}
	sort.Strings(out)
	return out
}

// migrateCTVolumes is pve-container src/PVE/LXC/Migrate.pm phase1's
// storage_migrate (its "storage migration ... failed" text) of each
// local volume to its mapped storage; the config and the snapshots follow
// the new volume ids.
func migrateCTVolumes(cl *Cluster, g *Guest, local []string, m *storageMap, target string, t *Task) error {
	renamed, snapRefs := map[string]string{}, cl.conf.snapshotDriveVolumes(g)
	for _, volid := range local {
		targetSID := targetStorageFor(cl, m, volid)
		nv, err := migrateMappedVolume(cl, g, volid, targetSID, target, snapRefs[volid])
		if err != nil {
			return errorf("storage migration for '%s' to storage '%s' failed - %s",
				volid, targetSID, strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
		t.Log("volume '%s' is '%s' on the target", volid, nv)
		if nv != volid {
			renamed[volid] = nv
		}
	}
	cl.conf.rewriteVolumeRefs(g, renamed)
	return nil
}

// attachedVolumes are the volumes of the current config's drives (not
// CD-ROMs): scan_local_volumes' is_attached, which a running VM migrates
// online.
func (cs *guestSchema) attachedVolumes(g *Guest) map[string]bool {
	out := map[string]bool{}
	for _, v := range cs.snapshotVolumes(QEMU, g.Config) {
		out[v.volid] = true
	}
	return out
}

// setMirroredDriveFormats is phase3_cleanup taking the target's drive
// strings for the disks mirrored online: vm_migrate_alloc_nbd_disks wrote
// the new volume's format into them.
func setMirroredDriveFormats(cl *Cluster, g *Guest, mirrored map[string]bool, target string) {
	for _, key := range guestDrives(g.Config) {
		d, ok := cl.conf.parseDrive(key, g.Config[key])
		if !ok || !mirrored[d.file()] {
			continue
		}
		if v := cl.Volume(target, d.file()); v != nil {
			d["format"] = v.Format
			g.Config[key] = d.print()
		}
	}
}
