package wire

import "testing"

func TestParseHASID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		typ  string
		vmid int
		ok   bool
	}{
		{"vm:100", "vm", 100, true},
		{"ct:101", "ct", 101, true},
		{"vm:0100", "", 0, false},
		{"vm:1", "", 0, false},
		{"fence:100", "", 0, false},
		{"100", "", 0, false},
		{"vm:", "", 0, false},
		{"vm:10a", "", 0, false},
	}
	for _, tc := range cases {
		typ, vmid, ok := ParseHASID(tc.in)
		if typ != tc.typ || vmid != tc.vmid || ok != tc.ok {
			t.Errorf("ParseHASID(%q) = %q, %d, %v; want %q, %d, %v", tc.in, typ, vmid, ok, tc.typ, tc.vmid, tc.ok)
		}
	}
	if HASID("ct", 101) != "ct:101" {
		t.Error("HASID")
	}
}

func TestParseHAImportID(t *testing.T) {
	t.Parallel()
	if typ, vmid, ok := ParseHAImportID("100"); typ != "" || vmid != 100 || !ok {
		t.Errorf("bare VMID: %q %d %v", typ, vmid, ok)
	}
	if typ, vmid, ok := ParseHAImportID("ct:200"); typ != "ct" || vmid != 200 || !ok {
		t.Errorf("sid: %q %d %v", typ, vmid, ok)
	}
	for _, bad := range []string{"", "abc", "0100", "x:100"} {
		if _, _, ok := ParseHAImportID(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestHATypesAndStates(t *testing.T) {
	t.Parallel()
	if HATypeOfGuest("qemu") != "vm" || HATypeOfGuest("lxc") != "ct" || HATypeOfGuest("node") != "" {
		t.Error("HATypeOfGuest")
	}
	if HAStateFromPVE("enabled") != "started" || HAStateFromPVE("ignored") != "ignored" {
		t.Error("HAStateFromPVE")
	}
}
