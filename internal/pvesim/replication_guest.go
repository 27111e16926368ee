package pvesim

import "strings"

// checkReplicatedDrive is update_vm's $check_replication: a VM with
// replication jobs takes a new or changed drive only on a storage that can
// replicate the drive's format, or on shared storage. CD-ROMs, drives with
// replicate=0 and the cloud-init allocation pass; a host path is refused.
// qemu-server src/PVE/API2/Qemu.pm update_vm_api ($check_replication,
// passed to $check_drive_param); pve-storage storage_can_replicate
// (src/PVE/Storage/ZFSPoolPlugin.pm: raw and subvol; Plugin.pm: none).
func checkReplicatedDrive(c *call, d drive) error {
	vmid := c.intParam("vmid", 0)
	if c.cluster.Guests[vmid] == nil {
		return nil
	}
	if c.cluster.Replication.existingJobsError(vmid) == nil {
		return nil
	}
	file := d.file()
	if file == "" || d["replicate"] == "0" || d.isCDROM() {
		return nil
	}
	storeID, volname, ok := cutVolumeID(file)
	if !ok {
		return errorf("cannot add non-managed/pass-through volume to a replicated VM")
	}
	if volname == "cloudinit" {
		return nil
	}
	st := c.cluster.Storage(storeID)
	if st == nil {
		// parse_volume_id passed; storage_config dies on a missing storage.
		return errorf("storage '%s' does not exist", storeID)
	}
	var format string
	if newDiskPattern.MatchString(file) {
		format = st.resolveFormat(d["format"])
	} else if _, info, err := parseVolume(c.cluster, file); err == nil {
		format = info.format
		if format == "" && !st.fileStorage() {
			format = "raw"
		}
	}
	if storageCanReplicate(st) && (format == "raw" || format == "subvol") {
		return nil
	}
	if st.Shared {
		return nil
	}
	return errorf("cannot add non-replicatable volume to a replicated VM")
}

// cutVolumeID is parse_volume_id with noerr: "STORAGE:VOLNAME" with a
// storage id that starts with a letter.
// pve-storage src/PVE/Storage.pm parse_volume_id
func cutVolumeID(volid string) (storeID, volname string, ok bool) {
	if !volumeIDPattern.MatchString(volid) {
		return "", "", false
	}
	return strings.Cut(volid, ":")
}

// checkReplicatedMountPoints is the container side: with replication jobs,
// each new or changed mount point must be a volume (not a bind or device
// mount) on a storage that can replicate its format or on shared storage,
// unless it has replicate=0.
// pve-container src/PVE/API2/LXC/Config.pm update_vm (is_replicated,
// foreach_volume over the parameters)
func checkReplicatedMountPoints(cl *Cluster, g *Guest, set map[string]string) error {
	if cl.Replication.existingJobsError(g.VMID) == nil {
		return nil
	}
	for _, key := range mountKeys(set) {
		m, err := cl.conf.parseMountPoint(key, set[key])
		if err != nil {
			continue
		}
		volid := m.volume()
		if volid == "" || m["replicate"] == "0" {
			continue
		}
		if m.isVolume() && replicatableVolume(cl, volid, m["format"]) {
			continue
		}
		return errorf("cannot add non-replicatable volume to a replicated VM")
	}
	return nil
}

// replicatableVolume is storage_can_replicate for a volume or a create
// form "STORAGE:SIZE", or a shared storage.
func replicatableVolume(cl *Cluster, volid, formatHint string) bool {
	storeID, _, ok := strings.Cut(volid, ":")
	st := cl.Storage(storeID)
	if !ok || st == nil {
		return false
	}
	format := st.resolveFormat(formatHint)
	if !newDiskPattern.MatchString(volid) {
		if _, info, err := parseVolume(cl, volid); err == nil && info.format != "" {
			format = info.format
		}
	}
	return storageCanReplicate(st) && (format == "raw" || format == "subvol") || st.Shared
}

// replicatedLiveMigrationCheck refuses a live migration of a replicated VM
// to a node that is none of its jobs' targets, unless forced.
// qemu-server src/PVE/API2/Qemu.pm migrate_vm (check_for_existing_jobs,
// find_local_replication_job)
func (cl *Cluster) replicatedLiveMigrationCheck(vmid int, target string, force bool) error {
	if force || cl.Replication.existingJobsError(vmid) == nil {
		return nil
	}
	for _, j := range cl.Replication.Jobs {
		if j.Guest == vmid && j.Type == "local" && j.Props["target"] == target {
			return nil
		}
	}
	return errorf("Cannot live-migrate replicated VM to node '%s' - not a replication target. Use 'force' to override.", target)
}

// replicationFollowMigration turns the guest's jobs around after it moved
// from one node to another: the job that targeted the new node now targets
// the old one, and every job replicates from the new node.
// qemu-server src/PVE/QemuMigrate.pm phase3_cleanup and pve-container
// src/PVE/LXC/Migrate.pm phase1, over pve-guest-common
// src/PVE/AbstractMigrate.pm switch_replication_job_target.
func (cl *Cluster) replicationFollowMigration(vmid int, from, to string) {
	if cl.Replication.existingJobsError(vmid) == nil {
		return
	}
	cl.switchReplicationTarget(vmid, to, from)
}
