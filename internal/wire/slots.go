package wire

import "strconv"

// diskBuses lists qemu's drive buses in PVE's own order (the order PVE scans
// when it picks a boot disk) with their slot counts: $MAX_IDE_DISKS,
// $MAX_SCSI_DISKS, $MAX_VIRTIO_DISKS and $MAX_SATA_DISKS in qemu-server
// src/PVE/QemuServer/Drive.pm.
var diskBuses = []struct {
	prefix string
	count  int
}{
	{"ide", 4},
	{"scsi", 31},
	{"virtio", 16},
	{"sata", 6},
	{"efidisk", 1},
	{"tpmstate", 1},
}

// Slot counts of PVE's numbered config keys: key N exists for 0 <= N < count.
const (
	// maxUnusedSlots is the number of unusedN keys (unused0..unused255):
	// $MAX_UNUSED_DISKS in qemu-server src/PVE/QemuServer/Drive.pm and in
	// pve-container src/PVE/LXC/Config.pm.
	maxUnusedSlots = 256
	// NetSlots is the number of netN keys (net0..net31) of a VM and of a
	// container: $MAX_NETS in qemu-server src/PVE/QemuServer.pm and
	// $MAX_LXC_NETWORKS in pve-container src/PVE/LXC/Config.pm.
	NetSlots = 32
	// IPConfigSlots is the number of a VM's ipconfigN keys
	// (ipconfig0..ipconfig31): qemu-server src/PVE/QemuServer.pm defines one
	// per netN ($MAX_NETS).
	IPConfigSlots = NetSlots
	// MountPointSlots is the number of a container's mpN keys (mp0..mp255):
	// $MAX_MOUNT_POINTS in pve-container src/PVE/LXC/Config.pm.
	MountPointSlots = 256
	// HostPCISlots is the number of a VM's hostpciN keys
	// (hostpci0..hostpci15): $MAX_HOSTPCI_DEVICES in qemu-server
	// src/PVE/QemuServer/PCI.pm.
	HostPCISlots = 16
)

// SlotIndex returns N for a key "<prefix>N" ("scsi3", "scsi" gives 3). N must
// be written as PVE writes it: decimal digits without a leading zero.
func SlotIndex(key, prefix string) (int, bool) {
	if len(key) <= len(prefix) || key[:len(prefix)] != prefix {
		return 0, false
	}
	digits := key[len(prefix):]
	if len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	index, err := strconv.Atoi(digits)
	if err != nil {
		return 0, false
	}
	return index, true
}

// IsDiskSlot reports whether key is a qemu drive slot within PVE's ranges:
// ide0-3, sata0-5, scsi0-30, virtio0-15, efidisk0 and tpmstate0. unusedN is
// not a drive slot (see IsUnusedSlot).
func IsDiskSlot(key string) bool {
	_, _, ok := DiskSlot(key)
	return ok
}

// DiskSlot splits a qemu drive slot key into its bus prefix and index
// ("virtio2" gives "virtio", 2), within PVE's ranges.
func DiskSlot(key string) (bus string, index int, ok bool) {
	for _, b := range diskBuses {
		if i, ok := SlotIndex(key, b.prefix); ok && i < b.count {
			return b.prefix, i, true
		}
	}
	return "", 0, false
}

// IsDataDiskSlot reports whether key is a drive slot on one of the four disk
// buses: ide0-3, sata0-5, scsi0-30 or virtio0-15 (not efidisk0, tpmstate0
// or unusedN).
func IsDataDiskSlot(key string) bool {
	bus, _, ok := DiskSlot(key)
	return ok && bus != "efidisk" && bus != "tpmstate"
}

// IsCDROMSlot reports whether key is a drive slot that can hold a CD-ROM:
// ide0-3, sata0-5 or scsi0-30. qemu-server has no virtio CD-ROM.
func IsCDROMSlot(key string) bool {
	bus, _, ok := DiskSlot(key)
	return ok && (bus == "ide" || bus == "sata" || bus == "scsi")
}

// IsNetSlot reports whether key is net0..net31, a VM's or a container's
// network device.
func IsNetSlot(key string) bool { return isSlot(key, "net", NetSlots) }

// IsIPConfigSlot reports whether key is ipconfig0..ipconfig31, a VM's
// cloud-init network settings.
func IsIPConfigSlot(key string) bool { return isSlot(key, "ipconfig", IPConfigSlots) }

// IsMountPointSlot reports whether key is mp0..mp255, a container's mount
// point.
func IsMountPointSlot(key string) bool { return isSlot(key, "mp", MountPointSlots) }

// IsHostPCISlot reports whether key is hostpci0..hostpci15, a VM's PCI
// passthrough device.
func IsHostPCISlot(key string) bool { return isSlot(key, "hostpci", HostPCISlots) }

func isSlot(key, prefix string, count int) bool {
	i, ok := SlotIndex(key, prefix)
	return ok && i < count
}

// IsUnusedSlot reports whether key is unused0..unused255, where PVE keeps
// detached volumes (W24).
func IsUnusedSlot(key string) bool {
	return isSlot(key, "unused", maxUnusedSlots)
}

// DiskSlotKeys returns every qemu drive slot key in PVE's order: ide, scsi,
// virtio, sata, then efidisk0 and tpmstate0.
func DiskSlotKeys() []string {
	var keys []string
	for _, b := range diskBuses {
		for i := 0; i < b.count; i++ {
			keys = append(keys, b.prefix+strconv.Itoa(i))
		}
	}
	return keys
}
