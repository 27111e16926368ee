package wire

import (
	"net/netip"
	"strings"
	"testing"
)

func TestFirewallCommentW56(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"-", ""},
		{"0", ""},
		{"   ", ""},
		{"\t\v\f", ""},
		{"\u00a0\u2003", ""},
		{"web", "web"},
		{"  web  ", "web"},
		{"\tweb\v", "web"},
		{" 0 ", "0"},
		{" - ", "-"},
		{"a # b", "a # b"},
		{"café", "café"},
		{"\u00a0web", "\u00a0web"},
	}
	for _, tt := range tests {
		if got := FirewallComment(tt.in); got != tt.want {
			t.Errorf("FirewallComment(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFirewallIPSetCIDRW57(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		problem  string
	}{
		{"10.0.0.5", "10.0.0.5", ""},
		{"10.0.0.5/32", "10.0.0.5", ""},
		{"10.0.0.5/24", "10.0.0.0/24", ""},
		{"10.0.0.0/8", "10.0.0.0/8", ""},
		{"10.0.0.5/024", "10.0.0.0/024", ""},
		{"2001:DB8::1", "2001:DB8::1", ""},
		{"2001:DB8::1/128", "2001:db8::1", ""},
		{"2001:DB8:0:0:1::5/64", "2001:db8::/64", ""},
		{"2001:0db8:0000:0001:0000:0000:0000:0001/127", "2001:db8:0:1::/127", ""},
		{"::ffff:10.0.0.1/120", "::ffff:a00:0/120", ""},
		{"::ffff:10.0.0.1", "::ffff:10.0.0.1", ""},
		{"dc/office", "dc/office", ""},
		{"guest/web-1", "guest/web-1", ""},
		{"Office", "Office", ""},
		{"0.0.0.0/0", "", "zero prefix"},
		{"::/0", "", "zero prefix"},
		{"10.0.0.0/00", "", "zero prefix"},
		{"10.0.0.1/0", "", "host bits"},
		{"10.0.0.0/33", "", "longer than the address"},
		{"2001:db8::/129", "", "longer than the address"},
		{"10.0.0.05", "", "valid IP address"},
		{"10.0.0.1/", "", "valid IP address"},
		{"10.0.0.1/x", "", "valid IP address"},
		{"10.0.0.1-10.0.0.2", "", "valid IP address"},
		{"vm/office", "", "valid IP address"},
		{"", "", "valid IP address"},
	}
	for _, tt := range tests {
		got, err := NormalizeIPSetCIDR(tt.in)
		switch {
		case tt.problem == "" && (err != nil || got != tt.want):
			t.Errorf("NormalizeIPSetCIDR(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
			t.Errorf("NormalizeIPSetCIDR(%q) = %q, %v, want an error with %q", tt.in, got, err, tt.problem)
		}
	}
}

func TestFirewallAliasCIDRW57(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		version  int
		ok       bool
	}{
		{"10.0.0.5", "10.0.0.5", 4, true},
		{"10.0.0.5/32", "10.0.0.5", 4, true},
		{"10.0.0.5/24", "10.0.0.5/24", 4, true},
		{"10.0.0.5/320", "", 0, false},
		{"0.0.0.0/0", "0.0.0.0/0", 4, true},
		{"10.0.0.1/0", "", 0, false},
		{"2001:DB8::1/128", "2001:DB8::1", 6, true},
		{"2001:DB8::1/64", "2001:DB8::1/64", 6, true},
		{"2001:DB8::1/1280", "", 0, false},
		{"::ffff:10.0.0.1", "::ffff:10.0.0.1", 6, true},
		{"office", "", 0, false},
		{"10.0.0.1-10.0.0.2", "", 0, false},
		{"10.0.0.1,10.0.0.2", "", 0, false},
		{"fe80::1%eth0", "", 0, false},
	}
	for _, tt := range tests {
		got, version, err := NormalizeAliasCIDR(tt.in)
		if (err == nil) != tt.ok || got != tt.want || version != tt.version {
			t.Errorf("NormalizeAliasCIDR(%q) = %q, %d, %v, want %q, %d, ok=%v", tt.in, got, version, err, tt.want, tt.version, tt.ok)
		}
	}
}

// Net::IP's compression picks the longest run of zero groups measured with
// its colons, so a run inside the address beats an equal one at an end,
// where RFC 5952 (and Go's netip) would take the first.
func TestFirewallNetIPCompressW57(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"::", "::"},
		{"::1", "::1"},
		{"1::", "1::"},
		{"2001:db8::", "2001:db8::"},
		{"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},
		{"0:0:1:0:0:1:1:1", "0:0:1::1:1:1"},
		{"1:1:1:0:0:1:0:0", "1:1:1::1:0:0"},
		{"0:0:1:1:1:1:0:0", "::1:1:1:1:0:0"},
		{"1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"},
		{"1:0:0:1:0:0:0:1", "1:0:0:1::1"},
		{"FE80:0000:0000:0000:00AB:0CD0:0000:0001", "fe80::ab:cd0:0:1"},
	}
	for _, tt := range tests {
		addr := netip.MustParseAddr(tt.in)
		if got := netIPCompress(addr.As16()); got != tt.want {
			t.Errorf("netIPCompress(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzNormalizeIPSetCIDR checks that PVE's stored form of an entry is stored
// unchanged when sent again (so a configuration holding it plans no change)
// and that a compressed address reads back as the same address.
func FuzzFirewallIPSetCIDRW57(f *testing.F) {
	for _, s := range []string{"10.0.0.5/24", "2001:DB8:0:0:1::5/64", "::ffff:10.0.0.1/120", "dc/x1", "0.0.0.0/0",
		"10.0.0.1/32", "::/128", "1:0:0:1:0:0:0:1/128"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stored, err := NormalizeIPSetCIDR(s)
		if err != nil {
			return
		}
		again, err := NormalizeIPSetCIDR(stored)
		if err != nil || again != stored {
			t.Fatalf("NormalizeIPSetCIDR(%q) = %q, which normalizes to %q, %v", s, stored, again, err)
		}
		address, _, _ := strings.Cut(stored, "/")
		if addr, err := netip.ParseAddr(address); err == nil {
			if back := netip.MustParseAddr(netIPCompress(addr.As16())); back != netip.AddrFrom16(addr.As16()) {
				t.Fatalf("netIPCompress(%s) reads back as %s", addr, back)
			}
		}
	})
}
