package schema

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// The formats pve-firewall registers (src/PVE/Firewall.pm). Texts that PVE
// dies with without a final newline get Perl's " at FILE line N." appended;
// like the rest of the simulator, these leave that suffix out.
func init() {
	handVerifiers["pve-fw-addr-spec"] = func(v string) string {
		// pve_fw_verify_addr_spec
		_, msg := pvegrammar.FirewallAddressList(v)
		return failUnless(msg == "", msg)
	}
	handVerifiers["pve-fw-dport-spec"] = func(v string) string {
		// pve_fw_verify_dport_spec: ICMP type names pass as ports here
		msg := pvegrammar.FirewallPortList(v, true)
		return failUnless(msg == "", msg)
	}
	handVerifiers["pve-fw-sport-spec"] = func(v string) string {
		// pve_fw_verify_sport_spec
		msg := pvegrammar.FirewallPortList(v, false)
		return failUnless(msg == "", msg)
	}
	handVerifiers["pve-fw-protocol-spec"] = func(v string) string {
		// pve_fw_verify_protocol_spec
		return failUnless(pvegrammar.FirewallProtocolKnown(v), "unknown protocol '"+v+"'")
	}
	handVerifiers["pve-fw-icmp-type-spec"] = func(v string) string {
		// pve_fw_verify_icmp_type_spec
		ok := v == "" || pvegrammar.ICMPTypes[v] || pvegrammar.ICMPv6Types[v]
		return failUnless(ok, "invalid icmp-type value '"+v+"'")
	}
	handVerifiers["pve-fw-conntrack-helper"] = verifyConntrackHelpers
	handVerifiers["IPorCIDR"] = verifyIPOrCIDR
	handVerifiers["IPorCIDRorAlias"] = func(v string) string {
		// pve_verify_ip_or_cidr_or_alias
		if firewallAliasName.MatchString(v) {
			return ""
		}
		return verifyIPOrCIDR(v)
	}
}

var firewallAliasName = regexp.MustCompile(`^(dc/|guest/)?(?:` + pvegrammar.FirewallNamePattern + `)$`)

// verifyConntrackHelpers is pve_fw_verify_conntrack_helper: a comma
// separated list of the helpers pve-firewall knows.
func verifyConntrackHelpers(list string) string {
	helpers := perlSplit(list, ",")
	if list != strings.Join(helpers, ",") {
		return "extraneous commas in list\n"
	}
	for _, h := range helpers {
		if !pvegrammar.FirewallConntrackHelpers[h] {
			return "unknown helper " + h + "\n"
		}
	}
	return ""
}

// ipOrCIDRSyntax is pve_verify_ip_or_cidr's first test: an address of
// pve-common's $IPV4RE or $IPV6RE (the "ip" format's regex), with an
// optional "/digits".
var ipOrCIDRSyntax = sync.OnceValue(func() *regexp.Regexp {
	ip := namedRegexp("ip").String()
	ip = strings.TrimSuffix(strings.TrimPrefix(ip, "^"), "$")
	return regexp.MustCompile(`^(?:` + ip + `)(?:/\d+)?$`)
})

// verifyIPOrCIDR is pve-firewall src/PVE/Firewall.pm
// pve_verify_ip_or_cidr: the address with its host bits cleared
// (clean_cidr) must be one Net::IP takes; a prefix longer than the address
// fails with Net::IP's error.
func verifyIPOrCIDR(v string) string {
	if !ipOrCIDRSyntax().MatchString(v) {
		return "value does not look like a valid IP address or CIDR network\n"
	}
	cleaned := cleanCIDR(v)
	if _, msg := pvegrammar.NetIPVersion(cleaned); msg != "" {
		return msg + "\n"
	}
	return ""
}

// cleanCIDR is pve-firewall src/PVE/Firewall.pm clean_cidr: the host bits
// of ADDRESS/LEN cleared; a missing or zero LEN leaves the value as it is,
// and so does a LEN longer than the address (Net::IP then refuses it).
func cleanCIDR(cidr string) string {
	ip, lenText, ok := strings.Cut(cidr, "/")
	if !ok || !pvegrammar.PerlTruthy(lenText) {
		return cidr
	}
	plen, err := strconv.Atoi(lenText)
	addr, perr := netip.ParseAddr(ip)
	if err != nil || perr != nil || plen > addr.BitLen() {
		return cidr
	}
	p, err := addr.Prefix(plen)
	if err != nil {
		return cidr
	}
	return p.Addr().String() + "/" + lenText
}
