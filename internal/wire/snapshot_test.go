package wire

import "testing"

func TestIsSnapshotName(t *testing.T) {
	for _, tc := range []struct {
		name      string
		container bool
		want      bool
	}{
		{"before_upgrade", false, true},
		{"pre-1", true, true},
		{"a", false, false},
		{"1abc", false, false},
		{"has space", false, false},
		{"current", false, false},
		{"current", true, false},
		{"Pending", false, false},
		{"pending", true, true},
		{"vzdump", true, false},
		{"vzdump", false, true},
		{"a123456789012345678901234567890123456789", false, true},
		{"a1234567890123456789012345678901234567890", false, false},
	} {
		if got := IsSnapshotName(tc.name, tc.container); got != tc.want {
			t.Errorf("IsSnapshotName(%q, container=%v) = %v, want %v", tc.name, tc.container, got, tc.want)
		}
	}
}

func TestSnapshotDescriptionKept(t *testing.T) {
	for _, tc := range []struct {
		in        string
		container bool
		want      string
	}{
		{"before upgrade", false, "before upgrade"},
		{"before upgrade", true, "before upgrade\n"},
		{"two\nlines\n\n", false, "two\nlines"},
		{"two\nlines\n\n", true, "two\nlines\n"},
		{"trailing  ", false, "trailing"},
		{"", false, ""},
		{"", true, ""},
	} {
		if got := SnapshotDescriptionKept(tc.in, tc.container); got != tc.want {
			t.Errorf("SnapshotDescriptionKept(%q, container=%v) = %q, want %q", tc.in, tc.container, got, tc.want)
		}
	}
}
