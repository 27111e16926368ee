package pvegrammar

import (
	"reflect"
	"testing"
)

// pve-common src/PVE/ParseUtils.pm split_list.
func TestSplitList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a,b;c d\te", []string{"a", "b", "c", "d", "e"}},
		{"  ,a,,b;", []string{"a", "b"}},
		{"a\vb", []string{"a", "b"}},                 // \s holds \v since Perl 5.18
		{"a\u00a0b\u2028c", []string{"a", "b", "c"}}, // Unicode \s on a decoded value
		{"a\x00\x00b\x00\x00", []string{"a", "", "b"}},
		{"\x00a", []string{"", "a"}},
		{"a b\x00c", []string{"a b", "c"}},
	} {
		if got := SplitList(tc.in); (len(got) != 0 || len(tc.want) != 0) && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// pve-common src/PVE/JSONSchema.pm parse_size, with Perl's arithmetic
// (values checked against perl 5.36).
func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"32G", 32 << 30, true},
		{"1TiB", 1 << 40, true},
		{"754M", 754 << 20, true},
		{"4194304", 4194304, true},
		{"0.3K", 307, true},
		{"1.1G", 1181116006, true},
		{"0.99999999999999999999K", 1024, true}, // a double, as in Perl
		{"9007199254740993", 9007199254740993, true},
		{"32G\n", 32 << 30, true}, // Perl's $ before a trailing newline
		{"8388608T", 0, false},    // 2^63: beyond what the simulator holds
		{"1.5", 1, true},
		{"٣G", 0, true}, // a Unicode digit matches \d and numifies to 0
		{"32g", 0, false},
		{"32GB", 0, false},
		{"-1", 0, false},
		{".5G", 0, false},
		{"1.G", 0, false},
		{"", 0, false},
		{" 1G", 0, false},
	} {
		got, ok := ParseSize(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// pve-common src/PVE/JSONSchema.pm format_size.
func TestFormatSize(t *testing.T) {
	for in, want := range map[int64]string{
		0: "0T", 1000: "1000", 1536 << 10: "1536K", 512 << 20: "512M",
		32 << 30: "32G", 1 << 40: "1T", 1025 << 30: "1025G", 3 << 41: "6T",
	} {
		if got := FormatSize(in); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", in, got, want)
		}
	}
}

// pve-common src/PVE/JSONSchema.pm pve_verify_tag through check_format's
// "-list" handling; results checked against perl 5.36 on decoded strings.
func TestCheckTagList(t *testing.T) {
	for in, ok := range map[string]bool{
		"prod;web":          true,
		"Web, db\tcache":    true,
		"":                  true,
		"_a+b-c.d":          true,
		"ok;-bad":           false,
		"a/b":               false,
		"\u212aelvin":       true, // the Kelvin sign folds to k under /i
		"\u017fx":           true, // so does the long s to s
		"é":                 false,
		"a\x00\x00b":        false, // the empty item between the NULs
		"a\n\x00b":          true,  // Perl's $ before a trailing newline
		"a\u00a0b":          true,  // NBSP separates items
		"a\x00b c":          false, // a NUL list does not split on spaces
		"prod\x00web\x00":   true,
		"\u212aelvin;Other": true,
	} {
		if err := CheckTagList(in); (err == nil) != ok {
			t.Errorf("CheckTagList(%q) = %v, want ok=%v", in, err, ok)
		}
	}
}

// pve-guest-common src/PVE/GuestHelpers.pm get_unique_tags, default
// tag-style.
func TestUniqueTags(t *testing.T) {
	for in, want := range map[string]string{
		"Web, db\tcache\nWEB": "cache;db;web",
		"b;A;a":               "a;b",
		"":                    "",
		"\u212aelvin":         "kelvin",
	} {
		if got := UniqueTags(in); got != want {
			t.Errorf("UniqueTags(%q) = %q, want %q", in, got, want)
		}
	}
}

// pve-guest-common src/PVE/GuestHelpers.pm assert_tag_permissions counts
// the raw items: case matters, order does not.
func TestChangedTags(t *testing.T) {
	if got := ChangedTags("a;b", "b,a"); got != nil {
		t.Errorf("reordered tags changed: %q", got)
	}
	if got := ChangedTags("a;B", "a;b;b"); !reflect.DeepEqual(got, []string{"B", "b"}) {
		t.Errorf("ChangedTags = %q", got)
	}
	if got := ChangedTags("a", ""); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("deleted tags = %q", got)
	}
}

// URI::Escape uri_unescape as qemu-server applies it to sshkeys
// (src/PVE/API2/Qemu.pm update_vm_api, src/PVE/QemuServer/Cloudinit.pm).
func TestURIUnescape(t *testing.T) {
	for in, want := range map[string]string{
		"ssh-ed25519%20AAAA%20me%40host%0Assh-rsa%20BBBB": "ssh-ed25519 AAAA me@host\nssh-rsa BBBB",
		"%0d%0a%2bk%20": "\r\n+k ",
		"abc%2":         "abc%2", // not an escape: kept
		"%zz%4":         "%zz%4",
		"a+b":           "a+b",
		"%%41":          "%A",
	} {
		if got := URIUnescape(in); got != want {
			t.Errorf("URIUnescape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := URIUnescape(URIEscape("k1 x@y\n\x00é~")); got != "k1 x@y\n\x00é~" {
		t.Errorf("round trip = %q", got)
	}
	if got := URIEscape("a b~*"); got != "a%20b~%2A" {
		t.Errorf("URIEscape = %q", got)
	}
}

// pve-common src/PVE/JSONSchema.pm pve_verify_urlencoded.
func TestIsURLEncoded(t *testing.T) {
	for in, ok := range map[string]bool{"ssh-rsa%20AAAA%0A": true, "a b": false, "abc%2": true, "": true, "a+b": false} {
		if IsURLEncoded(in) != ok {
			t.Errorf("IsURLEncoded(%q) != %v", in, ok)
		}
	}
}

// pve-common src/PVE/Tools.pm validate_ssh_public_keys: lines split on "\n",
// blank ones skipped, the others kept as they are.
func TestSSHKeyLines(t *testing.T) {
	got := SSHKeyLines(" k1\r\n\nk2 \n \t\n\xa0\n")
	want := []string{" k1\r", "k2 "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SSHKeyLines = %q, want %q", got, want)
	}
}

// qemu-server src/PVE/QemuServer/Drive.pm valid_drive_names and
// $MAX_UNUSED_DISKS; pve-container src/PVE/LXC/Config.pm $MAX_MOUNT_POINTS,
// $MAX_UNUSED_DISKS and $MAX_LXC_NETWORKS.
func TestConfigKeys(t *testing.T) {
	keys := QemuDriveKeys()
	if len(keys) != 4+31+16+6+2 || keys[0] != "ide0" || keys[4] != "scsi0" || keys[35] != "virtio0" || keys[51] != "sata0" || keys[57] != "efidisk0" || keys[58] != "tpmstate0" {
		t.Fatalf("QemuDriveKeys = %q", keys)
	}
	for key, want := range map[string]bool{"scsi30": true, "scsi31": false, "ide3": true, "ide4": false, "virtio15": true, "sata5": true, "sata6": false, "efidisk0": true, "efidisk1": false, "unused0": false, "scsi01": false} {
		if IsQemuDriveKey(key) != want {
			t.Errorf("IsQemuDriveKey(%q) != %v", key, want)
		}
	}
	for key, want := range map[string]bool{"unused0": true, "unused255": true, "unused256": false, "unused01": false, "unused": false, "unused-1": false, "unused+1": false} {
		if IsQemuUnusedKey(key) != want || IsLXCUnusedKey(key) != want {
			t.Errorf("unused key %q != %v", key, want)
		}
	}
	if i, ok := LXCMountPointIndex("mp255"); !ok || i != 255 {
		t.Errorf("mp255 = %d, %v", i, ok)
	}
	if _, ok := LXCMountPointIndex("mp256"); ok {
		t.Error("mp256 accepted")
	}
	if !IsLXCNetKey("net31") || IsLXCNetKey("net32") {
		t.Error("LXC net keys are net0..net31")
	}
}
