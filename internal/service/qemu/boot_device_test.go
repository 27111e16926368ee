package qemu

import (
	"regexp"
	"strconv"
	"testing"
)

// isBootDevice accepts exactly what the boot order's former pattern
// accepted: disk and CD-ROM slots within PVE's bus ranges, net0-net31, and
// hostpci or usb with any digits.
func TestIsBootDevice(t *testing.T) {
	t.Parallel()
	former := regexp.MustCompile(`^(?:ide[0-3]|sata[0-5]|scsi(?:[12]?[0-9]|30)|virtio(?:[0-9]|1[0-5])|net(?:[12]?[0-9]|3[01])|hostpci\d+|usb\d+)$`)
	var keys []string
	for _, prefix := range []string{"ide", "sata", "scsi", "virtio", "net", "hostpci", "usb", "efidisk", "tpmstate", "unused", "mp", ""} {
		for i := 0; i <= 40; i++ {
			keys = append(keys, prefix+strconv.Itoa(i))
		}
		keys = append(keys, prefix, prefix+"00", prefix+"01", prefix+"x", prefix+"1x", prefix+"-1", prefix+"٣")
	}
	for _, key := range keys {
		if got, want := isBootDevice(key), former.MatchString(key); got != want {
			t.Errorf("isBootDevice(%q) = %v, want %v", key, got, want)
		}
	}
}
