package schema

import (
	"regexp"
	"strings"
)

// pve-network src/PVE/Network/SDN/SubnetPlugin.pm parse_sdn_subnet_id: a
// subnet is named by its cidr or by its id "<zone>-<network>-<mask>"; either
// must give an IPv4 or IPv6 cidr (pve-common src/PVE/JSONSchema.pm
// pve_verify_cidrv4, pve_verify_cidrv6: a prefix length above 7).
func init() {
	handVerifiers["pve-sdn-subnet-id"] = func(v string) string {
		cidr := v
		if !strings.Contains(v, "/") {
			parts := strings.Split(v, "-")
			for len(parts) < 3 {
				parts = append(parts, "")
			}
			cidr = parts[1] + "/" + parts[2]
		}
		return failUnless(isAnyCIDR(cidr), "value does not look like a valid CIDR network")
	}
	// PVE 8.4 (pve-network 0.11.2) names zones and vnets by format; 9.x
	// by pattern and length in the schema. src/PVE/Network/SDN/Zones/Plugin.pm
	// parse_sdn_zone_id, src/PVE/Network/SDN/VnetPlugin.pm parse_sdn_vnet_id.
	handVerifiers["pve-sdn-zone-id"] = func(v string) string { return verifySDNShortID(v, "zone") }
	handVerifiers["pve-sdn-vnet-id"] = func(v string) string { return verifySDNShortID(v, "vnet") }
}

var sdnShortIDRE = regexp.MustCompile(`(?i)^[a-z][a-z0-9]*[a-z0-9]$`)

func verifySDNShortID(v, what string) string {
	if !sdnShortIDRE.MatchString(v) {
		return what + " ID '" + v + "' contains illegal characters\n"
	}
	if len(v) > 8 {
		return what + " ID '" + v + "' can't be more length than 8 characters\n"
	}
	return ""
}
