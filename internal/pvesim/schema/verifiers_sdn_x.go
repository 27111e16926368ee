package schema

import "regexp"

// The SDN formats of controllers, IPAMs, DNS plugins and fabrics, checked by
// code in pve-network.
func init() {
	// pve-network src/PVE/Network/SDN/Controllers/IsisPlugin.pm
	// pve_verify_sdn_isis_net (8.4 and 9.x).
	handVerifiers["pve-sdn-isis-net"] = func(v string) string {
		return failUnless(isisNetRE.MatchString(v), "value does not look like a valid isis net")
	}
	// pve-network src/PVE/Network/SDN/Fabrics.pm, the 'pve-sdn-fabric-id'
	// format (9.x; case-insensitive).
	handVerifiers["pve-sdn-fabric-id"] = func(v string) string {
		if fabricIDRE.MatchString(v) {
			return ""
		}
		return "Fabric ID '" + v + "' contains illegal characters\n"
	}
	// PVE 8.4 names the ids of controllers, IPAMs and DNS plugins by
	// format; 9.x by pattern. pve-network (stable-bookworm)
	// src/PVE/Network/SDN/Controllers/Plugin.pm parse_sdn_controller_id,
	// Ipams/Plugin.pm parse_sdn_ipam_id, Dns/Plugin.pm parse_sdn_dns_id.
	handVerifiers["pve-sdn-controller-id"] = func(v string) string {
		if !controllerIDRE.MatchString(v) {
			return "controller ID '" + v + "' contains illegal characters\n"
		}
		if len(v) > 64 {
			return "controller ID '" + v + "' can't be more length than 64 characters\n"
		}
		return ""
	}
	handVerifiers["pve-sdn-ipam-id"] = func(v string) string {
		return failUnless(pluginIDRE.MatchString(v), "ipam ID '"+v+"' contains illegal characters")
	}
	handVerifiers["pve-sdn-dns-id"] = func(v string) string {
		return failUnless(pluginIDRE.MatchString(v), "dns ID '"+v+"' contains illegal characters")
	}
}

var (
	isisNetRE      = regexp.MustCompile(`^[a-fA-F0-9]{2}(\.[a-fA-F0-9]{4}){3,9}\.[a-fA-F0-9]{2}$`)
	fabricIDRE     = regexp.MustCompile(`(?i)^[a-zA-Z0-9][a-zA-Z0-9-]{0,6}[a-zA-Z0-9]?$`)
	controllerIDRE = regexp.MustCompile(`(?i)^[a-z][a-z0-9_-]*[a-z0-9]$`)
	pluginIDRE     = regexp.MustCompile(`(?i)^[a-z][a-z0-9]*[a-z0-9]$`)
)
