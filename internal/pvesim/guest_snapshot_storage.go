package pvesim

import "strings"

// What guest snapshots need from the storage layer: pve-storage
// src/PVE/Storage.pm and its plugins' snapshot features, and the
// volume-in-use test of qemu-server.

// storageFeatures is each plugin's volume_has_feature table in pve-storage
// src/PVE/Storage/: by feature, then by the volume's state ("current", a
// "base" volume, or a "snap"shot), the formats that have it; "*" stands
// for any format (the plugins whose table holds a plain 1).
var storageFeatures = map[string]map[string]map[string][]string{
	// Plugin.pm, for every storage with a path.
	"file": {
		"snapshot": {"current": {"qcow2"}, "snap": {"qcow2"}},
		"clone":    {"base": {"qcow2", "raw", "vmdk"}},
		"copy":     {"base": {"qcow2", "raw", "vmdk"}, "current": {"qcow2", "raw", "vmdk"}, "snap": {"qcow2"}},
	},
	// LVMPlugin.pm
	"lvm": {
		"snapshot": {"current": {"qcow2"}, "snap": {"qcow2"}},
		"copy":     {"base": {"qcow2", "raw"}, "current": {"qcow2", "raw"}, "snap": {"qcow2"}},
	},
	// LvmThinPlugin.pm
	"lvmthin": {
		"snapshot": {"current": {"*"}},
		"clone":    {"base": {"*"}, "snap": {"*"}},
		"copy":     {"base": {"*"}, "current": {"*"}, "snap": {"*"}},
	},
	// ZFSPoolPlugin.pm
	"zfspool": {
		"snapshot": {"current": {"*"}, "snap": {"*"}},
		"clone":    {"base": {"*"}},
		"copy":     {"base": {"*"}, "current": {"*"}},
	},
	// RBDPlugin.pm
	"rbd": {
		"snapshot": {"current": {"*"}, "snap": {"*"}},
		"clone":    {"base": {"*"}, "snap": {"*"}},
		"copy":     {"base": {"*"}, "current": {"*"}, "snap": {"*"}},
	},
	// BTRFSPlugin.pm
	"btrfs": {
		"snapshot": {"current": {"qcow2", "raw", "subvol"}, "snap": {"qcow2", "raw", "subvol"}},
		"clone":    {"base": {"qcow2", "raw", "subvol", "vmdk"}, "current": {"raw"}, "snap": {"raw"}},
		"copy": {
			"base": {"qcow2", "raw", "subvol", "vmdk"}, "current": {"qcow2", "raw", "subvol", "vmdk"},
			"snap": {"qcow2", "raw", "subvol"},
		},
	},
}

// volumeHasFeature is PVE::Storage::volume_has_feature: a host path or
// device has no features; otherwise the plugin's table decides, for the
// snapshot when snap is set. ctTargets is pve-container's
// valid_target_formats (raw, subvol): Plugin.pm has no clone then, as its
// clones are qcow2.
func volumeHasFeature(cl *Cluster, feature, volid string, snap, ctTargets bool) bool {
	if strings.HasPrefix(volid, "/") {
		return false
	}
	st, info, err := parseVolume(cl, volid)
	if err != nil {
		return false
	}
	plugin := st.Type
	switch {
	case st.Type == "btrfs":
	case st.fileStorage():
		plugin = "file"
		if feature == "clone" && ctTargets {
			return false
		}
	}
	table, known := storageFeatures[plugin]
	if !known {
		// inferred: a storage type the simulator does not model (iscsi,
		// ...) has no features, as ISCSIPlugin.pm has almost none.
		return false
	}
	key := "current"
	switch {
	case snap:
		key = "snap"
	case info.isBase:
		key = "base"
	}
	format := info.format
	if !st.fileStorage() && format == "" {
		format = "raw"
	}
	for _, f := range table[feature][key] {
		if f == "*" || f == format {
			return true
		}
	}
	return false
}

// volumeHasSnapshot is volume_has_feature('snapshot') of the current state.
func volumeHasSnapshot(cl *Cluster, volid string) bool {
	return volumeHasFeature(cl, "snapshot", volid, false, false)
}

// volumeCopyFromSnapshot is volume_has_feature('copy') of a snapshot.
func volumeCopyFromSnapshot(cl *Cluster, volid string) bool {
	return volumeHasFeature(cl, "copy", volid, true, false)
}

// volumeCloneFromSnapshot is volume_has_feature('clone') of a snapshot.
func volumeCloneFromSnapshot(cl *Cluster, volid string) bool {
	return volumeHasFeature(cl, "clone", volid, true, false)
}

// volumeSnapshot is PVE::Storage::volume_snapshot: the volume gains a
// snapshot of its current state.
func volumeSnapshot(cl *Cluster, node, volid, name string) {
	v := cl.Volume(node, volid)
	if v == nil {
		return
	}
	snaps := append(append([]VolumeSnapshot(nil), v.Snapshots...), VolumeSnapshot{Name: name, Size: v.Size})
	v.Snapshots = snaps
}

// volumeSnapshotDelete is PVE::Storage::volume_snapshot_delete.
func volumeSnapshotDelete(cl *Cluster, node, volid, name string) {
	v := cl.Volume(node, volid)
	if v == nil {
		return
	}
	var snaps []VolumeSnapshot
	for _, s := range v.Snapshots {
		if s.Name != name {
			snaps = append(snaps, s)
		}
	}
	v.Snapshots = snaps
}

// volumeRollbackPossible is pve-storage src/PVE/Storage.pm
// volume_rollback_is_possible: a host path cannot roll back;
// src/PVE/Storage/ZFSPoolPlugin.pm volume_rollback_is_possible (its texts,
// with the volume id) rolls back only to the most recent snapshot;
// Plugin.pm (without snapshot-as-volume-chain) and LvmThinPlugin.pm to any.
func volumeRollbackPossible(cl *Cluster, node, volid, name string) error {
	if strings.HasPrefix(volid, "/") {
		return errorf("snapshot rollback file/device '%s' is not possible", volid)
	}
	st, _, err := parseVolume(cl, volid)
	if err != nil {
		return err
	}
	if st.Type != "zfspool" {
		return nil
	}
	v := cl.Volume(node, volid)
	found, later := false, 0
	if v != nil {
		for _, s := range v.Snapshots {
			if s.Name == name {
				found = true
			} else if found {
				later++
			}
		}
	}
	if !found {
		return errorf("can't rollback, snapshot '%s' does not exist on '%s'", name, volid)
	}
	if later > 0 {
		return errorf("can't rollback, '%s' is not most recent snapshot on '%s'", name, volid)
	}
	return nil
}

// volumeRollback is PVE::Storage::volume_snapshot_rollback: the volume is
// back to the snapshot's state, its size included; on ZFS the later
// snapshots are gone (zfs rollback -r is not used: only the most recent
// one is allowed, see volumeRollbackPossible).
func volumeRollback(cl *Cluster, node, volid, name string) {
	v := cl.Volume(node, volid)
	if v == nil {
		return
	}
	for _, s := range v.Snapshots {
		if s.Name == name {
			v.Size = s.Size
		}
	}
}

// volumeInSnapshot is the snapshot half of qemu-server
// src/PVE/QemuServer/Drive.pm is_volume_in_use: a snapshot's drive (not a
// CD-ROM) names the volume.
func (cs *guestSchema) volumeInSnapshot(g *Guest, volid string) bool {
	for _, snap := range g.Snapshots {
		for _, v := range cs.snapshotVolumes(g.Type, snap) {
			if v.volid == volid {
				return true
			}
		}
	}
	return false
}

// volumeUsedElsewhere is is_volume_in_use (qemu-server
// src/PVE/QemuServer/Drive.pm) with skip: another drive of the config (not
// a CD-ROM) or any snapshot's drive names the volume.
func (cs *guestSchema) volumeUsedElsewhere(g *Guest, skip, volid string) bool {
	for _, key := range guestDrives(g.Config) {
		if key == skip {
			continue
		}
		if d, ok := cs.parseDrive(key, g.Config[key]); ok && !d.isCDROM() && d.file() == volid {
			return true
		}
	}
	return cs.volumeInSnapshot(g, volid)
}
