package schema

import (
	"strings"
	"testing"
)

// The SDN formats of controllers, IPAMs, DNS plugins and fabrics
// (verifiers_sdn_x.go).
func TestSDNExtraFormats(t *testing.T) {
	t.Parallel()
	cases := []struct {
		format, value, want string
	}{
		{"pve-sdn-isis-net", "49.0001.1921.6800.1001.00", ""},
		{"pve-sdn-isis-net", "49.0001.1921.00", "value does not look like a valid isis net\n"},
		{"pve-sdn-isis-net", "49.0001.1921.6800.100g.00", "value does not look like a valid isis net\n"},
		{"pve-sdn-fabric-id", "fab1", ""},
		{"pve-sdn-fabric-id", "f", ""}, // the format allows one character; the pattern does not
		{"pve-sdn-fabric-id", "fabric-12", "Fabric ID 'fabric-12' contains illegal characters\n"},
		{"pve-sdn-fabric-id", "fab_1", "Fabric ID 'fab_1' contains illegal characters\n"},
		{"pve-sdn-controller-id", "evpn-1", ""},
		{"pve-sdn-controller-id", "1evpn", "controller ID '1evpn' contains illegal characters\n"},
		{"pve-sdn-controller-id", "e" + strings.Repeat("x", 64), "controller ID 'e" + strings.Repeat("x", 64) + "' can't be more length than 64 characters\n"},
		{"pve-sdn-ipam-id", "netbox1", ""},
		{"pve-sdn-ipam-id", "net-box", "ipam ID 'net-box' contains illegal characters\n"},
		{"pve-sdn-dns-id", "pdns", ""},
		{"pve-sdn-dns-id", "p_dns", "dns ID 'p_dns' contains illegal characters\n"},
	}
	for _, tc := range cases {
		if got := checkNamedFormat(tc.format, tc.value, ""); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.format, tc.value, got, tc.want)
		}
	}
}
