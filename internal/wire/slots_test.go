package wire

import (
	"strconv"
	"testing"
)

func TestSlotIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, prefix string
		want        int
		ok          bool
	}{
		{"scsi3", "scsi", 3, true},
		{"scsi0", "scsi", 0, true},
		{"net10", "net", 10, true},
		{"ipconfig0", "ipconfig", 0, true},
		{"scsi", "scsi", 0, false},
		{"scsi03", "scsi", 0, false},
		{"scsi-1", "scsi", 0, false},
		{"scsi1a", "scsi", 0, false},
		{"sata1", "scsi", 0, false},
		{"scsi99999999999999999999", "scsi", 0, false},
		{"", "", 0, false},
		{"7", "", 7, true},
	}
	for _, tt := range tests {
		got, ok := SlotIndex(tt.key, tt.prefix)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SlotIndex(%q, %q) = %d, %v, want %d, %v", tt.key, tt.prefix, got, ok, tt.want, tt.ok)
		}
	}
}

func TestIsDiskSlot(t *testing.T) {
	t.Parallel()
	yes := []string{"ide0", "ide3", "sata0", "sata5", "scsi0", "scsi30", "virtio0", "virtio15", "efidisk0", "tpmstate0"}
	no := []string{"ide4", "sata6", "scsi31", "virtio16", "efidisk1", "tpmstate1", "unused0", "net0", "scsi", "scsi01",
		"cdrom", "mp0", "rootfs", ""}
	for _, k := range yes {
		if !IsDiskSlot(k) {
			t.Errorf("IsDiskSlot(%q) = false", k)
		}
	}
	for _, k := range no {
		if IsDiskSlot(k) {
			t.Errorf("IsDiskSlot(%q) = true", k)
		}
	}
	if bus, index, ok := DiskSlot("virtio2"); bus != "virtio" || index != 2 || !ok {
		t.Errorf("DiskSlot(virtio2) = %q, %d, %v", bus, index, ok)
	}
}

// W24: detached volumes land in unusedN.
func TestIsUnusedSlotW24(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"unused0", "unused255"} {
		if !IsUnusedSlot(k) {
			t.Errorf("IsUnusedSlot(%q) = false", k)
		}
	}
	for _, k := range []string{"unused256", "unused", "unused01", "scsi0"} {
		if IsUnusedSlot(k) {
			t.Errorf("IsUnusedSlot(%q) = true", k)
		}
	}
}

func TestDiskSlotKeys(t *testing.T) {
	t.Parallel()
	keys := DiskSlotKeys()
	if len(keys) != 4+31+16+6+1+1 {
		t.Fatalf("len(DiskSlotKeys) = %d", len(keys))
	}
	if keys[0] != "ide0" || keys[4] != "scsi0" || keys[len(keys)-2] != "efidisk0" || keys[len(keys)-1] != "tpmstate0" {
		t.Fatalf("DiskSlotKeys order = %q ... %q", keys[:5], keys[len(keys)-2:])
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if !IsDiskSlot(k) || seen[k] {
			t.Fatalf("DiskSlotKeys has bad or repeated key %q", k)
		}
		seen[k] = true
	}
}

// FuzzDiskSlot checks that a key is a drive slot only when it is spelled
// exactly as PVE spells it, so a slot key read from a config maps back to
// itself, and that drive slots and unusedN (W24) never overlap.
func FuzzDiskSlot(f *testing.F) {
	for _, s := range []string{"scsi0", "scsi30", "scsi31", "virtio015", "ide3", "efidisk0", "tpmstate0", "unused255", "unused256", "sata", "scsi+1", "scsi99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		bus, index, ok := DiskSlot(key)
		if ok {
			if again := bus + strconv.Itoa(index); again != key {
				t.Fatalf("DiskSlot(%q) = %s, %d: spelled %q", key, bus, index, again)
			}
			if index < 0 || IsUnusedSlot(key) {
				t.Fatalf("DiskSlot(%q) = %s, %d, also unused: %v", key, bus, index, IsUnusedSlot(key))
			}
		}
		if i, ok := SlotIndex(key, "unused"); ok && "unused"+strconv.Itoa(i) != key {
			t.Fatalf("SlotIndex(%q, unused) = %d", key, i)
		}
	})
}

// TestSlotRanges checks each numbered slot family against its range written
// out by hand, over every prefix and index the families share plus the
// spellings PVE never writes (leading zero, sign, no index).
func TestSlotRanges(t *testing.T) {
	t.Parallel()
	families := []struct {
		name  string
		check func(string) bool
		want  func(prefix string, index int) bool
	}{
		{"IsNetSlot", IsNetSlot, func(p string, i int) bool { return p == "net" && i <= 31 }},
		{"IsIPConfigSlot", IsIPConfigSlot, func(p string, i int) bool { return p == "ipconfig" && i <= 31 }},
		{"IsMountPointSlot", IsMountPointSlot, func(p string, i int) bool { return p == "mp" && i <= 255 }},
		{"IsHostPCISlot", IsHostPCISlot, func(p string, i int) bool { return p == "hostpci" && i <= 15 }},
		{"IsUnusedSlot", IsUnusedSlot, func(p string, i int) bool { return p == "unused" && i <= 255 }},
		{"IsDataDiskSlot", IsDataDiskSlot, func(p string, i int) bool {
			return p == "ide" && i <= 3 || p == "sata" && i <= 5 || p == "scsi" && i <= 30 || p == "virtio" && i <= 15
		}},
		{"IsCDROMSlot", IsCDROMSlot, func(p string, i int) bool {
			return p == "ide" && i <= 3 || p == "sata" && i <= 5 || p == "scsi" && i <= 30
		}},
	}
	prefixes := []string{"net", "ipconfig", "mp", "hostpci", "unused", "ide", "sata", "scsi", "virtio", "efidisk", "tpmstate", "usb"}
	for _, f := range families {
		for _, p := range prefixes {
			for i := 0; i <= 300; i++ {
				key := p + strconv.Itoa(i)
				if got, want := f.check(key), f.want(p, i); got != want {
					t.Errorf("%s(%q) = %v, want %v", f.name, key, got, want)
				}
			}
			for _, key := range []string{p, p + "00", p + "01", p + "-1", p + "+1", p + "1 ", " " + p + "1", p + "1a"} {
				if f.check(key) {
					t.Errorf("%s(%q) = true, want false", f.name, key)
				}
			}
		}
	}
}
