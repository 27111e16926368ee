package pvegrammar

import "testing"

// Expected values are what pve-firewall src/PVE/Firewall.pm
// pve_verify_ip_or_cidr and clean_cidr answer with Net::IP 1.26.
func TestIPOrCIDRCheckAndClean(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, verifyErr, clean string }{
		{"10.0.0.5/24", "", "10.0.0.0/24"},
		{"10.0.0.5/32", "", "10.0.0.5/32"},
		{"10.0.0.5", "", "10.0.0.5"},
		{"10.0.0.0/33", "Prefix length 33 is longer than IP address (32)", ""},
		{"10.0.0.5/0", "Invalid prefix 00001010000000000000000000000101/0", ""},
		{"0.0.0.0/0", "", "0.0.0.0/0"},
		{"10.0.0.5/00", "", "0.0.0.0/00"},
		{"10.0.0.5/024", "", "10.0.0.0/024"},
		{"FE80::1/64", "", "fe80::/64"},
		{"fe80::1/129", "Prefix length 129 is longer than IP address (128)", ""},
		{"::/0", "", "::/0"},
		{"::1/0", "Invalid prefix 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001/0", ""},
		{"2001:db8::5/48", "", "2001:db8::/48"},
		{"1.2.3.4/1", "", "0.0.0.0/1"},
		{"::ffff:1.2.3.4/120", "", "::ffff:102:300/120"},
		{"::ffff:1.2.3.4/128", "", "::ffff:102:304/128"},
		{"10.0.0.5/99999999999999999999", "Prefix length 99999999999999999999 is longer than IP address (32)", ""},
		{"2001:DB8:0:0:0:0:0:1/64", "", "2001:db8::/64"},
		// Net::IP's choice of the zero run differs from RFC 5952.
		{"0:0:1:0:0:1:1:1/128", "", "0:0:1::1:1:1/128"},
		{"1:0:0:1:1:1:0:0/127", "", "1::1:1:1:0:0/127"},
		{"1:1:0:0:1:0:0:0/128", "", "1:1:0:0:1::/128"},
		{"1:0:1:0:1:0:1:0/128", "", "1:0:1:0:1:0:1:0/128"},
		{"10.0.0.256", "value does not look like a valid IP address or CIDR network", ""},
		{"10.0.0.1/", "value does not look like a valid IP address or CIDR network", ""},
		{"1::2::3", "value does not look like a valid IP address or CIDR network", ""},
		{"fe80::1%eth0", "value does not look like a valid IP address or CIDR network", ""},
		{"010.0.0.1", "value does not look like a valid IP address or CIDR network", ""},
		{"10.0.0.1 ", "value does not look like a valid IP address or CIDR network", ""},
		{"::1.2.3.4/104", "", "::100:0/104"},
		{"1:2:3:4:5:6:1.2.3.4", "", "1:2:3:4:5:6:1.2.3.4"},
	}
	for _, tc := range cases {
		want := ""
		if tc.verifyErr != "" {
			want = tc.verifyErr + "\n"
		}
		if got := IPOrCIDRError(tc.in); got != want {
			t.Errorf("IPOrCIDRError(%q) = %q, want %q", tc.in, got, want)
		}
		if tc.verifyErr == "" {
			if got := CleanCIDR(tc.in); got != tc.clean {
				t.Errorf("CleanCIDR(%q) = %q, want %q", tc.in, got, tc.clean)
			}
		}
	}
}

func TestIPOrCIDROrAlias(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"myalias":       "",
		"dc/myalias":    "",
		"guest/My-A_1":  "",
		"sdn/myalias":   "value does not look like a valid IP address or CIDR network\n",
		"a":             "value does not look like a valid IP address or CIDR network\n",
		"1alias":        "value does not look like a valid IP address or CIDR network\n",
		"10.0.0.0/8":    "",
		"10.0.0.0/0":    "Invalid prefix 00001010000000000000000000000000/0\n",
		"dc/10.0.0.0/8": "value does not look like a valid IP address or CIDR network\n",
	} {
		if got := IPOrCIDROrAliasError(in); got != want {
			t.Errorf("IPOrCIDROrAliasError(%q) = %q, want %q", in, got, want)
		}
	}
}

// pve-firewall src/PVE/Firewall.pm parse_ip_or_cidr: only a host length is
// dropped.
func TestParseIPOrCIDR(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, cidr string
		version  int
		ok       bool
	}{
		{"10.0.0.5/32", "10.0.0.5", 4, true},
		{"10.0.0.0/24", "10.0.0.0/24", 4, true},
		{"10.0.0.5/032", "10.0.0.5/032", 4, true},
		{"fe80::1/128", "fe80::1", 6, true},
		{"FE80::1/64", "FE80::1/64", 6, true},
		{"fe80::1/32", "fe80::1/32", 6, true},
		{"::ffff:1.2.3.4/128", "::ffff:1.2.3.4", 6, true},
		{"myalias", "", 0, false},
	}
	for _, tc := range cases {
		cidr, version, ok := ParseIPOrCIDR(tc.in)
		if cidr != tc.cidr || version != tc.version || ok != tc.ok {
			t.Errorf("ParseIPOrCIDR(%q) = %q %d %v, want %q %d %v", tc.in, cidr, version, ok, tc.cidr, tc.version, tc.ok)
		}
	}
}
