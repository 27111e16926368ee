package schema

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

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
