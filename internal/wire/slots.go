package wire

import "strconv"

// diskBuses lists qemu's drive buses in PVE's own order (the order PVE scans
// when it picks a boot disk) with their slot counts.
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

// maxUnusedSlots is PVE's number of unusedN keys (unused0..unused255).
const maxUnusedSlots = 256

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

// IsUnusedSlot reports whether key is unused0..unused255, where PVE keeps
// detached volumes (W24).
func IsUnusedSlot(key string) bool {
	i, ok := SlotIndex(key, "unused")
	return ok && i < maxUnusedSlots
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
