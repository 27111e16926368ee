package pvegrammar

import "strconv"

// Slot counts of qemu-server src/PVE/QemuServer/Drive.pm.
const (
	qemuIDEDisks    = 4   // $MAX_IDE_DISKS
	qemuSCSIDisks   = 31  // $MAX_SCSI_DISKS
	qemuVirtIODisks = 16  // $MAX_VIRTIO_DISKS
	qemuSATADisks   = 6   // $MAX_SATA_DISKS
	QemuUnusedDisks = 256 // $MAX_UNUSED_DISKS
)

// Slot counts of pve-container src/PVE/LXC/Config.pm.
const (
	LXCMountPoints = 256 // $MAX_MOUNT_POINTS
	LXCUnusedDisks = 256 // $MAX_UNUSED_DISKS = $MAX_MOUNT_POINTS
	LXCNetworks    = 32  // $MAX_LXC_NETWORKS
)

// qemuDriveKeys is qemu-server src/PVE/QemuServer/Drive.pm
// valid_drive_names, in its order ("used to autoselect boot disk"): ide,
// scsi, virtio, sata, then efidisk0 and tpmstate0.
var qemuDriveKeys = func() []string {
	var keys []string
	for _, bus := range []struct {
		prefix string
		count  int
	}{{"ide", qemuIDEDisks}, {"scsi", qemuSCSIDisks}, {"virtio", qemuVirtIODisks}, {"sata", qemuSATADisks}} {
		for i := 0; i < bus.count; i++ {
			keys = append(keys, bus.prefix+strconv.Itoa(i))
		}
	}
	return append(keys, "efidisk0", "tpmstate0")
}()

var qemuDriveKeySet = func() map[string]bool {
	set := make(map[string]bool, len(qemuDriveKeys))
	for _, k := range qemuDriveKeys {
		set[k] = true
	}
	return set
}()

// QemuDriveKeys returns valid_drive_names (qemu-server
// src/PVE/QemuServer/Drive.pm) in PVE's order. The slice is a copy.
func QemuDriveKeys() []string { return append([]string(nil), qemuDriveKeys...) }

// IsQemuDriveKey is is_valid_drivename (qemu-server
// src/PVE/QemuServer/Drive.pm): one of valid_drive_names, never unusedN.
func IsQemuDriveKey(key string) bool { return qemuDriveKeySet[key] }

// IsQemuUnusedKey reports whether key is one of qemu-server's unused0 ..
// unused255 config keys (src/PVE/QemuServer/Drive.pm
// valid_drive_names_with_unused).
func IsQemuUnusedKey(key string) bool {
	_, ok := SlotIndex(key, "unused", QemuUnusedDisks)
	return ok
}

// IsLXCUnusedKey reports whether key is one of pve-container's unused0 ..
// unused255 config keys (src/PVE/LXC/Config.pm, one per $MAX_UNUSED_DISKS).
func IsLXCUnusedKey(key string) bool {
	_, ok := SlotIndex(key, "unused", LXCUnusedDisks)
	return ok
}

// LXCMountPointIndex is N of pve-container's mpN config keys, mp0 .. mp255
// (src/PVE/LXC/Config.pm, one per $MAX_MOUNT_POINTS).
func LXCMountPointIndex(key string) (int, bool) { return SlotIndex(key, "mp", LXCMountPoints) }

// IsLXCNetKey reports whether key is one of pve-container's net0 .. net31
// config keys (src/PVE/LXC/Config.pm, one per $MAX_LXC_NETWORKS).
func IsLXCNetKey(key string) bool {
	_, ok := SlotIndex(key, "net", LXCNetworks)
	return ok
}

// SlotIndex is N for a numbered config key "<prefix>N" with N below count.
// PVE's schemas declare these keys one by one ("mp$i" for $i in 0 ..
// count-1), so only that exact spelling is a key: no sign, no leading zero.
func SlotIndex(key, prefix string, count int) (int, bool) {
	if len(key) <= len(prefix) || key[:len(prefix)] != prefix {
		return 0, false
	}
	digits := key[len(prefix):]
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || n >= count || strconv.Itoa(n) != digits {
		return 0, false
	}
	return n, true
}
