package pvesim

import (
	"net/http"
	"net/netip"
)

// GET /nodes/{node}/network: pve-manager PVE/API2/Network.pm index, over
// the node's /etc/network/interfaces as pve-common
// src/PVE/Network/Interfaces.pm __read_etc_network_interfaces parses it.
//
// Each node has the network PVE's installer writes: the physical NIC eno1
// without addresses, enslaved to the bridge vmbr0 that holds the node's
// address (a /24) and the gateway (.1 of that network):
//
//	auto lo
//	iface lo inet loopback
//
//	iface eno1 inet manual
//
//	auto vmbr0
//	iface vmbr0 inet static
//		address 192.0.2.10/24
//		gateway 192.0.2.1
//		bridge-ports eno1
//		bridge-stp off
//		bridge-fd 0

func (s *Sim) registerNodeNetworkRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/network", route{handle: nodeNetwork})
}

// nodeInterfaces is the parsed file of one node, lo left out as the index
// does ("do not list the loopback device").
func nodeInterfaces(n *Node) map[string]map[string]any {
	eth := map[string]any{
		"type": "eth", "method": "manual", "method6": "manual", "families": []string{"inet"},
		"priority": 3, "exists": 1, "active": 1,
	}
	bridge := map[string]any{
		"type": "bridge", "method": "static", "method6": "manual", "families": []string{"inet"},
		"priority": 4, "autostart": 1, "active": 1,
		"bridge_ports": "eno1", "bridge_stp": "off", "bridge_fd": "0",
	}
	if addr, err := netip.ParseAddr(n.IP); err == nil && addr.Is4() {
		prefix := netip.PrefixFrom(addr, 24).Masked()
		gw := prefix.Addr().Next()
		bridge["address"] = addr.String()
		bridge["netmask"] = "24"
		bridge["cidr"] = addr.String() + "/24"
		bridge["gateway"] = gw.String()
	}
	return map[string]map[string]any{"eno1": eth, "vmbr0": bridge}
}

// nodeNetwork is the index: the type filter (a type, any_bridge and
// any_local_bridge for bridges and OVS bridges; include_sdn filters
// nothing; any_bridge, include_sdn and vnet add the node's SDN vnets,
// sdnLocalVnets; fabric interfaces are not simulated),
// then the bridges the caller may not use are dropped: root@pam sees all,
// others need SDN.Audit or SDN.Use on /sdn/zones/localnetwork/BRIDGE
// (check_sdn_bridge). PVE lists a Perl hash (no order); the simulator
// sorts by name.
func nodeNetwork(c *call) (any, error) {
	n := c.cluster.Node(c.str("node"))
	if n == nil {
		return []any{}, nil
	}
	ifaces := nodeInterfaces(n)
	if filter := c.str("type"); filter != "" && filter != "include_sdn" {
		for name, d := range ifaces {
			typ := d["type"].(string)
			isBridge := typ == "bridge" || typ == "OVSBridge"
			bridgeMatch := isBridge && (filter == "any_bridge" || filter == "any_local_bridge")
			if filter != typ && !bridgeMatch {
				delete(ifaces, name)
			}
		}
	}
	switch c.str("type") {
	case "any_bridge", "include_sdn", "vnet":
		for name, v := range sdnLocalVnets(c, n.Name) {
			ifaces[name] = v
		}
	}
	out := []map[string]any{}
	for _, name := range sortedKeys(ifaces) {
		d := ifaces[name]
		typ := d["type"].(string)
		if (typ == "bridge" || typ == "OVSBridge") && c.user.String() != "root@pam" &&
			!c.can("/sdn/zones/localnetwork/"+name, true, "SDN.Audit", "SDN.Use") {
			continue
		}
		d["iface"] = name
		out = append(out, d)
	}
	return out, nil
}
