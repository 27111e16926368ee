package wire

import "testing"

// W6: top-level booleans are exactly 1/0 on the wire.
func TestBoolW6(t *testing.T) {
	t.Parallel()
	if Bool(true) != "1" || Bool(false) != "0" {
		t.Fatalf("Bool = %q/%q, want 1/0", Bool(true), Bool(false))
	}
	for _, tc := range []struct {
		in   string
		want bool
	}{{"1", true}, {"0", false}} {
		got, err := ParseBool(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBool(%q) = %v, %v", tc.in, got, err)
		}
	}
	for _, in := range []string{"true", "True", "yes", "on", "false", "no", "off", "", " 1", "01", "2"} {
		_, err := ParseBool(in)
		want := "type check ('boolean') failed - got '" + in + "'"
		if err == nil || err.Error() != want {
			t.Errorf("ParseBool(%q) error = %v, want %q", in, err, want)
		}
	}
}

// W6: inside property strings PVE also accepts on/off, yes/no, true/false in
// any case.
func TestParsePropertyBoolW6(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"1", "on", "ON", "yes", "Yes", "true", "TRUE"} {
		if got, err := ParsePropertyBool(in); err != nil || !got {
			t.Errorf("ParsePropertyBool(%q) = %v, %v, want true", in, got, err)
		}
	}
	for _, in := range []string{"0", "off", "Off", "no", "NO", "false", "False"} {
		if got, err := ParsePropertyBool(in); err != nil || got {
			t.Errorf("ParsePropertyBool(%q) = %v, %v, want false", in, got, err)
		}
	}
	for _, in := range []string{"", "2", "y", "n", "enabled", " on"} {
		if _, err := ParsePropertyBool(in); err == nil {
			t.Errorf("ParsePropertyBool(%q) accepted", in)
		}
	}
}

func TestBoolRoundTrip(t *testing.T) {
	t.Parallel()
	for _, b := range []bool{true, false} {
		got, err := ParseBool(Bool(b))
		if err != nil || got != b {
			t.Errorf("ParseBool(Bool(%v)) = %v, %v", b, got, err)
		}
		got, err = ParsePropertyBool(Bool(b))
		if err != nil || got != b {
			t.Errorf("ParsePropertyBool(Bool(%v)) = %v, %v", b, got, err)
		}
	}
}
