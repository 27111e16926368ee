package pvegrammar

import (
	"math/big"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// The firewall's addresses: an alias holds an IP or a CIDR network, an
// IPSet entry one of those or a reference to an alias (pve-firewall
// src/PVE/Firewall.pm pve_verify_ip_or_cidr, pve_verify_ip_or_cidr_or_alias,
// clean_cidr, parse_ip_or_cidr). PVE reads addresses with pve-common's
// $IPV4RE and $IPV6RE (src/PVE/ParseUtils.pm); the IPv6 form is RFC 3986's
// IPv6address, an IPv4 octet has no leading zero. The prefix length is \d+,
// which Perl would let match any Unicode digit on a character string; here it
// is ASCII digits only, as is Perl's '$' without the trailing newline it
// would allow: both only refuse more.

const (
	ipv4Octet = `(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])`
	ipv4Text  = `(?:(?:` + ipv4Octet + `\.){3}` + ipv4Octet + `)`
	h16       = `[0-9a-fA-F]{1,4}`
	ls32      = `(?:` + h16 + `:` + h16 + `|` + ipv4Text + `)`
)

// ipv6Text is RFC 3986's IPv6address, one alternative per line of its ABNF.
var ipv6Text = `(?:` + strings.Join([]string{
	`(?:` + h16 + `:){6}` + ls32,
	`::(?:` + h16 + `:){5}` + ls32,
	`(?:` + h16 + `)?::(?:` + h16 + `:){4}` + ls32,
	`(?:(?:` + h16 + `:){0,1}` + h16 + `)?::(?:` + h16 + `:){3}` + ls32,
	`(?:(?:` + h16 + `:){0,2}` + h16 + `)?::(?:` + h16 + `:){2}` + ls32,
	`(?:(?:` + h16 + `:){0,3}` + h16 + `)?::` + h16 + `:` + ls32,
	`(?:(?:` + h16 + `:){0,4}` + h16 + `)?::` + ls32,
	`(?:(?:` + h16 + `:){0,5}` + h16 + `)?::` + h16,
	`(?:(?:` + h16 + `:){0,6}` + h16 + `)?::`,
}, "|") + `)`

var (
	ipv4CIDRShape = regexp.MustCompile(`^(` + ipv4Text + `)(?:/([0-9]+))?$`)
	ipv6CIDRShape = regexp.MustCompile(`^(` + ipv6Text + `)(?:/([0-9]+))?$`)
	// aliasReference is an alias name, optionally scoped to the datacenter
	// or the guest ($ip_alias_pattern with its dc/ and guest/ prefixes).
	aliasReference = regexp.MustCompile(`^(dc/|guest/)?([A-Za-z][A-Za-z0-9\-_]+)$`)
)

// IsIPv4 and IsIPv6 match one address as $IPV4RE and $IPV6RE do.
func IsIPv4(s string) bool { m := ipv4CIDRShape.FindStringSubmatch(s); return m != nil && m[2] == "" }

// IsIPv6 matches one IPv6 address as $IPV6RE does.
func IsIPv6(s string) bool { m := ipv6CIDRShape.FindStringSubmatch(s); return m != nil && m[2] == "" }

// AliasReference splits an IPSet entry that names an alias into its scope
// ("", "dc/" or "guest/") and the name; ok is false for anything else
// (pve-firewall src/PVE/API2/Firewall/IPSet.pm register_create_ip).
func AliasReference(s string) (scope, name string, ok bool) {
	m := aliasReference.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// splitCIDR tells the IP version of an address with an optional /LENGTH,
// or 0 when s is neither.
func splitCIDR(s string) (addr, length string, version int) {
	if m := ipv6CIDRShape.FindStringSubmatch(s); m != nil {
		return m[1], m[2], 6
	}
	if m := ipv4CIDRShape.FindStringSubmatch(s); m != nil {
		return m[1], m[2], 4
	}
	return "", "", 0
}

// IPOrCIDRError is the IPorCIDR format check (pve-firewall
// src/PVE/Firewall.pm pve_verify_ip_or_cidr): the die message, with its
// newline, or "". PVE cleans the host bits (clean_cidr) and asks Net::IP,
// whose refusals for an address the regex passed are the two of its
// ip_check_prefix: a length beyond the address, and set bits after the
// prefix, which only a length of exactly "0" leaves (clean_cidr skips a
// false length).
func IPOrCIDRError(s string) string {
	addr, length, version := splitCIDR(s)
	if version == 0 {
		return "value does not look like a valid IP address or CIDR network\n"
	}
	if length == "" {
		return ""
	}
	size := 32
	if version == 6 {
		size = 128
	}
	if prefixLongerThan(length, size) {
		return "Prefix length " + length + " is longer than IP address (" + strconv.Itoa(size) + ")\n"
	}
	if length == "0" {
		bits := addressBits(addr)
		if strings.Contains(bits, "1") {
			return "Invalid prefix " + bits + "/0\n"
		}
	}
	return ""
}

// IPOrCIDROrAliasError is the IPorCIDRorAlias format check (pve-firewall
// src/PVE/Firewall.pm pve_verify_ip_or_cidr_or_alias): an alias reference
// passes without further checks.
func IPOrCIDROrAliasError(s string) string {
	if _, _, ok := AliasReference(s); ok {
		return ""
	}
	return IPOrCIDRError(s)
}

// prefixLongerThan compares a decimal length of any size with size.
func prefixLongerThan(length string, size int) bool {
	n, ok := new(big.Int).SetString(length, 10)
	return !ok || n.Cmp(big.NewInt(int64(size))) > 0
}

// addressBits is Net::IP's binary form of an address: one 0 or 1 per bit.
func addressBits(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, octet := range a.AsSlice() {
		b.WriteString(strconv.FormatUint(uint64(octet)|0x100, 2)[1:])
	}
	return b.String()
}

// CleanCIDR is pve-firewall src/PVE/Firewall.pm clean_cidr: the host bits
// of ADDRESS/LENGTH are cleared and the address written the way Net::IP
// writes it (IPv6 lowercase and compressed, see compressIPv6); the length
// stays as given. An address without a length, or with the length "0"
// (false in Perl), is returned as it is. s must have passed IPOrCIDRError.
func CleanCIDR(s string) string {
	addr, length, version := splitCIDR(s)
	if version == 0 || length == "" || length == "0" {
		return s
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return s
	}
	size := 32
	if version == 6 {
		size = 128
	}
	bits := size
	if n, err := strconv.Atoi(length); err == nil && n < size {
		bits = n
	}
	raw := a.AsSlice()
	for i := range raw {
		switch keep := bits - 8*i; {
		case keep <= 0:
			raw[i] = 0
		case keep < 8:
			raw[i] &= byte(0xff << (8 - keep))
		}
	}
	if version == 4 {
		return netip.AddrFrom4([4]byte(raw)).String() + "/" + length
	}
	return compressIPv6([16]byte(raw)) + "/" + length
}

// compressIPv6 writes an IPv6 address as Net::IP's ip_compress_address
// does: groups without leading zeros, and the run of two or more zero groups
// whose text (with the colons around it) is longest replaced by "::", the
// first of equal ones. Unlike RFC 5952, a run in the middle (two colons)
// beats an equally long one at either end, and an IPv4 tail is written in
// hex.
func compressIPv6(raw [16]byte) string {
	groups := make([]string, 8)
	for i := range groups {
		groups[i] = strconv.FormatUint(uint64(raw[2*i])<<8|uint64(raw[2*i+1]), 16)
	}
	bestStart, bestEnd, bestLen := -1, -1, 0
	for i := 0; i < 8; {
		if groups[i] != "0" {
			i++
			continue
		}
		j := i
		for j+1 < 8 && groups[j+1] == "0" {
			j++
		}
		if j > i {
			text := 2*(j-i+1) - 1
			if i > 0 {
				text++
			}
			if j < 7 {
				text++
			}
			if text > bestLen {
				bestStart, bestEnd, bestLen = i, j, text
			}
		}
		i = j + 1
	}
	if bestStart < 0 {
		return strings.Join(groups, ":")
	}
	return strings.Join(groups[:bestStart], ":") + "::" + strings.Join(groups[bestEnd+1:], ":")
}

// ParseIPOrCIDR is pve-firewall src/PVE/Firewall.pm parse_ip_or_cidr: the
// address as the firewall keeps it, a host length (/32, /128) dropped, and
// its IP version; ok is false when s is no address.
func ParseIPOrCIDR(s string) (cidr string, version int, ok bool) {
	_, _, version = splitCIDR(s)
	switch version {
	case 6:
		return strings.TrimSuffix(s, "/128"), 6, true
	case 4:
		return strings.TrimSuffix(s, "/32"), 4, true
	}
	return "", 0, false
}
