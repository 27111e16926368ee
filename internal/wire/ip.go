package wire

import (
	"fmt"
	"strconv"
	"strings"
)

// Address grammar of PVE's ip formats, as proxmox/pve-common defines it:
// $IPV4RE and $IPV6RE in src/PVE/ParseUtils.pm, the formats ipv4, ipv6,
// CIDRv4, CIDRv6, pve-ipv4-config and pve-ipv6-config in
// src/PVE/JSONSchema.pm. An IPv4 octet has no leading zero; a prefix length
// is 8 to 32 (IPv4) or 8 to 128 (IPv6).
const (
	ipv4Octet = `(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])`
	ipv4RE    = `(?:(?:` + ipv4Octet + `\.){3}` + ipv4Octet + `)`
	ipv6H16   = `(?:[0-9a-fA-F]{1,4})`
	ipv6LS32  = `(?:(?:` + ipv4RE + `|` + ipv6H16 + `:` + ipv6H16 + `))`
	ipv6RE    = `(?:` +
		`(?:(?:(?:` + ipv6H16 + `:){6})` + ipv6LS32 + `)|` +
		`(?:(?:::(?:` + ipv6H16 + `:){5})` + ipv6LS32 + `)|` +
		`(?:(?:(?:` + ipv6H16 + `)?::(?:` + ipv6H16 + `:){4})` + ipv6LS32 + `)|` +
		`(?:(?:(?:(?:` + ipv6H16 + `:){0,1}` + ipv6H16 + `)?::(?:` + ipv6H16 + `:){3})` + ipv6LS32 + `)|` +
		`(?:(?:(?:(?:` + ipv6H16 + `:){0,2}` + ipv6H16 + `)?::(?:` + ipv6H16 + `:){2})` + ipv6LS32 + `)|` +
		`(?:(?:(?:(?:` + ipv6H16 + `:){0,3}` + ipv6H16 + `)?::(?:` + ipv6H16 + `:){1})` + ipv6LS32 + `)|` +
		`(?:(?:(?:(?:` + ipv6H16 + `:){0,4}` + ipv6H16 + `)?::)` + ipv6LS32 + `)|` +
		`(?:(?:(?:(?:` + ipv6H16 + `:){0,5}` + ipv6H16 + `)?::)` + ipv6H16 + `)|` +
		`(?:(?:(?:(?:` + ipv6H16 + `:){0,6}` + ipv6H16 + `)?::)))`
)

// The IPv6 grammar is large, so the patterns compile on first use rather
// than at every provider start.
var (
	ipv4Pattern     = lazyPattern(`^` + ipv4RE + `$`)
	ipv6Pattern     = lazyPattern(`^` + ipv6RE + `$`)
	ipv4CIDRPattern = lazyPattern(`^` + ipv4RE + `/(\d+)$`)
	ipv6CIDRPattern = lazyPattern(`^` + ipv6RE + `/(\d+)$`)
)

// IPFamily is an address family of PVE's network settings: the ip/gw or
// the ip6/gw6 keys of ipconfigN and of a container's netN.
type IPFamily int

const (
	IPv4 IPFamily = 4
	IPv6 IPFamily = 6
)

// methods are the words pve-ipv4-config and pve-ipv6-config take instead
// of an address.
func (f IPFamily) methods() []string {
	if f == IPv4 {
		return []string{"dhcp", "manual"}
	}
	return []string{"auto", "dhcp", "manual"}
}

// CheckAddress checks a gateway: PVE's ipv4 or ipv6 format.
func (f IPFamily) CheckAddress(s string) error {
	pattern, name := ipv4Pattern, "IPv4"
	if f == IPv6 {
		pattern, name = ipv6Pattern, "IPv6"
	}
	if !pattern().MatchString(s) {
		return fmt.Errorf("%q is not an %s address", s, name)
	}
	return nil
}

// CheckConfig checks an address setting: pve-ipv4-config (dhcp, manual or
// an address with a prefix length of 8 to 32) or pve-ipv6-config (auto,
// dhcp, manual or an address with a prefix length of 8 to 128).
func (f IPFamily) CheckConfig(s string) error {
	methods := f.methods()
	for _, m := range methods {
		if s == m {
			return nil
		}
	}
	pattern, name, maxPrefix := ipv4CIDRPattern, "IPv4", 32
	if f == IPv6 {
		pattern, name, maxPrefix = ipv6CIDRPattern, "IPv6", 128
	}
	address, prefix, found := strings.Cut(s, "/")
	if !found {
		return fmt.Errorf("%q is neither one of %s nor an address with a prefix length", s, strings.Join(methods, ", "))
	}
	if f.CheckAddress(address) != nil {
		return fmt.Errorf("%q in %q is not an %s address", address, s, name)
	}
	m := pattern().FindStringSubmatch(s)
	n, err := 0, error(nil)
	if m != nil {
		n, err = strconv.Atoi(m[1])
	}
	if m == nil || err != nil || n < 8 || n > maxPrefix {
		return fmt.Errorf("the prefix length %q of %q is not a number from 8 to %d", prefix, s, maxPrefix)
	}
	return nil
}
