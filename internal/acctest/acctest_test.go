package acctest

import "testing"

func TestParseVMIDRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in        string
		low, high int
		ok        bool
	}{
		{"9000-9099", 9000, 9099, true},
		{" 100 - 100 ", 100, 100, true},
		{"9099-9000", 0, 0, false},
		{"99-200", 0, 0, false},
		{"9000", 0, 0, false},
		{"a-b", 0, 0, false},
	} {
		low, high, ok := parseVMIDRange(tc.in)
		if ok != tc.ok || (ok && (low != tc.low || high != tc.high)) {
			t.Errorf("parseVMIDRange(%q) = %d, %d, %v", tc.in, low, high, ok)
		}
	}
}
