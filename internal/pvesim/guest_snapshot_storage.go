package pvesim

import "strings"

// What guest snapshots need from the storage layer: pve-storage
// src/PVE/Storage.pm and its plugins' snapshot features, and the
// volume-in-use test of qemu-server.

// volumeHasSnapshot is pve-storage src/PVE/Storage.pm volume_has_feature
// for 'snapshot' of the current state: each plugin's volume_has_feature
// table (Plugin.pm: qcow2 only; BTRFSPlugin.pm: qcow2, raw, subvol;
// LVMPlugin.pm: qcow2 only; LvmThinPlugin.pm, ZFSPoolPlugin.pm,
// RBDPlugin.pm: any volume not a base volume). A host path or device has
// no features.
func volumeHasSnapshot(cl *Cluster, volid string) bool {
	if strings.HasPrefix(volid, "/") {
		return false
	}
	st, info, err := parseVolume(cl, volid)
	if err != nil || info.isBase {
		return false
	}
	switch st.Type {
	case "dir", "nfs", "cifs", "glusterfs", "cephfs", "lvm":
		return info.format == "qcow2"
	case "btrfs":
		return info.format == "qcow2" || info.format == "raw" || info.format == "subvol"
	case "lvmthin", "zfspool", "rbd":
		return true
	}
	// inferred: a storage type the simulator does not model (iscsi, ...)
	// offers no snapshots, as pve-storage's ISCSIPlugin.pm does not.
	return false
}

// volumeCopyFromSnapshot is volume_has_feature('copy') of a snapshot (the
// 'snap' key of the plugins' tables): Plugin.pm and LVMPlugin.pm qcow2,
// BTRFSPlugin.pm qcow2, raw, subvol; LvmThinPlugin.pm and RBDPlugin.pm
// yes; ZFSPoolPlugin.pm no.
func volumeCopyFromSnapshot(cl *Cluster, volid string) bool {
	st, info, err := parseVolume(cl, volid)
	if err != nil {
		return false
	}
	switch st.Type {
	case "dir", "nfs", "cifs", "glusterfs", "cephfs", "lvm":
		return info.format == "qcow2"
	case "btrfs":
		return info.format == "qcow2" || info.format == "raw" || info.format == "subvol"
	case "lvmthin", "rbd":
		return true
	}
	return false
}

// volumeCloneFromSnapshot is volume_has_feature('clone') of a snapshot:
// LvmThinPlugin.pm and RBDPlugin.pm yes, BTRFSPlugin.pm raw, every other
// plugin no (clone needs a base volume there).
func volumeCloneFromSnapshot(cl *Cluster, volid string) bool {
	st, info, err := parseVolume(cl, volid)
	if err != nil {
		return false
	}
	switch st.Type {
	case "lvmthin", "rbd":
		return true
	case "btrfs":
		return info.format == "raw"
	}
	return false
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

// volumeRollbackPossible is PVE::Storage::volume_rollback_is_possible: a
// host path cannot roll back; ZFSPoolPlugin.pm rolls back only to the most
// recent snapshot; Plugin.pm (without snapshot-as-volume-chain) and
// LvmThinPlugin.pm to any.
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
func volumeInSnapshot(g *Guest, volid string) bool {
	for _, snap := range g.Snapshots {
		for _, v := range snapshotVolumes(g.Type, snap) {
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
func volumeUsedElsewhere(g *Guest, skip, volid string) bool {
	for _, key := range guestDrives(g.Config) {
		if key == skip {
			continue
		}
		if d, ok := parseDrive(key, g.Config[key]); ok && !d.isCDROM() && d.file() == volid {
			return true
		}
	}
	return volumeInSnapshot(g, volid)
}
