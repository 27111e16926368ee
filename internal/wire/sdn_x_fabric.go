package wire

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// SDN fabrics (PVE 9): /cluster/sdn/fabrics/fabric and
// /cluster/sdn/fabrics/node/{fabric_id}, kept by the Rust config of
// proxmox-ve-rs (proxmox-ve-config src/sdn/fabric) behind pve-network
// src/PVE/API2/Network/SDN/Fabrics/Fabric.pm and FabricNode.pm. PVE 8.4 has
// no fabrics. The provider manages the OpenFabric and OSPF protocols;
// WireGuard fabrics (9.1's schema) are left out.

// SDNFabricProtocols are the fabric protocols the provider manages.
var SDNFabricProtocols = []string{"openfabric", "ospf"}

// sdnFabricIDPattern is pve-sdn-fabric-id (the 9.1 schema's pattern,
// 2 to 8 characters).
var sdnFabricIDPattern = lazyPattern(`^[a-zA-Z0-9][a-zA-Z0-9-]{0,6}[a-zA-Z0-9]$`)

// IsSDNFabricID reports whether s is a fabric id: 2 to 8 letters, digits or
// '-', not starting or ending with '-'.
func IsSDNFabricID(s string) bool { return sdnFabricIDPattern().MatchString(s) }

// SDNFabricInterfaceKeys are the keys of a node's interface property
// string per protocol, name first, in the order PVE prints them
// (proxmox-ve-config OpenfabricInterfaceProperties, OspfInterfaceProperties).
var SDNFabricInterfaceKeys = map[string][]string{
	"openfabric": {"name", "hello_multiplier", "ip", "ip6"},
	"ospf":       {"name", "ip"},
}

// SDNFabricInterface is one interface of a fabric node: its options
// besides name (ip, ip6, hello_multiplier), as strings.
type SDNFabricInterface map[string]string

// FormatSDNFabricInterface is the property string of interface name with
// options, keys in PVE's order.
func FormatSDNFabricInterface(protocol, name string, opts SDNFabricInterface) string {
	parts := []string{"name=" + name}
	for _, k := range SDNFabricInterfaceKeys[protocol] {
		if v, ok := opts[k]; ok && k != "name" && v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// ParseSDNFabricInterface splits an interface property string into its
// name and the other options.
func ParseSDNFabricInterface(s string) (name string, opts SDNFabricInterface) {
	opts = SDNFabricInterface{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "name" {
			name = v
			continue
		}
		opts[k] = v
	}
	return name, opts
}

// SortedSDNFabricInterfaces lists interface property strings sorted by
// name, the form a write sends.
func SortedSDNFabricInterfaces(protocol string, ifaces map[string]SDNFabricInterface) []string {
	names := make([]string, 0, len(ifaces))
	for n := range ifaces {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = FormatSDNFabricInterface(protocol, n, ifaces[n])
	}
	return out
}

// CanonicalPrefixProblem says why s is not a prefix as PVE stores it (the
// Rust types print it: host bits cleared at creation, IPv6 compressed), or
// "" when it is. family is 4 or 6.
func CanonicalPrefixProblem(s string, family int) string {
	p, err := netip.ParsePrefix(s)
	if err != nil || (family == 4) != p.Addr().Is4() {
		return fmt.Sprintf("%q is not an IPv%d prefix (address/length)", s, family)
	}
	if m := p.Masked().String(); m != s {
		return fmt.Sprintf("%q is not the network's prefix as PVE stores it: write %s", s, m)
	}
	return ""
}

// CanonicalAddressProblem says why s is not an address of family (4 or 6)
// as PVE prints it, or "" when it is.
func CanonicalAddressProblem(s string, family int) string {
	a, err := netip.ParseAddr(s)
	if err != nil || (family == 4) != a.Is4() {
		return fmt.Sprintf("%q is not an IPv%d address", s, family)
	}
	if a.String() != s {
		return fmt.Sprintf("write %q as PVE prints it: %s", s, a.String())
	}
	return ""
}

// CanonicalInterfacePrefixProblem is CanonicalAddressProblem for an
// interface's address with its prefix length (CIDRv4, CIDRv6): host bits
// stay, the address must be in its printed form.
func CanonicalInterfacePrefixProblem(s string, family int) string {
	p, err := netip.ParsePrefix(s)
	if err != nil || (family == 4) != p.Addr().Is4() {
		return fmt.Sprintf("%q is not an IPv%d address with prefix length", s, family)
	}
	if p.String() != s {
		return fmt.Sprintf("write %q as PVE prints it: %s", s, p.String())
	}
	return ""
}

// SDNFabricAreaProblem checks an OSPF area as proxmox-sdn-types
// src/ospf.rs Area parses it (an IPv4 address or a 32-bit number) and
// prints it back, or "" when s is in that form.
func SDNFabricAreaProblem(s string) string {
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		if a.String() != s {
			return fmt.Sprintf("write area %q as %s", s, a.String())
		}
		return ""
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || strings.HasPrefix(s, "+") {
		return fmt.Sprintf("%q is not an OSPF area: an IPv4 address or a number from 0 to 4294967295", s)
	}
	if strconv.FormatUint(n, 10) != s {
		return fmt.Sprintf("write area %q as %d", s, n)
	}
	return ""
}
