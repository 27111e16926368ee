package wire

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Storage replication jobs (pve-guest-common src/PVE/ReplicationConfig.pm,
// pve-manager PVE/API2/ReplicationConfig.pm).

// Replication job limits from PVE's schema.
const (
	// MaxReplicationCommentLength is the comment's maxLength.
	MaxReplicationCommentLength = 4096
	// MaxReplicationScheduleLength is the schedule's maxLength.
	MaxReplicationScheduleLength = 128
	// MinReplicationRate is the rate's minimum, in MB/s.
	MinReplicationRate = 1.0
	// DefaultReplicationSchedule is PVE's schedule when none is set.
	DefaultReplicationSchedule = "*/15"
	// MaxReplicationJobNum is the largest job number the id pattern
	// [1-9][0-9]{2,8}-\d{1,9} allows.
	MaxReplicationJobNum = 999999999
)

// replicationJobIDPattern is the schema's pattern for pve-replication-id
// with parse_replication_job_id's own test (digits, a hyphen, digits).
var replicationJobIDPattern = regexp.MustCompile(`^([1-9][0-9]{2,8})-([0-9]{1,9})$`)

// ReplicationJobID is the id PVE gives job jobnum of guest vmid.
func ReplicationJobID(vmid, jobnum int) string {
	return strconv.Itoa(vmid) + "-" + strconv.Itoa(jobnum)
}

// ParseReplicationJobID splits "VMID-JOBNUM". It refuses what PVE's schema
// pattern or parse_replication_job_id refuse (guest ids below 100 are
// reserved) and non-canonical numbers ("100-01"), which PVE would store
// under another id.
func ParseReplicationJobID(id string) (vmid, jobnum int, err error) {
	m := replicationJobIDPattern.FindStringSubmatch(id)
	if m == nil {
		return 0, 0, fmt.Errorf("invalid replication job id %q: want GUEST-JOBNUM, for example 100-0, with a guest id of 100 or more", id)
	}
	vmid, _ = strconv.Atoi(m[1])
	jobnum, _ = strconv.Atoi(m[2])
	if canonical := ReplicationJobID(vmid, jobnum); canonical != id {
		return 0, 0, fmt.Errorf("invalid replication job id %q: PVE would call it %q", id, canonical)
	}
	return vmid, jobnum, nil
}

// ReplicationStorage is what the replication check needs to know of a
// storage: its plugin type and whether it is shared.
type ReplicationStorage struct {
	Type   string
	Shared bool
}

// StorageCanReplicate tells whether volumes on a storage of this plugin
// type have the replicate feature: only zfspool has it
// (pve-storage src/PVE/Storage/ZFSPoolPlugin.pm volume_has_feature; no
// other plugin lists it).
func StorageCanReplicate(storageType string) bool { return storageType == "zfspool" }

// ReplicationVolumeProblem is a disk of a guest that PVE refuses to
// replicate, or the lack of any disk to replicate.
type ReplicationVolumeProblem struct {
	Slot    string // the config key, "" for "no volume"
	Volume  string
	Storage string
	Text    string
}

// guestOwner finds the guest id in a volume name: vm-ID-..., base-ID-...,
// subvol-ID-..., basevol-ID-..., optionally under a directory (file
// storages) or a linked clone's base ("base-900-disk-0/vm-100-disk-0": the
// last part names the owner).
var guestOwner = regexp.MustCompile(`(?:^|/)(?:vm|base|subvol|basevol)-(\d+)-[^/]*$`)

// ReplicationVolumesProblem checks a guest's config the way PVE's
// get_replicatable_volumes does when a job is created: each of the guest's
// own volumes on a storage that is not shared must have the replicate
// feature, and at least one such volume must remain. CD-ROMs and disks
// with replicate=0 are left out (qemu-server src/PVE/QemuConfig.pm,
// pve-container src/PVE/LXC/Config.pm get_replicatable_volumes).
//
// storages holds what is known of the storages; a volume on a storage not
// in it is unknown, and then no verdict is given (ok is false) unless a
// known disk is refused already.
func ReplicationVolumesProblem(container bool, vmid int, config map[string]string,
	storages map[string]ReplicationStorage,
) (problem *ReplicationVolumeProblem, ok bool) {
	keys := make([]string, 0, len(config))
	for k := range config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	known := true
	count := 0
	for _, key := range keys {
		volume, replicate, isVolume := replicationVolumeOf(container, key, config[key])
		if volume == "" {
			continue
		}
		if !isVolume {
			if replicate {
				return &ReplicationVolumeProblem{Slot: key, Volume: volume,
					Text: fmt.Sprintf("%s is a host path (%s), which PVE cannot replicate; set replicate=0 on it", key, volume)}, true
			}
			continue
		}
		if !replicate {
			continue
		}
		storeID, volname, found := strings.Cut(volume, ":")
		if !found {
			continue
		}
		st, isKnown := storages[storeID]
		if !isKnown {
			known = false
			continue
		}
		if st.Shared {
			continue
		}
		m := guestOwner.FindStringSubmatch(volname)
		if m == nil {
			known = false
			continue
		}
		if owner, _ := strconv.Atoi(m[1]); owner != vmid {
			continue
		}
		if !StorageCanReplicate(st.Type) {
			return &ReplicationVolumeProblem{Slot: key, Volume: volume, Storage: storeID,
				Text: fmt.Sprintf("%s (%s) is on storage %q of type %s, which cannot replicate: "+
					"PVE replicates only volumes on ZFS (zfspool) storages. Move the disk to a ZFS storage, "+
					"or set replicate=0 on it to leave it out", key, volume, storeID, st.Type)}, true
		}
		count++
	}
	if count == 0 {
		if !known {
			return nil, false
		}
		return &ReplicationVolumeProblem{Text: "the guest has no disk to replicate: PVE replicates the guest's own volumes " +
			"on local ZFS (zfspool) storages, and the guest has none"}, true
	}
	return nil, true
}

// replicationVolumeOf returns the volume a config key holds, whether it
// takes part in replication (replicate, default on), and whether it is a
// storage volume (not a host path). Keys that hold no volume give "".
func replicationVolumeOf(container bool, key, value string) (volume string, replicate, isVolume bool) {
	if IsUnusedSlot(key) {
		return value, true, !strings.HasPrefix(value, "/")
	}
	if container {
		if key != "rootfs" && !IsMountPointSlot(key) {
			return "", false, false
		}
		props, err := ParsePropertyString(value, "volume")
		if err != nil {
			return "", false, false
		}
		volume = props["volume"]
		return volume, props["replicate"] != "0", !strings.HasPrefix(volume, "/")
	}
	if key == "vmstate" {
		return value, true, true
	}
	if !IsDiskSlot(key) {
		return "", false, false
	}
	d, err := ParseDrive(value)
	if err != nil || IsCDROM(d) || d.Storage == "" || d.Volume == "" {
		if err == nil && d.File != "" && strings.HasPrefix(d.File, "/") && !IsCDROM(d) {
			return d.File, d.Options["replicate"] != "0", false
		}
		return "", false, false
	}
	return d.Storage + ":" + d.Volume, d.Options["replicate"] != "0", true
}
