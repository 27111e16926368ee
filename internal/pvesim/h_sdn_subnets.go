package pvesim

import (
	"net/http"
)

// SDN subnets: pve-network src/PVE/API2/Network/SDN/Subnets.pm.

func (s *Sim) registerSDNSubnetRoutes() {
	s.handle(http.MethodGet, "/cluster/sdn/vnets/{vnet}/subnets", route{handle: s.listSDNSubnets})
	s.handle(http.MethodPost, "/cluster/sdn/vnets/{vnet}/subnets", route{handle: s.createSDNSubnet})
	s.handle(http.MethodGet, "/cluster/sdn/vnets/{vnet}/subnets/{subnet}", route{handle: s.readSDNSubnet})
	s.handle(http.MethodPut, "/cluster/sdn/vnets/{vnet}/subnets/{subnet}", route{handle: s.updateSDNSubnet})
	s.handle(http.MethodDelete, "/cluster/sdn/vnets/{vnet}/subnets/{subnet}", route{handle: s.deleteSDNSubnet})
}

// sdnSubnetAnswer is Subnets.pm $api_sdn_subnets_config: the object with
// what sdn_subnets_config adds from the id (id, cidr, zone, network, mask)
// and dhcp-range as parsed ranges, an empty list without any
// (get_dhcp_ranges). A pending dhcp-range is the file's value: on 9.x the
// list of property strings as written (pending_config copies the raw
// value), on 8.4 (pve-network 0.11.2 pending_config copies the encoded
// one) the strings sorted and joined by commas.
func (s *Sim) sdnSubnetAnswer(e SDNEntry, view SDNView) map[string]any {
	out := s.sdnAnswer(SDNSubnets, "subnet", e, view)
	zone, network, mask := sdnSubnetParts(e.ID)
	out["id"], out["zone"], out["network"], out["mask"] = e.ID, zone, network, mask
	out["cidr"] = network + "/" + mask
	out["dhcp-range"] = s.sdnDHCPRanges(e.Props["dhcp-range"])
	if p, ok := out["pending"].(map[string]any); ok {
		if v, ok := e.Pending["dhcp-range"]; ok && v != "deleted" {
			items := sdnListItems(v)
			if s.pve.release == "8.4" {
				p["dhcp-range"] = sdnEncode("dhcp-range", v)
			} else {
				if items == nil {
					items = []string{}
				}
				p["dhcp-range"] = items
			}
		}
	}
	return out
}

// pve-network src/PVE/API2/Network/SDN/Subnets.pm index: the vnet's
// subnets, after the vnet access check (SDN.Audit or SDN.Allocate).
func (s *Sim) listSDNSubnets(c *call) (any, error) {
	vnet := c.str("vnet")
	if err := checkSDNVnetAccess(c, vnet, "SDN.Audit", "SDN.Allocate"); err != nil {
		return nil, err
	}
	view := sdnViewOf(c)
	out := []map[string]any{}
	for _, e := range c.cluster.SDN.View(SDNSubnets, view) {
		if e.Props["vnet"] == "" || e.Props["vnet"] != vnet {
			continue
		}
		out = append(out, s.sdnSubnetAnswer(e, view))
	}
	return out, nil
}

// pve-network src/PVE/API2/Network/SDN/Subnets.pm read: the subnet is
// named by its id; one of another vnet is "wrong vnet".
func (s *Sim) readSDNSubnet(c *call) (any, error) {
	vnet, id := c.str("vnet"), c.str("subnet")
	if err := checkSDNVnetAccess(c, vnet, "SDN.Audit", "SDN.Allocate"); err != nil {
		return nil, err
	}
	view := sdnViewOf(c)
	e, ok := c.cluster.SDN.Entry(SDNSubnets, id, view)
	if !ok {
		return nil, errorf("sdn subnet '%s' does not exist", id)
	}
	if e.Props["vnet"] != vnet {
		return nil, paramError(map[string]string{"vnet": "wrong vnet"})
	}
	return s.sdnSubnetAnswer(e, view), nil
}

// pve-network src/PVE/API2/Network/SDN/Subnets.pm create: the id is the
// vnet's zone and the cidr; under the lock the options, the id and
// SubnetPlugin on_update_hook.
func (s *Sim) createSDNSubnet(c *call) (any, error) {
	vnet := c.str("vnet")
	if err := checkSDNVnetAccess(c, vnet, "SDN.Allocate"); err != nil {
		return nil, err
	}
	return nil, sdnLocked(c, "create sdn subnet object failed", func(sd *SDNState) error {
		zone := sd.Get(SDNVnets, vnet).Props["zone"]
		id := sdnSubnetID(zone, c.str("subnet"))
		props, err := s.sdnCheckConfig(sdnSubnetOptions, SDNSubnets, sdnGivenOptions(c, "type", "subnet"), true)
		if err != nil {
			return err
		}
		if sd.Get(SDNSubnets, id) != nil {
			return errorf("sdn subnet object ID '%s' already defined", id)
		}
		sub := &SDNObject{Type: "subnet", Props: props}
		if err := s.sdnSubnetUpdateHook(sd, id, sub, nil); err != nil {
			return err
		}
		sd.Put(SDNSubnets, id, sub)
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN/Subnets.pm update. The path's vnet
// is one of the options check_config takes, so it is written too.
func (s *Sim) updateSDNSubnet(c *call) (any, error) {
	vnet, id := c.str("vnet"), c.str("subnet")
	if err := checkSDNVnetAccess(c, vnet, "SDN.Allocate"); err != nil {
		return nil, err
	}
	return nil, sdnLocked(c, "update sdn subnet object failed", func(sd *SDNState) error {
		old := sd.Get(SDNSubnets, id)
		if old == nil {
			return errorf("sdn subnet '%s' does not exist", id)
		}
		if err := assertSectionDigest(sd.Digest(SDNSubnets), c.str("digest")); err != nil {
			return err
		}
		set, err := s.sdnCheckConfig(sdnSubnetOptions, SDNSubnets, sdnGivenOptions(c, "subnet", "digest", "delete"), false)
		if err != nil {
			return err
		}
		sub := old.clone()
		if del, ok := c.param("delete"); ok && del != "" {
			if err := sdnDeleteFromConfig(sub.Props, sdnSubnetOptions, set, splitList(del)); err != nil {
				return err
			}
		}
		for k, v := range set {
			sub.Props[k] = v
		}
		if err := s.sdnSubnetUpdateHook(sd, id, sub, old); err != nil {
			return err
		}
		sd.Put(SDNSubnets, id, sub)
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN/Subnets.pm delete: the zone's IPAM
// lets the subnet go first (Subnets.pm del_subnet); deleting a subnet
// that does not exist in a zone without IPAM succeeds.
func (s *Sim) deleteSDNSubnet(c *call) (any, error) {
	vnet, id := c.str("vnet"), c.str("subnet")
	if err := checkSDNVnetAccess(c, vnet, "SDN.Allocate"); err != nil {
		return nil, err
	}
	return nil, sdnLocked(c, "delete sdn subnet object failed", func(sd *SDNState) error {
		zid := sd.Get(SDNVnets, vnet).Props["zone"]
		if z := sd.Get(SDNZones, zid); z != nil && z.Props["ipam"] == "pve" {
			sub := sd.Get(SDNSubnets, id)
			zone, cidr := "", ""
			if sub != nil {
				zone, cidr = sdnSubnetZone(id), sdnSubnetCIDR(id)
			}
			if err := sd.pveIpam().delSubnet(zone, cidr); err != nil {
				return err
			}
		}
		sd.Remove(SDNSubnets, id)
		return nil
	})
}
