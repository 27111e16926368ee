package wire

import (
	"strconv"
	"testing"
)

func TestGuestDeviceSlots(t *testing.T) {
	t.Parallel()
	families := []struct {
		name   string
		check  func(string) bool
		prefix string
		count  int
	}{
		{"IsUSBSlot", IsUSBSlot, "usb", 15},
		{"IsVirtiofsSlot", IsVirtiofsSlot, "virtiofs", 10},
		{"IsLXCDevSlot", IsLXCDevSlot, "dev", 256},
	}
	for _, f := range families {
		for _, p := range []string{"usb", "virtiofs", "dev", "hostpci", "mp"} {
			for i := 0; i <= 300; i++ {
				key := p + strconv.Itoa(i)
				if got, want := f.check(key), p == f.prefix && i < f.count; got != want {
					t.Errorf("%s(%q) = %v, want %v", f.name, key, got, want)
				}
			}
			for _, key := range []string{p, p + "00", p + "01", p + "-1", p + "1 ", "x" + p + "1"} {
				if f.check(key) {
					t.Errorf("%s(%q) = true, want false", f.name, key)
				}
			}
		}
	}
}

func TestUSBHostPattern(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]bool{
		"046d:c52b":     true,
		"0x046D:0xC52B": true,
		"046d:0xc52b":   true,
		"1-2":           true,
		"1-2.3.4":       true,
		"spice":         false, // its own attribute value, not a host device
		"046d:c52":      false,
		"046d-c52b":     false,
		"1-":            false,
		"-2":            false,
		"1-2.":          false,
		"":              false,
		"046d:c52b,x=1": false,
	} {
		if got := USBHostDevicePattern.MatchString(value); got != want {
			t.Errorf("USBHostDevicePattern(%q) = %v, want %v", value, got, want)
		}
	}
}

func TestSameUSBHost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"046d:c52b", "0x046D:0xc52b", true},
		{"046D:C52B", "046d:c52b", true},
		{"spice", "SPICE", true},
		{"1-2", "1-2", true},
		{"1-2", "1-2.0", false},
		{"046d:c52b", "046d:c52c", false},
		{"1-2", "046d:c52b", false},
	} {
		if got := SameUSBHost(c.a, c.b); got != c.same {
			t.Errorf("SameUSBHost(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestGuestDevicePropertyStrings pins the usbN, virtiofsN and devN values
// as PVE writes them: default keys (host, dirid, path) written bare, booleans
// as 0/1, other options sorted.
func TestGuestDevicePropertyStrings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value      string
		defaultKey string
		want       map[string]string
	}{
		{"046d:c52b,usb3=1", USBHostKey, map[string]string{"host": "046d:c52b", "usb3": "1"}},
		{"mapping=kbd", USBHostKey, map[string]string{"mapping": "kbd"}},
		{"share,cache=never,expose-acl=1", VirtiofsDirKey, map[string]string{"dirid": "share", "cache": "never", "expose-acl": "1"}},
		{"/dev/ttyUSB0,gid=20,mode=0660", LXCDevPathKey, map[string]string{"path": "/dev/ttyUSB0", "gid": "20", "mode": "0660"}},
	} {
		got, err := ParsePropertyString(c.value, c.defaultKey)
		if err != nil {
			t.Fatalf("ParsePropertyString(%q): %v", c.value, err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("ParsePropertyString(%q) = %v, want %v", c.value, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Fatalf("ParsePropertyString(%q)[%s] = %q, want %q", c.value, k, got[k], v)
			}
		}
		if again := FormatPropertyString(got, c.defaultKey); again != c.value {
			t.Errorf("FormatPropertyString(%v) = %q, want %q", got, again, c.value)
		}
	}
}

func TestLXCDevModePattern(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]bool{"0660": true, "0777": true, "660": false, "0860": false, "00660": false} {
		if got := LXCDevModePattern.MatchString(value); got != want {
			t.Errorf("LXCDevModePattern(%q) = %v, want %v", value, got, want)
		}
	}
}

// FuzzSameUSBHost checks that comparing host values is an equivalence on
// anything: reflexive and symmetric, and canonical forms are fixed points.
func FuzzSameUSBHost(f *testing.F) {
	for _, s := range []string{"046d:c52b", "0x046D:0xC52B", "1-2.3", "spice", "SPICE", ""} {
		f.Add(s, "046d:c52b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !SameUSBHost(a, a) {
			t.Fatalf("SameUSBHost(%q, itself) = false", a)
		}
		if SameUSBHost(a, b) != SameUSBHost(b, a) {
			t.Fatalf("SameUSBHost not symmetric on %q, %q", a, b)
		}
		if c := CanonicalUSBHost(a); CanonicalUSBHost(c) != c {
			t.Fatalf("CanonicalUSBHost(%q) = %q is not canonical", a, c)
		}
	})
}
