package wire

import (
	"strings"
	"testing"
)

func TestValidateFirewallNameW52(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind FirewallNameKind
		name string
		ok   bool
	}{
		{FirewallAliasName, "ab", true},
		{FirewallAliasName, "web_01-a", true},
		{FirewallAliasName, "A1", true},
		{FirewallAliasName, "a", false},
		{FirewallAliasName, "", false},
		{FirewallAliasName, "1ab", false},
		{FirewallAliasName, "_ab", false},
		{FirewallAliasName, "a b", false},
		{FirewallAliasName, "ab.c", false},
		{FirewallAliasName, "dc/ab", false},
		{FirewallAliasName, "a" + strings.Repeat("b", 63), true},
		{FirewallAliasName, "a" + strings.Repeat("b", 64), false},
		{FirewallIPSetName, "a" + strings.Repeat("b", 63), true},
		{FirewallIPSetName, "a" + strings.Repeat("b", 64), false},
		{FirewallIPSetName, "+ab", false},
		{FirewallGroupName, "a" + strings.Repeat("b", 17), true},
		{FirewallGroupName, "a" + strings.Repeat("b", 18), false},
		{FirewallGroupName, "webservers", true},
	}
	for _, tt := range tests {
		err := ValidateFirewallName(tt.kind, tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateFirewallName(%d, %q) = %v, want ok=%v", tt.kind, tt.name, err, tt.ok)
		}
	}
	err := ValidateFirewallName(FirewallGroupName, strings.Repeat("a", 19))
	if err == nil || !strings.Contains(err.Error(), "security group name") || !strings.Contains(err.Error(), "18") {
		t.Errorf("too long a group name: %v", err)
	}
}

func TestValidateFirewallAddressW53(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec    string
		version int
		problem string // part of the error text, "" when valid
	}{
		{"+myset", 0, ""},
		{"+dc/myset", 0, ""},
		{"+guest/my-set", 0, ""},
		{"+sdn/my_set", 0, ""},
		{"+" + strings.Repeat("a", 64), 0, ""},
		{"+" + strings.Repeat("a", 65), 0, "too long"},
		{"+", 0, "invalid IP set reference"},
		{"+1set", 0, "invalid IP set reference"},
		{"+my set", 0, "invalid IP set reference"},
		{"+vm/myset", 0, "invalid IP set reference"},
		{"myalias", 0, ""},
		{"dc/myalias", 0, ""},
		{"guest/ab", 0, ""},
		{strings.Repeat("a", 64), 0, ""},
		{strings.Repeat("a", 65), 0, "too long"},
		{"dc/" + strings.Repeat("a", 61), 0, ""},
		{"dc/" + strings.Repeat("a", 62), 0, "too long"},
		{"vm/myalias", 0, "invalid IP address"},
		{"10.0.0.1", 4, ""},
		{"0.0.0.0/0", 4, ""},
		{"10.0.0.0/24", 4, ""},
		{"10.0.0.0/8,192.168.1.1", 4, ""},
		{"10.0.0.1-10.0.0.9", 4, ""},
		{"10.0.0.1-10.0.0.1", 4, ""},
		{"2001:db8::/32", 6, ""},
		{"2001:DB8::1,fe80::1", 6, ""},
		{"2001:db8::1-2001:db8::9", 6, ""},
		{"::ffff:10.0.0.1", 6, ""},
		{"10.0.0.5/24", 0, "host bits set: the network is 10.0.0.0/24"},
		{"2001:db8::1/32", 0, "host bits set"},
		{"10.0.0.0/33", 0, "longer than the address"},
		{"2001:db8::/129", 0, "longer than the address"},
		{"10.0.0.0/", 0, "invalid prefix length"},
		{"10.0.0.0/+8", 0, "invalid prefix length"},
		{"10.0.0.9-10.0.0.1", 0, "backwards"},
		{"10.0.0.1-2001:db8::1", 0, "mixes IPv4 and IPv6"},
		{"10.0.0.1,2001:db8::1", 0, "mixes IPv4 and IPv6"},
		{"10.0.0.1-10.0.0.9,10.0.1.1", 0, "a range must be the only entry"},
		{"10.0.0.1,10.0.0.2-10.0.0.3", 0, "a range must be the only entry"},
		{"10.0.0.1,", 0, "extraneous commas"},
		{",10.0.0.1", 0, "extraneous commas"},
		{"10.0.0.1,,10.0.0.2", 0, "extraneous commas"},
		{"", 0, "empty"},
		{"10.1", 0, "invalid IP address"},
		{"10", 0, "invalid IP address"},
		{"010.0.0.1", 0, "invalid IP address"},
		{"10.0.0.256", 0, "invalid IP address"},
		{"fe80::1%eth0", 0, "invalid IP address"},
		{"10.0.0.1 - 10.0.0.2", 0, "invalid IP address"},
		{"10.0.0.1+5", 0, "invalid IP address"},
		{"10.0.0.1,myalias", 0, "invalid IP address"},
	}
	for _, tt := range tests {
		version, err := ValidateFirewallAddress(tt.spec)
		switch {
		case tt.problem == "" && (err != nil || version != tt.version):
			t.Errorf("ValidateFirewallAddress(%q) = %d, %v, want %d", tt.spec, version, err, tt.version)
		case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
			t.Errorf("ValidateFirewallAddress(%q) = %d, %v, want an error with %q", tt.spec, version, err, tt.problem)
		}
	}
}

func TestValidateFirewallPortsW54(t *testing.T) {
	t.Parallel()
	fifteen := "1:2,3:4,5:6,7:8,9:10,11:12,13:14,15"
	tests := []struct {
		spec    string
		icmp    bool
		problem string
	}{
		{"22", false, ""},
		{"0", false, ""},
		{"65535", false, ""},
		{"80,443", false, ""},
		{"8000:8080", false, ""},
		{"8080:8080", false, ""},
		{"ssh", false, ""},
		{"http,https,8443", false, ""},
		{"x11", false, ""},
		{"9pfs", false, ""},
		{"afs3-fileserver", false, ""},
		{fifteen, false, ""},
		{fifteen + ",16", false, "too many entries"},
		{strings.Repeat("1,", 15) + "1", false, "too many entries"},
		{"65536", false, "invalid port '65536'"},
		{"1:65536", false, "invalid port '65536'"},
		{"99999999999999999999", false, "invalid port"},
		{"80:70", false, "backwards range '80:70' not allowed, did you mean '70:80'?"},
		{"80,", false, "extraneous commas"},
		{",80", false, "extraneous commas"},
		{"80,,443", false, "extraneous commas"},
		{"", false, "empty"},
		{"80-90", false, "invalid port \"80-90\""},
		{"80 443", false, "invalid port"},
		{"1:2:3", false, "invalid port"},
		{":80", false, "invalid port"},
		{"echo-request", false, "is an ICMP type, not a port"},
		{"echo-request", true, ""},
		{"neighbour-solicitation", true, ""},
		{"echo-request,echo-reply", true, ""},
		{"8", true, ""},
		{"echo-request,22", true, "mixes ICMP types with port numbers"},
		{"ssh", true, ""},
	}
	for _, tt := range tests {
		err := ValidateFirewallPorts(tt.spec, tt.icmp)
		switch {
		case tt.problem == "" && err != nil:
			t.Errorf("ValidateFirewallPorts(%q, %v) = %v", tt.spec, tt.icmp, err)
		case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
			t.Errorf("ValidateFirewallPorts(%q, %v) = %v, want an error with %q", tt.spec, tt.icmp, err, tt.problem)
		}
	}
}

func TestFirewallProtocolsAndICMPTypesW55(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"tcp", "6", "udp", "17", "udplite", "136", "dccp", "33", "sctp", "132"} {
		if !FirewallProtocolHasPorts(proto) {
			t.Errorf("FirewallProtocolHasPorts(%q) = false", proto)
		}
	}
	for _, proto := range []string{"TCP", "icmp", "icmpv6", "1", "gre", "esp", "", "tcp "} {
		if FirewallProtocolHasPorts(proto) {
			t.Errorf("FirewallProtocolHasPorts(%q) = true", proto)
		}
	}
	tests := []struct {
		proto, name string
		want        bool
	}{
		{"icmp", "echo-request", true},
		{"icmp", "any", true},
		{"icmp", "TOS-host-redirect", true},
		{"icmp", "tos-host-redirect", false},
		{"icmp", "address-mask-reply", true},
		{"icmp", "neighbor-solicitation", false},
		{"icmp", "8", false},
		{"icmpv6", "neighbor-solicitation", true},
		{"icmpv6", "neighbour-advertisement", true},
		{"ipv6-icmp", "no-route", true},
		{"ipv6-icmp", "echo-request", true},
		{"icmpv6", "any", false},
		{"icmpv6", "source-quench", false},
		{"tcp", "echo-request", false},
		{"1", "echo-request", false},
		{"", "echo-request", false},
	}
	for _, tt := range tests {
		if got := FirewallICMPType(tt.proto, tt.name); got != tt.want {
			t.Errorf("FirewallICMPType(%q, %q) = %v, want %v", tt.proto, tt.name, got, tt.want)
		}
	}
	if len(icmpTypeNames) != 37 || len(icmpv6TypeNames) != 25 {
		t.Errorf("ICMP tables hold %d and %d names, PVE's hold 37 and 25", len(icmpTypeNames), len(icmpv6TypeNames))
	}
}

// FuzzValidateFirewallAddress checks that an accepted list of addresses
// reads back entry by entry with one IP version, and that references carry
// no version.
func FuzzValidateFirewallAddressW53(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "10.0.0.0/24,10.1.0.1", "+dc/set", "guest/alias", "10.0.0.1-10.0.0.9",
		"2001:db8::/32", "10.0.0.1,,", "::ffff:1.2.3.4", "10.0.0.5/24", "a-b", "+", "1.2.3.4/99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		version, err := ValidateFirewallAddress(spec)
		if err != nil {
			if version != 0 {
				t.Fatalf("ValidateFirewallAddress(%q) = %d with error %v", spec, version, err)
			}
			return
		}
		if strings.HasPrefix(spec, "+") || firewallAliasRefPattern().MatchString(spec) {
			if version != 0 {
				t.Fatalf("reference %q has version %d", spec, version)
			}
			return
		}
		if version != 4 && version != 6 {
			t.Fatalf("ValidateFirewallAddress(%q) = version %d", spec, version)
		}
		for _, element := range strings.Split(spec, ",") {
			v, err := ValidateFirewallAddress(element)
			if err != nil || v != version {
				t.Fatalf("entry %q of accepted %q: %d, %v", element, spec, v, err)
			}
		}
		if strings.ContainsAny(spec, " \t\n#") {
			t.Fatalf("accepted %q holds a character that breaks the rule file", spec)
		}
	})
}

// FuzzValidateFirewallPorts checks that an accepted port list holds only
// numbers in range, names, and at most 15 numbers.
func FuzzValidateFirewallPortsW54(f *testing.F) {
	for _, s := range []string{"22", "80:70", "ssh,http", "1:2,3:4", "echo-request", ",", "65536", "a:b"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, spec string, icmp bool) {
		if ValidateFirewallPorts(spec, icmp) != nil {
			return
		}
		numbers := 0
		for _, item := range strings.Split(spec, ",") {
			if first, last, ok := strings.Cut(item, ":"); ok && isDigits(first) && isDigits(last) {
				numbers += 2
				continue
			}
			if isDigits(item) {
				numbers++
				continue
			}
			if strings.ContainsAny(item, " \t\n#,") || item == "" {
				t.Fatalf("accepted %q holds entry %q", spec, item)
			}
		}
		if numbers > 15 {
			t.Fatalf("accepted %q holds %d numbers", spec, numbers)
		}
	})
}
