package schema

import (
	"strings"

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
	// Firewall aliases and IPSet entries: pve_verify_ip_or_cidr,
	// pve_verify_ip_or_cidr_or_alias
	handVerifiers["IPorCIDR"] = pvegrammar.IPOrCIDRError
	handVerifiers["IPorCIDRorAlias"] = pvegrammar.IPOrCIDROrAliasError
}

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
