package schema

import "testing"

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
