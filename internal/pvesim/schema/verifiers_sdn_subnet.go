package schema

import "strings"

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
}
