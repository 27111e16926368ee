package pvesim

import (
	"net/http"
)

// SDN zones: pve-network src/PVE/API2/Network/SDN/Zones.pm.

func (s *Sim) registerSDNZoneRoutes() {
	zonesAlloc := permission{path: "/sdn/zones", privs: []string{"SDN.Allocate"}}
	zoneAlloc := permission{path: "/sdn/zones/{zone}", privs: []string{"SDN.Allocate"}}
	s.handle(http.MethodGet, "/cluster/sdn/zones", route{handle: s.listSDNZones})
	s.handle(http.MethodPost, "/cluster/sdn/zones", route{perm: zonesAlloc, handle: s.createSDNZone})
	s.handle(http.MethodGet, "/cluster/sdn/zones/{zone}", route{perm: zoneAlloc, handle: s.readSDNZone})
	s.handle(http.MethodPut, "/cluster/sdn/zones/{zone}", route{perm: zoneAlloc, handle: s.updateSDNZone})
	s.handle(http.MethodDelete, "/cluster/sdn/zones/{zone}", route{perm: zoneAlloc, handle: s.deleteSDNZone})
}

// sdnViewOf is the view the parameters ask for: pending wins over running
// (pve-network src/PVE/API2/Network/SDN/Zones.pm index and read: "if
// pending ... elsif running").
func sdnViewOf(c *call) SDNView {
	switch {
	case c.boolParam("pending"):
		return SDNViewPending
	case c.boolParam("running"):
		return SDNViewRunning
	}
	return SDNViewConfig
}

// pve-network src/PVE/API2/Network/SDN/Zones.pm index: the zones the
// caller holds SDN.Audit or SDN.Allocate on, optionally of one type.
func (s *Sim) listSDNZones(c *call) (any, error) {
	view := sdnViewOf(c)
	out := []map[string]any{}
	for _, e := range c.cluster.SDN.View(SDNZones, view) {
		if !c.can("/sdn/zones/"+e.ID, true, "SDN.Audit", "SDN.Allocate") {
			continue
		}
		if t, ok := c.param("type"); ok && t != "" && t != e.Type() {
			continue
		}
		out = append(out, s.sdnAnswer(SDNZones, "zone", e, view))
	}
	return out, nil
}

// pve-network src/PVE/API2/Network/SDN/Zones.pm read; sdn_zones_config's
// "sdn '$id' does not exist".
func (s *Sim) readSDNZone(c *call) (any, error) {
	view := sdnViewOf(c)
	id := c.str("zone")
	e, ok := c.cluster.SDN.Entry(SDNZones, id, view)
	if !ok {
		return nil, errorf("sdn '%s' does not exist", id)
	}
	return s.sdnAnswer(SDNZones, "zone", e, view), nil
}

// pve-network src/PVE/API2/Network/SDN/Zones.pm create: the options are
// checked against the type before the lock (SectionConfig check_config),
// then under it the id must be free, the dns servers and the ipam exist,
// and the type's on_update_hook passes.
func (s *Sim) createSDNZone(c *call) (any, error) {
	typ, id := c.str("type"), c.str("zone")
	opts := s.sdnZoneTypeOptions(typ)
	if opts == nil {
		return nil, errorf("unknown section type '%s'", typ)
	}
	props, err := s.sdnCheckConfig(opts, SDNZones, sdnGivenOptions(c, "type", "zone"), true)
	if err != nil {
		return nil, err
	}
	return nil, sdnLocked(c, "create sdn zone object failed", func(sd *SDNState) error {
		if sd.Get(SDNZones, id) != nil {
			return errorf("sdn zone object ID '%s' already defined", id)
		}
		if err := sd.sdnZoneRefs(props); err != nil {
			return err
		}
		zones := sdnCopyIDs(sd.File(SDNZones).IDs)
		zones[id] = &SDNObject{Type: typ, Props: props}
		if err := s.sdnZoneUpdateHook(sd, id, zones); err != nil {
			return err
		}
		sd.Put(SDNZones, id, zones[id])
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN/Zones.pm update: under the lock,
// the digest, the zone's existence, its type's options, deletions
// (SectionConfig delete_from_config), the ipam change a subnet of the
// zone forbids, the references and the type's on_update_hook.
func (s *Sim) updateSDNZone(c *call) (any, error) {
	id := c.str("zone")
	return nil, sdnLocked(c, "update sdn zone object failed", func(sd *SDNState) error {
		if err := assertSectionDigest(sd.Digest(SDNZones), c.str("digest")); err != nil {
			return err
		}
		old := sd.Get(SDNZones, id)
		if old == nil {
			return errorf("sdn '%s' does not exist", id)
		}
		opts := s.sdnZoneTypeOptions(old.Type)
		set, err := s.sdnCheckConfig(opts, SDNZones, sdnGivenOptions(c, "zone", "digest", "delete"), false)
		if err != nil {
			return err
		}
		z := old.clone()
		if del, ok := c.param("delete"); ok && del != "" {
			if err := sdnDeleteFromConfig(z.Props, opts, set, splitList(del)); err != nil {
				return err
			}
		}
		for k, v := range set {
			z.Props[k] = v
		}
		if z.Props["ipam"] != old.Props["ipam"] {
			// "don't allow ipam change if subnet are defined for now"
			for _, sid := range sortedKeys(sd.File(SDNSubnets).IDs) {
				if sdnSubnetZone(sid) == id {
					return paramError(map[string]string{"ipam": "can't change ipam if a subnet is already defined in this zone"})
				}
			}
		}
		if err := sd.sdnZoneRefs(set); err != nil {
			return err
		}
		zones := sdnCopyIDs(sd.File(SDNZones).IDs)
		zones[id] = z
		if err := s.sdnZoneUpdateHook(sd, id, zones); err != nil {
			return err
		}
		sd.Put(SDNZones, id, zones[id])
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN/Zones.pm delete: a zone a vnet
// names stays (Zones/Plugin.pm on_delete_hook, a die without newline).
func (s *Sim) deleteSDNZone(c *call) (any, error) {
	id := c.str("zone")
	return nil, sdnLocked(c, "delete sdn zone object failed", func(sd *SDNState) error {
		if sd.Get(SDNZones, id) == nil {
			return errorf("sdn '%s' does not exist", id)
		}
		for _, vid := range sortedKeys(sd.File(SDNVnets).IDs) {
			if v := sd.Get(SDNVnets, vid); v.Type == "vnet" && v.Props["zone"] == id {
				return errorf("zone %s is used by vnet %s", id, vid)
			}
		}
		sd.Remove(SDNZones, id)
		return nil
	})
}
