package pvesim

import (
	"net/http"
	"strconv"
)

// SDN vnets: pve-network src/PVE/API2/Network/SDN/Vnets.pm and
// src/PVE/Network/SDN/VnetPlugin.pm.

// sdnVnetOptions is pve-network src/PVE/Network/SDN/VnetPlugin.pm options
// (the same in pve-network 0.11.2, PVE 8.4).
var sdnVnetOptions = map[string]sdnOption{
	"zone": {false}, "tag": {true}, "alias": {true}, "vlanaware": {true}, "isolate-ports": {true},
}

func (s *Sim) registerSDNVnetRoutes() {
	s.handle(http.MethodGet, "/cluster/sdn/vnets", route{handle: s.listSDNVnets})
	s.handle(http.MethodPost, "/cluster/sdn/vnets", route{
		perm: permission{path: "/sdn/zones/{zone}", privs: []string{"SDN.Allocate"}}, handle: s.createSDNVnet,
	})
	s.handle(http.MethodGet, "/cluster/sdn/vnets/{vnet}", route{handle: s.readSDNVnet})
	s.handle(http.MethodPut, "/cluster/sdn/vnets/{vnet}", route{handle: s.updateSDNVnet})
	s.handle(http.MethodDelete, "/cluster/sdn/vnets/{vnet}", route{handle: s.deleteSDNVnet})
}

// checkSDNVnetAccess is pve-network src/PVE/API2/Network/SDN/Vnets.pm
// $check_vnet_access: the vnet must be in vnets.cfg (sdn_vnets_config's
// "sdn vnet '$id' does not exist") and the caller hold one of privs on
// /sdn/zones/<zone>/<vnet> (check_any).
func checkSDNVnetAccess(c *call, vnet string, privs ...string) error {
	v := c.cluster.SDN.Get(SDNVnets, vnet)
	if v == nil {
		return errorf("sdn vnet '%s' does not exist", vnet)
	}
	return c.check("/sdn/zones/"+v.Props["zone"]+"/"+vnet, true, privs...)
}

// pve-network src/PVE/API2/Network/SDN/Vnets.pm index: the vnets whose
// zone (the pending one for a new vnet) the caller holds SDN.Audit or
// SDN.Allocate on.
func (s *Sim) listSDNVnets(c *call) (any, error) {
	view := sdnViewOf(c)
	out := []map[string]any{}
	for _, e := range c.cluster.SDN.View(SDNVnets, view) {
		zone, ok := e.Props["zone"]
		if !ok {
			zone = e.Pending["zone"]
		}
		if !c.can("/sdn/zones/"+zone+"/"+e.ID, true, "SDN.Audit", "SDN.Allocate") {
			continue
		}
		out = append(out, s.sdnAnswer(SDNVnets, "vnet", e, view))
	}
	return out, nil
}

// pve-network src/PVE/API2/Network/SDN/Vnets.pm read: the access check
// reads vnets.cfg, so a vnet whose deletion is pending cannot be read,
// even with pending=1 (the index shows it).
func (s *Sim) readSDNVnet(c *call) (any, error) {
	id := c.str("vnet")
	if err := checkSDNVnetAccess(c, id, "SDN.Audit", "SDN.Allocate"); err != nil {
		return nil, err
	}
	view := sdnViewOf(c)
	e, ok := c.cluster.SDN.Entry(SDNVnets, id, view)
	if !ok {
		return nil, errorf("sdn vnet '%s' does not exist", id)
	}
	return s.sdnAnswer(SDNVnets, "vnet", e, view), nil
}

// pve-network src/PVE/API2/Network/SDN/Vnets.pm create: under the lock,
// the options (SectionConfig check_config), the id, the zone type's
// vnet_update_hook and VnetPlugin on_update_hook.
func (s *Sim) createSDNVnet(c *call) (any, error) {
	id := c.str("vnet")
	return nil, sdnLocked(c, "create sdn vnet object failed", func(sd *SDNState) error {
		props, err := s.sdnCheckConfig(sdnVnetOptions, SDNVnets, sdnGivenOptions(c, "type", "vnet"), true)
		if err != nil {
			return err
		}
		if sd.Get(SDNVnets, id) != nil {
			return errorf("sdn vnet object ID '%s' already defined", id)
		}
		vnets := sdnCopyIDs(sd.File(SDNVnets).IDs)
		vnets[id] = &SDNObject{Type: "vnet", Props: props}
		if err := sdnVnetHooks(sd, id, vnets); err != nil {
			return err
		}
		sd.Put(SDNVnets, id, vnets[id])
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN/Vnets.pm update.
func (s *Sim) updateSDNVnet(c *call) (any, error) {
	id := c.str("vnet")
	if err := checkSDNVnetAccess(c, id, "SDN.Allocate"); err != nil {
		return nil, err
	}
	return nil, sdnLocked(c, "update sdn vnet object failed", func(sd *SDNState) error {
		if err := assertSectionDigest(sd.Digest(SDNVnets), c.str("digest")); err != nil {
			return err
		}
		set, err := s.sdnCheckConfig(sdnVnetOptions, SDNVnets, sdnGivenOptions(c, "vnet", "digest", "delete"), false)
		if err != nil {
			return err
		}
		old := sd.Get(SDNVnets, id)
		v := old.clone()
		if del, ok := c.param("delete"); ok && del != "" {
			if err := sdnDeleteFromConfig(v.Props, sdnVnetOptions, set, splitList(del)); err != nil {
				return err
			}
		}
		for k, val := range set {
			v.Props[k] = val
		}
		if v.Props["zone"] == "" {
			return paramError(map[string]string{"zone": "cannot delete zone"})
		}
		if len(sd.vnetSubnets(id)) > 0 && old.Props["zone"] != v.Props["zone"] {
			return paramError(map[string]string{"zone": "can't change zone if subnets exist"})
		}
		vnets := sdnCopyIDs(sd.File(SDNVnets).IDs)
		vnets[id] = v
		if err := sdnVnetHooks(sd, id, vnets); err != nil {
			return err
		}
		sd.Put(SDNVnets, id, vnets[id])
		return nil
	})
}

// pve-network src/PVE/API2/Network/SDN/Vnets.pm delete; VnetPlugin.pm
// on_delete_hook refuses a vnet with subnets.
func (s *Sim) deleteSDNVnet(c *call) (any, error) {
	id := c.str("vnet")
	if err := checkSDNVnetAccess(c, id, "SDN.Allocate"); err != nil {
		return nil, err
	}
	return nil, sdnLocked(c, "delete sdn vnet object failed", func(sd *SDNState) error {
		if sd.Get(SDNVnets, id) == nil {
			return errorf("sdn vnet '%s' does not exist", id)
		}
		if len(sd.vnetSubnets(id)) > 0 {
			return paramError(map[string]string{"vnet": "Can't delete vnet if subnets exists"})
		}
		sd.Remove(SDNVnets, id)
		return nil
	})
}

// vnetSubnets is pve-network src/PVE/Network/SDN/Vnets.pm get_subnets on
// subnets.cfg: the subnets of the vnet, by id.
func (sd *SDNState) vnetSubnets(vnet string) []string {
	var out []string
	for _, sid := range sortedKeys(sd.File(SDNSubnets).IDs) {
		if v := sd.Get(SDNSubnets, sid).Props["vnet"]; v != "" && v == vnet {
			out = append(out, sid)
		}
	}
	return out
}

// sdnVnetHooks runs the zone type's vnet_update_hook and VnetPlugin.pm
// on_update_hook on the vnet as it will be written (vnets holds them
// all). A vnet whose zone does not exist fails the plugin lookup
// (pve-common src/PVE/SectionConfig.pm lookup croaks on an undefined type;
// Perl's " at FILE line N." is left out).
func sdnVnetHooks(sd *SDNState, id string, vnets map[string]*SDNObject) error {
	v := vnets[id]
	zone := sd.Get(SDNZones, v.Props["zone"])
	if zone == nil {
		return errorf("cannot lookup undefined type!")
	}
	if err := sdnVnetUpdateHook(sd, zone.Type, id, vnets); err != nil {
		return err
	}
	// VnetPlugin.pm on_update_hook
	if pvegrammarTrue(v.Props["vlanaware"]) && len(sd.vnetSubnets(id)) > 0 {
		return paramError(map[string]string{"vlanaware": "vlanaware vnet is not compatible with subnets"})
	}
	return nil
}

// sdnVnetUpdateHook is the zone plugins' vnet_update_hook: pve-network
// src/PVE/Network/SDN/Zones/SimplePlugin.pm, VlanPlugin.pm, QinQPlugin.pm,
// VxlanPlugin.pm, EvpnPlugin.pm (faucet: Plugin.pm's, which checks
// nothing). The simple zone also makes up a mac for the vnet, which
// vnets.cfg has no option for, so it is never written.
func sdnVnetUpdateHook(sd *SDNState, zoneType, id string, vnets map[string]*SDNObject) error {
	v := vnets[id]
	tagStr, hasTag := v.Props["tag"]
	tag, _ := strconv.Atoi(tagStr)
	tagErr := func(msg string) error { return paramError(map[string]string{"tag": msg}) }
	switch zoneType {
	case "simple":
		if hasTag {
			return tagErr("vlan tag is not allowed on simple zone")
		}
	case "vlan":
		if !hasTag {
			return tagErr("missing vlan tag")
		}
		if tag > 4096 {
			return tagErr("vlan tag max value is 4096")
		}
		for _, other := range sortedKeys(vnets) {
			o := vnets[other]
			if other == id || o.Props["zone"] != v.Props["zone"] {
				continue
			}
			if ot := o.Props["tag"]; perlTruthy(ot) && ot == tagStr {
				return tagErr("tag " + tagStr + " already exist in vnet " + other)
			}
		}
	case "qinq":
		if tag > 4096 {
			return tagErr("VLAN tag maximal value is 4096")
		}
		for _, other := range sortedKeys(vnets) {
			o := vnets[other]
			if other == id || o.Props["zone"] != v.Props["zone"] {
				continue
			}
			ot := o.Props["tag"]
			if tag != 0 && perlTruthy(ot) && ot == tagStr {
				return tagErr("tag " + tagStr + " already exist in zone " + v.Props["zone"] + " vnet " + other)
			}
			if tag == 0 && !perlTruthy(ot) {
				return tagErr("tag-less vnet already exists in zone " + v.Props["zone"] + " vnet " + other)
			}
		}
	case "vxlan", "evpn":
		if !hasTag {
			return tagErr("missing vxlan tag")
		}
		if tag > 16777216 {
			return tagErr("vxlan tag max value is 16777216")
		}
		if zoneType == "evpn" && pvegrammarTrue(v.Props["vlanaware"]) {
			return paramError(map[string]string{"vlan-aware": "vlan-aware option can't be enabled with evpn"})
		}
		for _, other := range sortedKeys(vnets) {
			o := vnets[other]
			if other == id {
				continue
			}
			oz := sd.Get(SDNZones, o.Props["zone"])
			if oz == nil || oz.Type != "vxlan" && oz.Type != "evpn" {
				continue
			}
			if ot := o.Props["tag"]; perlTruthy(ot) && ot == tagStr {
				// PVE's text ends with a space.
				return tagErr("vxlan tag " + tagStr + " already exist in vnet " + other + " in zone " + o.Props["zone"] + " ")
			}
		}
	}
	return nil
}
