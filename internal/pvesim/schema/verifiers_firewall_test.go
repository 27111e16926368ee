package schema

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// The formats pve-firewall registers (src/PVE/Firewall.pm), as the schema
// checks a parameter with them.
func TestFirewallFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format, value, want string
	}{
		{"pve-fw-addr-spec", "10.0.0.0/8,192.168.1.1", ""},
		{"pve-fw-addr-spec", "+office", ""},
		{"pve-fw-addr-spec", "dc/gateway", ""},
		{"pve-fw-addr-spec", "10.0.0.1/8", "invalid IP address: Invalid prefix 00001010000000000000000000000001/8\n"},
		{"pve-fw-addr-spec", "10.0.0.1,fd00::1", "detected mixed ipv4/ipv6 addresses in address list '10.0.0.1,fd00::1'\n"},
		{"pve-fw-dport-spec", "22,80:90,https", ""},
		{"pve-fw-dport-spec", "echo-request", ""},
		{"pve-fw-dport-spec", "70000", "invalid port '70000'\n"},
		{"pve-fw-sport-spec", "echo-request", "invalid port 'echo-request'\n"},
		{"pve-fw-sport-spec", "1024:65535", ""},
		{"pve-fw-protocol-spec", "tcp", ""},
		{"pve-fw-protocol-spec", "17", ""},
		{"pve-fw-protocol-spec", "icmpv6", ""},
		{"pve-fw-protocol-spec", "foo", "unknown protocol 'foo'\n"},
		{"pve-fw-icmp-type-spec", "echo-request", ""},
		{"pve-fw-icmp-type-spec", "neighbor-solicitation", ""},
		{"pve-fw-icmp-type-spec", "8", "invalid icmp-type value '8'\n"},
		{"pve-fw-conntrack-helper", "ftp,tftp", ""},
		{"pve-fw-conntrack-helper", "", ""},
		{"pve-fw-conntrack-helper", "ftp,", "extraneous commas in list\n"},
		{"pve-fw-conntrack-helper", "http", "unknown helper http\n"},
		{"IPorCIDR", "192.168.1.155/24", ""}, // clean_cidr clears the host bits first
		{"IPorCIDR", "fd00::1", ""},
		{"IPorCIDR", "0.0.0.0/0", ""},
		{"IPorCIDR", "10.0.0.1/0", "Invalid prefix 00001010000000000000000000000001/0\n"},
		{"IPorCIDR", "10.0.0.0/33", "Prefix length 33 is longer than IP address (32)\n"},
		{"IPorCIDR", "myalias", "value does not look like a valid IP address or CIDR network\n"},
		{"IPorCIDR", "10.0.0.300", "value does not look like a valid IP address or CIDR network\n"},
		{"IPorCIDR", "::1:2:3:4:5:6:7", "Invalid IP address ::1:2:3:4:5:6:7\n"}, // Net::IP refuses eight groups
		{"IPorCIDRorAlias", "myalias", ""},
		{"IPorCIDRorAlias", "dc/my-alias", ""},
		{"IPorCIDRorAlias", "10.1.0.0/16", ""},
		{"IPorCIDRorAlias", "my alias", "value does not look like a valid IP address or CIDR network\n"},
	} {
		if got := checkNamedFormat(tc.format, tc.value, "x"); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.format, tc.value, got, tc.want)
		}
	}
}

// The firewall's address grammar reads addresses with its own copy of
// $IPV4RE and $IPV6RE; it must agree with the ip, ipv4 and ipv6 formats of
// the schema supplement.
func TestFirewallAddressGrammarAgreesWithSchema(t *testing.T) {
	t.Parallel()
	corpus := []string{
		"10.0.0.1", "0.0.0.0", "255.255.255.255", "256.0.0.1", "10.0.0", "010.0.0.1", "1.2.3.4.5",
		"::", "::1", "fe80::1", "FE80::AbC:1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3",
		"::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4", "1::", "1:2:3:4:5:6:7::",
		"12345::1", ":1::", "1:::2", "fe80::1%eth0", "", "a", "1.2.3.4/24", " ::1",
	}
	for _, s := range corpus {
		if got, want := pvegrammar.IsIPv4(s), matchesFormat("ipv4", s); got != want {
			t.Errorf("IsIPv4(%q) = %v, schema says %v", s, got, want)
		}
		if got, want := pvegrammar.IsIPv6(s), matchesFormat("ipv6", s); got != want {
			t.Errorf("IsIPv6(%q) = %v, schema says %v", s, got, want)
		}
	}
}

// IPorCIDR and IPorCIDRorAlias refuse through the schema with PVE's texts
// (pve-firewall src/PVE/Firewall.pm pve_verify_ip_or_cidr).
func TestFirewallAddressFormats(t *testing.T) {
	t.Parallel()
	bad := "value does not look like a valid IP address or CIDR network\n"
	cases := []struct{ format, value, want string }{
		{"IPorCIDR", "10.0.0.5/24", ""},
		{"IPorCIDR", "myalias", bad},
		{"IPorCIDR", "10.0.0.0/33", "Prefix length 33 is longer than IP address (32)\n"},
		{"IPorCIDRorAlias", "dc/myalias", ""},
		{"IPorCIDRorAlias", "10.0.0.1/0", "Invalid prefix 00001010000000000000000000000001/0\n"},
		{"IPorCIDRorAlias", "x", bad},
	}
	for _, tc := range cases {
		check := verifierFunc(tc.format)
		if check == nil {
			t.Fatalf("%s has no verifier", tc.format)
		}
		if got := check(tc.value); got != tc.want {
			t.Errorf("%s %q = %q, want %q", tc.format, tc.value, got, tc.want)
		}
	}
}
