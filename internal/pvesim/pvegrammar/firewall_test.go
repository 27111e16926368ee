package pvegrammar

import "testing"

// Net::IP->new as pve-firewall uses it (expected texts checked against
// libnet-ip-perl 1.26).
func TestNetIPVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		version int
		msg     string
	}{
		{"1.2.3.4", 4, ""},
		{"1.2.3.0/24", 4, ""},
		{"10/8", 4, ""},
		{"10", 4, ""},
		{"1.2.3", 4, ""},
		{"0.0.0.0/0", 4, ""},
		{"1.2.3.0/24/5", 4, ""},
		{"1.2.3.0/24,/24", 4, ""},
		{"1.2.3.4-1.2.3.10", 4, ""},
		{"1.2.3.4 - 1.2.3.9", 4, ""},
		{"::1", 6, ""},
		{"fe80::/10", 6, ""},
		{"::ffff:1.2.3.4", 6, ""},
		{"2001:db8::-2001:db8::ff", 6, ""},
		// An embedded IPv4 address may lack quads, as a plain one may.
		{"::1.2.3", 6, ""},
		{"::1.2.3/120", 6, ""},
		{"::1.2.3-::1.2.3.4", 6, ""},
		{"1.2.3.4/24", 0, "Invalid prefix 00000001000000100000001100000100/24"},
		{"1.2.3.4/0", 0, "Invalid prefix 00000001000000100000001100000100/0"},
		{"1.2.3.4/33", 0, "Prefix length 33 is longer than IP address (32)"},
		{"1.2.3.10-1.2.3.4", 0, "Begin address is greater than End address 1.2.3.10 - 1.2.3.4"},
		{"2001:db8::ff-2001:db8::1", 0, "Begin address is greater than End address " +
			"2001:0db8:0000:0000:0000:0000:0000:00ff - 2001:0db8:0000:0000:0000:0000:0000:0001"},
		{"1.2.3.4-1.2.3.300", 0, "Invalid quad in IP address 1.2.3.300 - 300"},
		{"1.2.3.4-::1", 0, "Not a valid IPv4 address ::1"},
		{"1.2.3.4-1.2.3.4.5", 0, "Not a valid IPv address 1.2.3.4.5"},
		{"256.1.1.1", 0, "Invalid quad in IP address 256.1.1.1 - 256"},
		{"a.b.c.d", 0, "Invalid chars in IP a.b.c.d"},
		{"1.2.3.4.5", 0, "Invalid IP address 1.2.3.4.5"},
		{"1..2", 0, "Empty quad in IP address 1..2"},
		{".1.2.3", 0, "Invalid IP .1.2.3 - starts with a dot"},
		{"1.2.3.4:80", 0, "Invalid IP address 1.2.3.4:80"},
		{":::1", 0, "Invalid address :::1 (More than one :: pattern)"},
		{":1::", 0, "Invalid address :1:: (starts with :)"},
		{"1:2:3:4:5:6:7", 0, "Invalid number of octets 1:2:3:4:5:6:7"},
	} {
		v, msg := NetIPVersion(tc.in)
		if v != tc.version || msg != tc.msg {
			t.Errorf("NetIPVersion(%q) = %d %q, want %d %q", tc.in, v, msg, tc.version, tc.msg)
		}
	}
}

// pve-firewall src/PVE/Firewall.pm parse_address_list.
// Wire rules: W53.
func TestFirewallAddressList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		version int
		msg     string
	}{
		{"+myset", 0, ""},
		{"+a2345678901234567890123456789012345678901234567890123456789012345", 0, "ipset name too long"},
		{"+a234567890123456789012345678901234567890123456789012345678901234", 0, ""},
		{"myalias", 0, ""},
		{"dc/myalias", 0, ""},
		{"guest/my-alias_1", 0, ""},
		{"10.0.0.1,10.0.0.0/24", 4, ""},
		{"fd00::1,fd00::/64", 6, ""},
		{"10.0.0.1-10.0.0.9", 4, ""},
		{"10.0.0.1,", 0, "extraneous commas in list"},
		{"10.0.0.1,fd00::1", 0, "detected mixed ipv4/ipv6 addresses in address list '10.0.0.1,fd00::1'"},
		{"10.0.0.1-10.0.0.9,10.0.1.1", 0, "you can't use a range in a list"},
		{"10.0.0.1/24", 0, "invalid IP address: Invalid prefix 00001010000000000000000000000001/24"},
		{"1x", 0, "invalid IP address: Invalid chars in IP 1x"},
	} {
		v, msg := FirewallAddressList(tc.in)
		if v != tc.version || msg != tc.msg {
			t.Errorf("FirewallAddressList(%q) = %d %q, want %d %q", tc.in, v, msg, tc.version, tc.msg)
		}
	}
	long := "a"
	for len(long) < 65 {
		long += "b"
	}
	if _, msg := FirewallAddressList(long); msg != "alias name too long" {
		t.Errorf("65-character alias: %q", msg)
	}
}

// pve-firewall src/PVE/Firewall.pm parse_port_name_number_or_range, with
// Debian netbase's service names.
// Wire rules: W54.
func TestFirewallPortList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		icmp bool
		msg  string
	}{
		{"22", false, ""},
		{"80,443,8000:8080", false, ""},
		{"ssh,http", false, ""},
		{"65535", false, ""},
		{"65536", false, "invalid port '65536'"},
		{"1:65536", false, "invalid port '65536'"},
		{"90:80", false, "backwards range '90:80' not allowed, did you mean '80:90'?"},
		{"22,", false, "extraneous commas in list"},
		{"nosuchservice", false, "invalid port 'nosuchservice'"},
		{"echo-request", false, "invalid port 'echo-request'"},
		{"echo-request", true, ""},
		{"neighbour-solicitation", true, ""},
		{"echo-request,22", true, "ICMP ports not allowed in port range"},
		{"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", false, ""},
		{"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15:16", false, "too many entries in port list (> 15 numbers)"},
	} {
		if msg := FirewallPortList(tc.in, tc.icmp); msg != tc.msg {
			t.Errorf("FirewallPortList(%q, %v) = %q, want %q", tc.in, tc.icmp, msg, tc.msg)
		}
	}
}

// pve-firewall src/PVE/Firewall.pm pve_fw_verify_protocol_spec over
// Debian netbase's /etc/protocols.
func TestFirewallProtocolKnown(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"tcp": true, "udp": true, "icmp": true, "ipv6-icmp": true, "icmpv6": true,
		"6": true, "47": true, "0": true, "": true, "TCP": false, "06": false, "tcpx": false,
	} {
		if got := FirewallProtocolKnown(in); got != want {
			t.Errorf("FirewallProtocolKnown(%q) = %v", in, got)
		}
	}
}

// Expected values are what pve-firewall src/PVE/Firewall.pm
// pve_verify_ip_or_cidr and clean_cidr answer with Net::IP 1.26 and
// pve-common's $IPV4RE and $IPV6RE.
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
		// $IPV6RE takes eight groups with a "::" standing for none, Net::IP
		// refuses them without an error text of its own (see netIPIsIPv6).
		{"1:2:3:4:5:6:7::", "Invalid IP address 1:2:3:4:5:6:7::", ""},
		{"::1:2:3:4:5:6:7/0", "Invalid IP address ::1:2:3:4:5:6:7", ""},
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
// Wire rules: W57.
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
