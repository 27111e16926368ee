package wire

import "testing"

func TestTokenCapabilitiesByVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version              string
		clearable, regenable bool
	}{
		{"8.4.18", false, false},
		{"9.0.12", false, false},
		{"9.0.13", true, false},
		{"9.1", true, false},
		{"9.1.4", true, false},
		{"9.1.13", true, false},
		{"9.1.14", true, true},
		{" 9.1.19 ", true, true},
		{"9.2.0", true, true},
		{"9.2.11", true, true},
		{"10.0.1~rc1", true, true},
		{"9", false, false},
		{"", false, false},
		{"nine.one", false, false},
		{"9x.1.14", false, false},
	} {
		if got := TokenCommentClearable(tc.version); got != tc.clearable {
			t.Errorf("TokenCommentClearable(%q) = %v, want %v", tc.version, got, tc.clearable)
		}
		if got := TokenRegenerateSupported(tc.version); got != tc.regenable {
			t.Errorf("TokenRegenerateSupported(%q) = %v, want %v", tc.version, got, tc.regenable)
		}
	}
}
