package pvesim

import (
	"net/http"
)

// Per-node SDN status: pve-network src/PVE/API2/Network/SDN/Nodes/Status.pm,
// Zones.pm, Zone.pm and Vnet.pm (PVE 8.4: pve-network 0.11.2
// src/PVE/API2/Network/SDN/Zones/Status.pm, zones only).

func (s *Sim) registerSDNNodeRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/sdn", route{handle: s.nodeSDNIndex})
	s.handle(http.MethodGet, "/nodes/{node}/sdn/zones", route{handle: s.nodeSDNZones})
	zoneAudit := permission{path: "/sdn/zones/{zone}", privs: []string{"SDN.Audit"}}
	s.handle(http.MethodGet, "/nodes/{node}/sdn/zones/{zone}", route{perm: zoneAudit, handle: s.nodeSDNZoneIndex})
	s.handle(http.MethodGet, "/nodes/{node}/sdn/zones/{zone}/content", route{perm: zoneAudit, handle: s.nodeSDNZoneContent})
	if s.pve.release != "8.4" {
		s.handle(http.MethodGet, "/nodes/{node}/sdn/vnets/{vnet}", route{handle: s.nodeSDNVnetIndex})
	}
}

// pve-network src/PVE/API2/Network/SDN/Nodes/Status.pm index. inferred:
// PVE 8.4's index (pve-manager's Nodes.pm mounts the zones status there)
// lists zones only.
func (s *Sim) nodeSDNIndex(*call) (any, error) {
	names := []string{"fabrics", "vnets", "zones"}
	if s.pve.release == "8.4" {
		names = []string{"zones"}
	}
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, map[string]any{"name": n})
	}
	return out, nil
}

// sdnNodeStatus is pve-network src/PVE/Network/SDN/Zones.pm status on a
// node: nothing before the first apply; the running config's zones that
// include the node, and their vnets, "available" once the node's network
// runs the running config's version, "pending" before (with the message
// for a node never or not yet reloaded); a vnet of a zone the running
// config lacks is "error". The interface checks (ifquery) always pass.
func sdnNodeStatus(sd *SDNState, node string) (zones, vnets map[string]map[string]string) {
	zones, vnets = map[string]map[string]string{}, map[string]map[string]string{}
	version := sd.Running.Version
	if version == 0 {
		return zones, vnets
	}
	errConfig := ""
	switch local := sd.NodeVersion[node]; {
	case local == 0:
		errConfig = "local sdn network configuration is not yet generated, please reload"
	case local < version:
		errConfig = "local sdn network configuration is too old, please reload"
	}
	rz := sd.Running.Kinds[SDNZones]
	for _, id := range sortedKeys(rz) {
		if nodes := sdnZoneNodes(rz[id]); nodes != nil && !nodes[node] {
			continue
		}
		st := "available"
		if errConfig != "" {
			st = "pending"
		}
		zones[id] = map[string]string{"status": st, "zone-type": rz[id].Type}
	}
	rv := sd.Running.Kinds[SDNVnets]
	for _, id := range sortedKeys(rv) {
		zone, ok := rv[id].Props["zone"]
		if !ok {
			continue
		}
		z := rz[zone]
		if z == nil {
			vnets[id] = map[string]string{"status": "error", "statusmsg": "unknown zone '" + zone + "' configured"}
			continue
		}
		if nodes := sdnZoneNodes(z); nodes != nil && !nodes[node] {
			continue
		}
		vnets[id] = map[string]string{"zone": zone, "status": "available"}
		if errConfig != "" {
			vnets[id]["status"], vnets[id]["statusmsg"] = "pending", errConfig
		}
	}
	return zones, vnets
}

// pve-network src/PVE/API2/Network/SDN/Nodes/Zones.pm index.
func (s *Sim) nodeSDNZones(c *call) (any, error) {
	zones, _ := sdnNodeStatus(c.cluster.SDN, c.str("node"))
	out := []map[string]any{}
	for _, id := range sortedKeys(zones) {
		out = append(out, map[string]any{"zone": id, "status": zones[id]["status"]})
	}
	return out, nil
}

// pve-network src/PVE/API2/Network/SDN/Nodes/Zone.pm diridx (8.4:
// content only).
func (s *Sim) nodeSDNZoneIndex(*call) (any, error) {
	if s.pve.release == "8.4" {
		return []map[string]any{{"subdir": "content"}}, nil
	}
	return []map[string]any{{"subdir": "content"}, {"subdir": "bridges"}, {"subdir": "ip-vrf"}}, nil
}

// pve-network src/PVE/API2/Network/SDN/Nodes/Zone.pm index ("content"):
// the zone's vnets on the node with their status; a status message only
// when there is one. PVE lists a Perl hash; sorted here.
func (s *Sim) nodeSDNZoneContent(c *call) (any, error) {
	_, vnets := sdnNodeStatus(c.cluster.SDN, c.str("node"))
	out := []map[string]any{}
	for _, id := range sortedKeys(vnets) {
		v := vnets[id]
		if v["zone"] != c.str("zone") {
			continue
		}
		item := map[string]any{"vnet": id, "status": v["status"]}
		if msg, ok := v["statusmsg"]; ok {
			item["statusmsg"] = msg
		} else {
			item["statusmsg"] = nil
		}
		out = append(out, item)
	}
	return out, nil
}

// pve-network src/PVE/API2/Network/SDN/Nodes/Vnet.pm diridx: the vnet
// access check on vnets.cfg (SDN.Audit).
func (s *Sim) nodeSDNVnetIndex(c *call) (any, error) {
	if err := checkSDNVnetAccess(c, c.str("vnet"), "SDN.Audit"); err != nil {
		return nil, err
	}
	return []map[string]any{{"subdir": "mac-vrf"}}, nil
}
