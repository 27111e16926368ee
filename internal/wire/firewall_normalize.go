package wire

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
)

// What PVE stores for a firewall value differs from what it was sent; these
// functions give the stored form, so a configuration compares equal to what
// PVE reads back.

// perlASCIISpace is what Perl's \s matches in the bytes of a firewall file
// line: the comment is cut out of the line before it is decoded as UTF-8.
const perlASCIISpace = " \t\n\v\f\r"

// FirewallComment returns the comment PVE reads back for a rule written
// with comment s, "" when it keeps none (W56):
//
//   - "" and "-" delete the comment (copy_rule_data in pve-firewall
//     src/PVE/Firewall.pm treats both as "unset");
//   - the rule file's writer ($format_rules) leaves out a comment that is
//     Perl-false ("0") or only white space;
//   - the parser (parse_fw_rule) takes everything after the first '#' with
//     surrounding white space trimmed.
//
// A comment with a line break is refused by FirewallRuleProblems; PVE would
// write it across lines of its file.
//
// inferred: which white space counts follows Perl's matching rules rather
// than a PVE test: the writer's blank test sees the decoded comment (any
// Unicode white space, as unicode.IsSpace), the parser trims the bytes of
// the file line (ASCII white space only).
func FirewallComment(s string) string {
	if s == "" || s == "-" || s == "0" || strings.TrimFunc(s, unicode.IsSpace) == "" {
		return ""
	}
	return strings.Trim(s, perlASCIISpace)
}

// NormalizeAliasCIDR (W57) checks an alias's address (PVE's IPorCIDR format,
// pve_verify_ip_or_cidr in pve-firewall src/PVE/Firewall.pm) and returns the
// form the alias reads back with, and its IP version. PVE keeps the text as
// given except that parse_ip_or_cidr, applied when the file is read, drops
// a /32 from an IPv4 address and a /128 from an IPv6 one: no case change, no
// IPv6 compression, and host bits may be set ("10.0.0.5/24" stays).
func NormalizeAliasCIDR(s string) (string, int, error) {
	addr, bits, version, err := checkIPOrCIDR(s)
	if err != nil {
		return "", 0, err
	}
	if bits != "" {
		// pve_verify_ip_or_cidr checks the network with host bits cleared.
		if _, err := checkCleanedPrefix(addr, bits, s); err != nil {
			return "", 0, err
		}
	}
	return stripFullPrefix(s, version), version, nil
}

// NormalizeIPSetCIDR (W57) checks an IP set entry (PVE's IPorCIDRorAlias format)
// and returns the form PVE stores, as IPSet.pm's create_ip computes it
// (pve-firewall src/PVE/API2/Firewall/IPSet.pm): an alias reference (name,
// dc/name or guest/name) is kept as given; an address or network goes
// through clean_cidr, which clears host bits and rewrites the address in
// Net::IP's form when a prefix length is given, then parse_ip_or_cidr,
// which drops /32 (IPv4) and /128 (IPv6). A zero prefix length is refused
// ("a zero prefix is not allowed in ipset entries").
//
// Net::IP's form of an IPv6 address is lowercase, without leading zeros in
// a group, and with the longest run of two or more zero groups written
// "::" (see netIPCompress); an address without a prefix length is not
// rewritten at all, so "2001:DB8::1" stays in capitals.
func NormalizeIPSetCIDR(s string) (string, error) {
	if firewallAliasRefPattern().MatchString(s) {
		return s, nil
	}
	addr, bits, version, err := checkIPOrCIDR(s)
	if err != nil {
		return "", err
	}
	cleaned := s
	if bits != "" {
		n, err := checkCleanedPrefix(addr, bits, s)
		if err != nil {
			return "", err
		}
		// clean_cidr skips a prefix length Perl reads as false ("0").
		if bits != "0" {
			network := netip.PrefixFrom(addr, n).Masked().Addr()
			cleaned = netIPString(network) + "/" + bits
		}
		if strings.Trim(bits, "0") == "" {
			return "", errors.New("a zero prefix is not allowed in ipset entries")
		}
	}
	return stripFullPrefix(cleaned, version), nil
}

// checkIPOrCIDR matches PVE's address grammar with an optional prefix
// length (pve_verify_ip_or_cidr: $IPV6RE or $IPV4RE, then /digits) and
// parses the address.
func checkIPOrCIDR(s string) (addr netip.Addr, bits string, version int, err error) {
	address, bits, hasBits := strings.Cut(s, "/")
	switch {
	case ipv6Pattern().MatchString(address):
		version = 6
	case ipv4Pattern().MatchString(address):
		version = 4
	default:
		return netip.Addr{}, "", 0, fmt.Errorf("%q does not look like a valid IP address or CIDR network", s)
	}
	if hasBits && !isDigits(bits) {
		return netip.Addr{}, "", 0, fmt.Errorf("%q does not look like a valid IP address or CIDR network", s)
	}
	addr, err = netip.ParseAddr(address)
	if err != nil {
		return netip.Addr{}, "", 0, fmt.Errorf("%q does not look like a valid IP address or CIDR network", s)
	}
	return addr, bits, version, nil
}

// checkCleanedPrefix checks a prefix length the way PVE does after
// clean_cidr: it must fit the address; host bits are cleared first, except
// for a length of "0", which clean_cidr leaves alone and Net::IP then only
// takes for the all-zero address.
func checkCleanedPrefix(addr netip.Addr, bits, context string) (int, error) {
	n, err := strconv.Atoi(bits)
	if err != nil || n > addr.BitLen() {
		return 0, fmt.Errorf("prefix length %s in %q is longer than the address (%d bits)", bits, context, addr.BitLen())
	}
	if bits == "0" && !addr.IsUnspecified() {
		return 0, fmt.Errorf("%q has host bits set: the network is %s/0", context, netIPString(netip.PrefixFrom(addr, 0).Masked().Addr()))
	}
	return n, nil
}

// stripFullPrefix is parse_ip_or_cidr's rewrite: a literal /32 on IPv4 and
// /128 on IPv6 go.
func stripFullPrefix(s string, version int) string {
	if version == 4 {
		return strings.TrimSuffix(s, "/32")
	}
	return strings.TrimSuffix(s, "/128")
}

// netIPString writes an address as clean_cidr does, through Net::IP's
// ip_bintoip and ip_compress_address: IPv4 dotted, IPv6 in lowercase hex
// (an IPv4-mapped address too: "::ffff:a00:1", never "::ffff:10.0.0.1").
func netIPString(addr netip.Addr) string {
	if addr.Is4() {
		return addr.String()
	}
	return netIPCompress(addr.As16())
}

// netIPCompress is Net::IP's ip_compress_address (the CPAN module Net-IP,
// IP.pm, which clean_cidr calls; the rule is read from its code, not from a
// PVE capture) on a full IPv6 address:
// groups without leading zeros, and the longest run of at least two zero
// groups replaced by "::". Net::IP measures a run by the text it matches,
// colons on both sides included, so a run inside the address beats one of
// the same number of groups at either end; among equal ones the first wins.
// (RFC 5952 would pick the first of equal runs wherever they stand; Go's
// netip does, so its String is not used.)
func netIPCompress(b [16]byte) string {
	var groups [8]string
	for i := range groups {
		groups[i] = strconv.FormatUint(uint64(b[2*i])<<8|uint64(b[2*i+1]), 16)
	}
	bestStart, bestEnd, bestScore := -1, -1, 0
	for start := 0; start < len(groups); {
		if groups[start] != "0" {
			start++
			continue
		}
		end := start
		for end < len(groups) && groups[end] == "0" {
			end++
		}
		if end-start >= 2 {
			score := 2*(end-start) - 1 // "0:0:...:0"
			if start > 0 {
				score++ // the colon before
			}
			if end < len(groups) {
				score++ // the colon after
			}
			if score > bestScore {
				bestStart, bestEnd, bestScore = start, end, score
			}
		}
		start = end
	}
	if bestStart < 0 {
		return strings.Join(groups[:], ":")
	}
	return strings.Join(groups[:bestStart], ":") + "::" + strings.Join(groups[bestEnd:], ":")
}
