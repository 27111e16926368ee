package wire

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The grammar of PVE's firewall values: names of aliases, IP sets and
// security groups, address specs, port specs, protocols and ICMP types, as
// pve-firewall src/PVE/Firewall.pm checks them. Only what can be checked
// without the cluster's state is checked here: whether an alias, IP set,
// security group, macro, protocol or service name exists is PVE's to say.

// FirewallNameKind is a kind of firewall object that has a name.
type FirewallNameKind int

const (
	// FirewallAliasName names an IP alias (the pve-fw-alias option).
	FirewallAliasName FirewallNameKind = iota
	// FirewallIPSetName names an IP set (the ipset-name option).
	FirewallIPSetName
	// FirewallGroupName names a security group (the pve-security-group-name
	// option).
	FirewallGroupName
)

// Maximum name lengths: $max_alias_name_length, $max_ipset_name_length and
// $max_group_name_length in pve-firewall src/PVE/Firewall.pm. All three
// share one pattern and a minimum length of 2.
const (
	maxFirewallAliasNameLength = 64
	maxFirewallIPSetNameLength = 64
	maxFirewallGroupNameLength = 18
)

// firewallNamePattern is $security_group_name_pattern, $ipset_name_pattern
// and $ip_alias_pattern in pve-firewall src/PVE/Firewall.pm (one pattern
// under three names): a letter, then at least one letter, digit, '-' or '_'.
const firewallNameRE = `[A-Za-z][A-Za-z0-9_-]+`

var (
	firewallNamePattern = lazyPattern(`^` + firewallNameRE + `$`)
	// firewallAliasRefPattern is an alias reference in an address spec or
	// an IP set entry, optionally scoped to the cluster (dc/) or the guest
	// (guest/): parse_address_list and pve_verify_ip_or_cidr_or_alias.
	firewallAliasRefPattern = lazyPattern(`^(?:dc/|guest/)?` + firewallNameRE + `$`)
	// firewallIPSetRefPattern is an IP set reference: verify_rule's
	// check_ipset_or_alias_property accepts a dc/, guest/ or sdn/ scope.
	firewallIPSetRefPattern = lazyPattern(`^\+(?:guest/|dc/|sdn/)?` + firewallNameRE + `$`)
)

func (k FirewallNameKind) describe() (what string, maxLength int) {
	switch k {
	case FirewallIPSetName:
		return "IP set name", maxFirewallIPSetNameLength
	case FirewallGroupName:
		return "security group name", maxFirewallGroupNameLength
	}
	return "alias name", maxFirewallAliasNameLength
}

// ValidateFirewallName checks the name of an alias, an IP set or a security
// group against PVE's pattern and length limits (W52) (the options ipset-name,
// pve-fw-alias and pve-security-group-name in pve-firewall
// src/PVE/Firewall.pm). PVE keys all three case-insensitively (it lowercases
// them when it reads its files).
func ValidateFirewallName(kind FirewallNameKind, name string) error {
	what, maxLength := kind.describe()
	if length := utf8.RuneCountInString(name); length > maxLength {
		return fmt.Errorf("%s %q is %d characters long, at most %d are allowed", what, name, length, maxLength)
	}
	if !firewallNamePattern().MatchString(name) {
		return fmt.Errorf("%s %q must be at least 2 characters: a letter, then letters, digits, '-' or '_'", what, name)
	}
	return nil
}

// ValidateFirewallAddress checks a rule's source or dest (W53) the way PVE's
// parse_address_list does (pve-firewall src/PVE/Firewall.pm, the format
// pve-fw-addr-spec) and returns its IP version, or 0 when only the cluster's
// state knows it (an IP set or alias reference).
//
// A spec is an IP set reference ("+name", "+dc/name", "+guest/name",
// "+sdn/name"), an alias ("name", "dc/name", "guest/name"), or a comma
// separated list of addresses ("10.0.0.1"), networks ("10.0.0.0/24", host
// bits clear) and ranges ("10.0.0.1-10.0.0.9"), all of one IP version, where
// a range must stand alone. PVE reads addresses with Net::IP, which also
// takes abbreviated IPv4 ("10.1", "10/8"), octets with leading zeros and
// "address+count" forms; those are refused here, where the intent is
// unclear, as are IPv6 zones. This is a deliberate narrowing, not PVE's
// behaviour: PVE stores such forms as written.
func ValidateFirewallAddress(spec string) (ipVersion int, err error) {
	if spec == "" {
		return 0, errors.New("the address is empty")
	}
	if strings.HasPrefix(spec, "+") {
		// parse_address_list counts the '+' and any scope in the length.
		if len(spec) > maxFirewallIPSetNameLength+1 {
			return 0, fmt.Errorf("IP set reference %q is too long: at most %d characters after the '+', any scope included", spec, maxFirewallIPSetNameLength)
		}
		if !firewallIPSetRefPattern().MatchString(spec) {
			return 0, fmt.Errorf("invalid IP set reference %q: write +NAME, +dc/NAME, +guest/NAME or +sdn/NAME, "+
				"NAME being a letter, then letters, digits, '-' or '_'", spec)
		}
		return 0, nil
	}
	if firewallAliasRefPattern().MatchString(spec) {
		if len(spec) > maxFirewallAliasNameLength {
			return 0, fmt.Errorf("alias reference %q is too long: at most %d characters including any dc/ or guest/ scope", spec, maxFirewallAliasNameLength)
		}
		return 0, nil
	}
	elements := strings.Split(spec, ",")
	hasRange := false
	for _, element := range elements {
		if element == "" {
			return 0, fmt.Errorf("extraneous commas in address list %q", spec)
		}
		version, isRange, err := parseFirewallAddressElement(element)
		if err != nil {
			return 0, err
		}
		hasRange = hasRange || isRange
		if ipVersion != 0 && version != ipVersion {
			return 0, fmt.Errorf("address list %q mixes IPv4 and IPv6 addresses", spec)
		}
		ipVersion = version
	}
	if hasRange && len(elements) > 1 {
		return 0, fmt.Errorf("address list %q holds a range: a range must be the only entry", spec)
	}
	return ipVersion, nil
}

// parseFirewallAddressElement checks one entry of an address list: an
// address, a network or a range, as Net::IP->new takes them.
func parseFirewallAddressElement(element string) (version int, isRange bool, err error) {
	if first, last, found := strings.Cut(element, "-"); found {
		begin, err := parseFirewallAddr(first, element)
		if err != nil {
			return 0, true, err
		}
		end, err := parseFirewallAddr(last, element)
		if err != nil {
			return 0, true, err
		}
		if addrVersion(begin) != addrVersion(end) {
			return 0, true, fmt.Errorf("range %q mixes IPv4 and IPv6", element)
		}
		if end.Less(begin) {
			return 0, true, fmt.Errorf("range %q is backwards: the first address must not be greater than the last, did you mean '%s-%s'?", element, last, first)
		}
		return addrVersion(begin), true, nil
	}
	if address, bits, found := strings.Cut(element, "/"); found {
		addr, err := parseFirewallAddr(address, element)
		if err != nil {
			return 0, false, err
		}
		if _, err := checkFirewallPrefix(addr, bits, element); err != nil {
			return 0, false, err
		}
		return addrVersion(addr), false, nil
	}
	addr, err := parseFirewallAddr(element, element)
	if err != nil {
		return 0, false, err
	}
	return addrVersion(addr), false, nil
}

func parseFirewallAddr(s, context string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(s)
	if err != nil || addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("invalid IP address %q in %q", s, context)
	}
	return addr, nil
}

// addrVersion is Net::IP's version of an address: any address written with
// ':' is IPv6, IPv4-mapped ones included.
func addrVersion(addr netip.Addr) int {
	if addr.Is4() {
		return 4
	}
	return 6
}

// checkFirewallPrefix checks a network's prefix length: digits, no longer
// than the address, and no host bits set (Net::IP refuses 10.0.0.5/24 as an
// invalid prefix). It returns the length.
func checkFirewallPrefix(addr netip.Addr, bits, context string) (int, error) {
	n, err := strconv.Atoi(bits)
	if err != nil || bits == "" || bits[0] < '0' || bits[0] > '9' {
		return 0, fmt.Errorf("invalid prefix length %q in %q", bits, context)
	}
	if n > addr.BitLen() {
		return 0, fmt.Errorf("prefix length %d in %q is longer than the address (%d bits)", n, context, addr.BitLen())
	}
	if network := netip.PrefixFrom(addr, n).Masked(); network.Addr() != addr {
		return 0, fmt.Errorf("%q has host bits set: the network is %s/%d", context, network.Addr(), n)
	}
	return n, nil
}

// maxFirewallPortNumbers is how many numbers a port list may hold, a range
// counting two: parse_port_name_number_or_range in pve-firewall
// src/PVE/Firewall.pm.
const maxFirewallPortNumbers = 15

// servicePattern is what a service name from /etc/services can look like.
// PVE looks the name up there (get_etc_services); that file is the node's,
// so only the shape is checked here and PVE refuses a name it lacks.
// inferred: the shape is ours (letters, digits, '.', '_', '+', '-', with at
// least one letter, as the names in Debian's /etc/services are); PVE itself
// has no pattern, only the lookup.
var servicePattern = lazyPattern(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// ValidateFirewallPorts checks a dport or sport spec (W54) the way PVE's
// parse_port_name_number_or_range does (pve-firewall src/PVE/Firewall.pm,
// the formats pve-fw-dport-spec and pve-fw-sport-spec): a comma separated
// list of port numbers (0 to 65535), ranges "first:last" and service names,
// holding at most 15 numbers (a range counts two). icmp is true for a dport
// whose protocol is icmp, icmpv6 or ipv6-icmp: then ICMP type names are
// taken too (PVE kept ICMP types in dport before icmp-type existed), but not
// mixed with numbers.
func ValidateFirewallPorts(spec string, icmp bool) error {
	if spec == "" {
		return errors.New("the port list is empty")
	}
	numbers, icmpTypes := 0, 0
	for _, item := range strings.Split(spec, ",") {
		if item == "" {
			return fmt.Errorf("extraneous commas in port list %q", spec)
		}
		if first, last, isRange := strings.Cut(item, ":"); isRange && isDigits(first) && isDigits(last) {
			numbers += 2
			low, err := checkPortNumber(first)
			if err != nil {
				return err
			}
			high, err := checkPortNumber(last)
			if err != nil {
				return err
			}
			if low > high {
				return fmt.Errorf("backwards range '%s' not allowed, did you mean '%s:%s'?", item, last, first)
			}
			continue
		}
		if isDigits(item) {
			numbers++
			if _, err := checkPortNumber(item); err != nil {
				return err
			}
			continue
		}
		isICMPName := icmpTypeNames[item] || icmpv6TypeNames[item]
		switch {
		case icmp && isICMPName:
			icmpTypes++
		case isICMPName:
			return fmt.Errorf("%q is an ICMP type, not a port: ICMP types need the protocol icmp or icmpv6 and belong in icmp-type", item)
		case !servicePattern().MatchString(item) || !strings.ContainsFunc(item, isASCIILetter):
			return fmt.Errorf("invalid port %q: write a number from 0 to 65535, a range like 8000:8080 or a service name from /etc/services", item)
		}
	}
	if icmpTypes > 0 && numbers > 0 {
		return fmt.Errorf("port list %q mixes ICMP types with port numbers", spec)
	}
	if numbers > maxFirewallPortNumbers {
		return fmt.Errorf("too many entries in port list %q: at most %d numbers, a range counting two", spec, maxFirewallPortNumbers)
	}
	return nil
}

func checkPortNumber(digits string) (int, error) {
	n, err := strconv.Atoi(digits)
	if err != nil || n > 65535 {
		return 0, fmt.Errorf("invalid port '%s': ports are 0 to 65535", digits)
	}
	return n, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// protocolsWithPorts are the protocols a rule may give ports for, by name
// and by number: $PROTOCOLS_WITH_PORTS in pve-firewall src/PVE/Firewall.pm.
// PVE looks them up as written, so "TCP" has no ports (and is no protocol
// either: /etc/protocols lists it in lowercase).
var protocolsWithPorts = map[string]bool{
	"tcp": true, "6": true,
	"udp": true, "17": true,
	"udplite": true, "136": true,
	"dccp": true, "33": true,
	"sctp": true, "132": true,
}

// FirewallProtocolHasPorts reports whether a rule with protocol proto may
// give dport and sport.
func FirewallProtocolHasPorts(proto string) bool {
	return protocolsWithPorts[proto]
}

// isICMPProtocol is PVE's $proto_is_icmp: only these spellings count, not
// the protocol numbers.
func isICMPProtocol(proto string) bool {
	return proto == "icmp" || proto == "icmpv6" || proto == "ipv6-icmp"
}

// icmpTypeNames are the ICMP type names PVE takes for IPv4, as iptables
// names them ($icmp_type_names in pve-firewall src/PVE/Firewall.pm, which
// lists the output of iptables -p icmp -h). Names are case-sensitive.
var icmpTypeNames = setOf(
	"any", "echo-reply", "destination-unreachable", "network-unreachable",
	"host-unreachable", "protocol-unreachable", "port-unreachable",
	"fragmentation-needed", "source-route-failed", "network-unknown",
	"host-unknown", "network-prohibited", "host-prohibited",
	"TOS-network-unreachable", "TOS-host-unreachable",
	"communication-prohibited", "host-precedence-violation",
	"precedence-cutoff", "source-quench", "redirect", "network-redirect",
	"host-redirect", "TOS-network-redirect", "TOS-host-redirect",
	"echo-request", "router-advertisement", "router-solicitation",
	"time-exceeded", "ttl-zero-during-transit", "ttl-zero-during-reassembly",
	"parameter-problem", "ip-header-bad", "required-option-missing",
	"timestamp-request", "timestamp-reply", "address-mask-request",
	"address-mask-reply",
)

// icmpv6TypeNames are the ICMPv6 type names PVE takes, as ip6tables names
// them ($icmpv6_type_names in pve-firewall src/PVE/Firewall.pm), both
// spellings of neighbo(u)r included.
var icmpv6TypeNames = setOf(
	"destination-unreachable", "no-route", "communication-prohibited",
	"beyond-scope", "address-unreachable", "port-unreachable",
	"failed-policy", "reject-route", "packet-too-big", "time-exceeded",
	"ttl-zero-during-transit", "ttl-zero-during-reassembly",
	"parameter-problem", "bad-header", "unknown-header-type",
	"unknown-option", "echo-request", "echo-reply", "router-solicitation",
	"router-advertisement", "neighbor-solicitation", "neighbour-solicitation",
	"neighbor-advertisement", "neighbour-advertisement", "redirect",
)

func setOf(items ...string) map[string]bool {
	set := make(map[string]bool, len(items))
	for _, item := range items {
		set[item] = true
	}
	return set
}

// FirewallICMPType reports whether name is an ICMP type of protocol proto:
// one of the icmp names for "icmp", one of the ICMPv6 names for "icmpv6" and
// "ipv6-icmp", and nothing for any other protocol (verify_rule in
// pve-firewall src/PVE/Firewall.pm). Numeric types are not taken in
// icmp-type (the format pve-fw-icmp-type-spec).
func FirewallICMPType(proto, name string) bool {
	switch proto {
	case "icmp":
		return icmpTypeNames[name]
	case "icmpv6", "ipv6-icmp":
		return icmpv6TypeNames[name]
	}
	return false
}
