package pvegrammar

import (
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
	firewallAliasRef   = regexp.MustCompile(`^(dc/|guest/)?` + FirewallNamePattern + `$`)
	firewallPortRange  = regexp.MustCompile(`^([0-9]+):([0-9]+)$`)
	firewallPortNumber = regexp.MustCompile(`^([0-9]+)$`)
)

// perlSplitComma is Perl's split(/,/, $s): trailing empty fields dropped.
func perlSplitComma(s string) []string {
	parts := strings.Split(s, ",")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

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
	elements := perlSplitComma(str)
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
	elements := perlSplitComma(str)
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
