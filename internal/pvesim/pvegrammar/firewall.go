package pvegrammar

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// The grammar of firewall rule fields, from pve-firewall
// src/PVE/Firewall.pm. Each check returns the text PVE dies with (without
// the trailing newline) or "". Like the schema's patterns, '$' is Go's end
// of text: Perl's also lets a final newline through, which these refuse.

// Name patterns and length limits of pve-firewall src/PVE/Firewall.pm
// ($security_group_name_pattern, $ipset_name_pattern, $ip_alias_pattern,
// $max_alias_name_length, $max_ipset_name_length).
const (
	FirewallNamePattern  = `[A-Za-z][A-Za-z0-9\-\_]+`
	firewallMaxAliasName = 64
	firewallMaxIPSetName = 64
)

var (
	firewallIPSetRef   = regexp.MustCompile(`^(\+)(\S+)$`)
	firewallAliasRef   = regexp.MustCompile(`^(dc/|guest/)?(` + FirewallNamePattern + `)$`)
	firewallPortRange  = regexp.MustCompile(`^([0-9]+):([0-9]+)$`)
	firewallPortNumber = regexp.MustCompile(`^([0-9]+)$`)
)

// FirewallAddressList is pve-firewall src/PVE/Firewall.pm
// parse_address_list: an ipset reference "+name", an alias name
// ("dc/"/"guest/" scoped or not), or a comma separated list of addresses,
// networks or one range of a single IP version. It returns that version (0
// for a reference) or PVE's error text.
func FirewallAddressList(str string) (int, string) {
	if firewallIPSetRef.MatchString(str) {
		if len(str) > firewallMaxIPSetName+1 {
			return 0, "ipset name too long"
		}
		return 0, ""
	}
	if firewallAliasRef.MatchString(str) {
		if len(str) > firewallMaxAliasName {
			return 0, "alias name too long"
		}
		return 0, ""
	}
	elements := perlSplitFixed(str, ",")
	if str != strings.Join(elements, ",") {
		return 0, "extraneous commas in list"
	}
	version, count, isRange := 0, 0, false
	for _, elem := range elements {
		count++
		v, msg := NetIPVersion(elem)
		if msg != "" {
			return 0, "invalid IP address: " + msg
		}
		if strings.Contains(elem, "-") {
			isRange = true
		}
		if version != 0 && v != version {
			return 0, "detected mixed ipv4/ipv6 addresses in address list '" + str + "'"
		}
		version = v
	}
	if isRange && count > 1 {
		return 0, "you can't use a range in a list"
	}
	return version, ""
}

// FirewallPortList is pve-firewall src/PVE/Firewall.pm
// parse_port_name_number_or_range: ports, "A:B" ranges and /etc/services
// names, comma separated, at most 15 numbers (a range counts two). With
// icmpTypes (a dport of an ICMP rule) ICMP type names are taken too, but
// not mixed with numbers.
func FirewallPortList(str string, icmpTypes bool) string {
	count, icmpPort := 0, false
	elements := perlSplitFixed(str, ",")
	if str != strings.Join(elements, ",") {
		return "extraneous commas in list"
	}
	for _, item := range elements {
		if m := firewallPortRange.FindStringSubmatch(item); m != nil {
			count += 2
			if perlNumber(m[1]) > 65535 {
				return "invalid port '" + m[1] + "'"
			}
			if perlNumber(m[2]) > 65535 {
				return "invalid port '" + m[2] + "'"
			}
			if perlNumber(m[1]) > perlNumber(m[2]) {
				return "backwards range '" + m[1] + ":" + m[2] + "' not allowed, did you mean '" + m[2] + ":" + m[1] + "'?"
			}
			continue
		}
		if m := firewallPortNumber.FindStringSubmatch(item); m != nil {
			count++
			if perlNumber(m[1]) > 65535 {
				return "invalid port '" + m[1] + "'"
			}
			continue
		}
		switch {
		case icmpTypes && (ICMPTypes[item] || ICMPv6Types[item]):
			icmpPort = true
		case !netbaseServices[item]:
			return "invalid port '" + item + "'"
		}
	}
	if icmpPort && count > 0 {
		return "ICMP ports not allowed in port range"
	}
	if count > 15 {
		return "too many entries in port list (> 15 numbers)"
	}
	return ""
}

// perlNumber is a digit string's numeric value as Perl compares it.
func perlNumber(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// FirewallProtocolKnown is pve-firewall src/PVE/Firewall.pm
// pve_fw_verify_protocol_spec: a Perl-false value, a name or number of
// /etc/protocols (get_etc_protocols), or "icmpv6".
func FirewallProtocolKnown(proto string) bool {
	return !PerlTruthy(proto) || netbaseProtocolNames[proto] || netbaseProtocolNumbers[proto] || proto == "icmpv6"
}

// PerlTruthy is Perl's truth of a string: neither "" nor "0".
func PerlTruthy(s string) bool { return s != "" && s != "0" }

// FirewallServiceKnown tells whether /etc/services names a tcp, udp or
// sctp port so (pve-firewall src/PVE/Firewall.pm get_etc_services).
func FirewallServiceKnown(name string) bool { return netbaseServices[name] }

// ICMPTypes are the ICMP type names iptables knows (pve-firewall
// src/PVE/Firewall.pm $icmp_type_names).
var ICMPTypes = setOf("any", "echo-reply", "destination-unreachable", "network-unreachable",
	"host-unreachable", "protocol-unreachable", "port-unreachable", "fragmentation-needed",
	"source-route-failed", "network-unknown", "host-unknown", "network-prohibited",
	"host-prohibited", "TOS-network-unreachable", "TOS-host-unreachable", "communication-prohibited",
	"host-precedence-violation", "precedence-cutoff", "source-quench", "redirect", "network-redirect",
	"host-redirect", "TOS-network-redirect", "TOS-host-redirect", "echo-request", "router-advertisement",
	"router-solicitation", "time-exceeded", "ttl-zero-during-transit", "ttl-zero-during-reassembly",
	"parameter-problem", "ip-header-bad", "required-option-missing", "timestamp-request",
	"timestamp-reply", "address-mask-request", "address-mask-reply")

// ICMPv6Types are the ICMPv6 type names ip6tables knows (pve-firewall
// src/PVE/Firewall.pm $icmpv6_type_names).
var ICMPv6Types = setOf("destination-unreachable", "no-route", "communication-prohibited",
	"beyond-scope", "address-unreachable", "port-unreachable", "failed-policy", "reject-route",
	"packet-too-big", "time-exceeded", "ttl-zero-during-transit", "ttl-zero-during-reassembly",
	"parameter-problem", "bad-header", "unknown-header-type", "unknown-option", "echo-request",
	"echo-reply", "router-solicitation", "router-advertisement", "neighbor-solicitation",
	"neighbour-solicitation", "neighbor-advertisement", "neighbour-advertisement", "redirect")

// FirewallConntrackHelpers are the helpers pve-firewall can load
// (src/PVE/Firewall.pm $pve_fw_helpers).
var FirewallConntrackHelpers = setOf("amanda", "ftp", "irc", "netbios-ns", "pptp", "sane", "sip", "snmp", "tftp")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// The firewall's single addresses: an alias holds an IP or a CIDR network,
// an IPSet entry one of those or a reference to an alias (pve-firewall
// src/PVE/Firewall.pm pve_verify_ip_or_cidr, pve_verify_ip_or_cidr_or_alias,
// clean_cidr, parse_ip_or_cidr). PVE first matches pve-common's $IPV4RE and
// $IPV6RE (src/PVE/ParseUtils.pm), then asks Net::IP (netip.go). The IPv6
// form is RFC 3986's IPv6address, an IPv4 octet has no leading zero. The
// prefix length is \d+, which Perl would let match any Unicode digit on a
// character string; here it is ASCII digits only, as is Perl's '$' without
// the trailing newline it would allow: both only refuse more.

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
)

// IsIPv4 matches one address as $IPV4RE does.
func IsIPv4(s string) bool { m := ipv4CIDRShape.FindStringSubmatch(s); return m != nil && m[2] == "" }

// IsIPv6 matches one IPv6 address as $IPV6RE does.
func IsIPv6(s string) bool { m := ipv6CIDRShape.FindStringSubmatch(s); return m != nil && m[2] == "" }

// AliasReference splits a value that names an alias into its scope ("",
// "dc/" or "guest/") and the name; ok is false for anything else
// (pve-firewall src/PVE/Firewall.pm $ip_alias_pattern as
// parse_address_list, pve_verify_ip_or_cidr_or_alias, verify_rule and
// src/PVE/API2/Firewall/IPSet.pm register_create_ip match it).
func AliasReference(s string) (scope, name string, ok bool) {
	m := firewallAliasRef.FindStringSubmatch(s)
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
// newline, or "". An address of the regex's shape has its host bits cleared
// (clean_cidr) and must then be one Net::IP->new takes.
func IPOrCIDRError(s string) string {
	if _, _, version := splitCIDR(s); version == 0 {
		return "value does not look like a valid IP address or CIDR network\n"
	}
	if _, msg := NetIPVersion(CleanCIDR(s)); msg != "" {
		return msg + "\n"
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

// CleanCIDR is pve-firewall src/PVE/Firewall.pm clean_cidr: the host bits
// of ADDRESS/LENGTH are cleared (Net::IP's ip_get_mask) and the address
// written the way Net::IP's ip_compress_address writes it (IPv6 lowercase
// and compressed); the length stays as given. An address without a length,
// or with the length "0" (false in Perl), is returned as it is. A length
// beyond the address leaves every bit: Perl's string '&' stops at the
// shorter operand. s must have the shape IPOrCIDRError checks first.
func CleanCIDR(s string) string {
	addr, length, version := splitCIDR(s)
	if version == 0 || !PerlTruthy(length) {
		return s
	}
	v, msg := netIPExpand(addr, version)
	if msg != "" {
		return s
	}
	size := netIPBits(version)
	if n, err := strconv.Atoi(length); err == nil && n < size {
		mask := new(big.Int).Lsh(big.NewInt(1), uint(size-n))
		mask.Sub(mask, big.NewInt(1))
		v.AndNot(v, mask)
	}
	return compressNetIP(v, version) + "/" + length
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
