package wire

import (
	"strings"
	"testing"
)

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

// FuzzParseBoolW6 checks that the top-level parser accepts exactly what Bool
// prints (W6), and that the property-string parser agrees with it on those
// and accepts nothing else it would not print case-insensitively.
func FuzzParseBoolW6(f *testing.F) {
	for _, s := range []string{"1", "0", "true", "On", "NO", "", "01", " 1", "yes\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		top, err := ParseBool(s)
		if err == nil && Bool(top) != s {
			t.Fatalf("ParseBool(%q) = %v, but Bool prints %q", s, top, Bool(top))
		}
		prop, propErr := ParsePropertyBool(s)
		if err == nil && (propErr != nil || prop != top) {
			t.Fatalf("ParsePropertyBool(%q) = %v, %v; ParseBool gave %v", s, prop, propErr, top)
		}
		if propErr != nil {
			return
		}
		switch strings.ToLower(s) {
		case "1", "on", "yes", "true", "0", "off", "no", "false":
		default:
			t.Fatalf("ParsePropertyBool(%q) accepted a value PVE refuses", s)
		}
	})
}
