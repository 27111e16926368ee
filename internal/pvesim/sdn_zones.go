package pvesim

import (
	"fmt"
	"strings"
)

// sdnOption is one option of a section type: whether it may be left out.
type sdnOption struct{ optional bool }

// sdnZoneOptions are the zone types' options, each plugin's options():
// pve-network src/PVE/Network/SDN/Zones/SimplePlugin.pm, VlanPlugin.pm,
// QinQPlugin.pm, VxlanPlugin.pm, EvpnPlugin.pm, FaucetPlugin.pm options.
// PVE 8.4 (pve-network 0.11.2) differs in vxlan only: peers is required
// and there is no fabric (sdnZoneTypeOptions).
var sdnZoneOptions = map[string]map[string]sdnOption{
	"simple": {
		"nodes": {true}, "mtu": {true}, "dns": {true}, "reversedns": {true}, "dnszone": {true},
		"ipam": {true}, "dhcp": {true},
	},
	"vlan": {
		"nodes": {true}, "bridge": {false}, "bridge-disable-mac-learning": {true}, "mtu": {true},
		"dns": {true}, "reversedns": {true}, "dnszone": {true}, "ipam": {true},
	},
	"qinq": {
		"nodes": {true}, "tag": {false}, "bridge": {false}, "bridge-disable-mac-learning": {true},
		"mtu": {true}, "vlan-protocol": {true}, "dns": {true}, "reversedns": {true}, "dnszone": {true},
		"ipam": {true},
	},
	"vxlan": {
		"nodes": {true}, "peers": {true}, "vxlan-port": {true}, "mtu": {true}, "dns": {true},
		"reversedns": {true}, "dnszone": {true}, "ipam": {true}, "fabric": {true},
	},
	"evpn": {
		"nodes": {true}, "vrf-vxlan": {false}, "controller": {false}, "exitnodes": {true},
		"exitnodes-local-routing": {true}, "exitnodes-primary": {true}, "advertise-subnets": {true},
		"disable-arp-nd-suppression": {true}, "bridge-disable-mac-learning": {true}, "rt-import": {true},
		"vxlan-port": {true}, "mtu": {true}, "mac": {true}, "dns": {true}, "reversedns": {true},
		"dnszone": {true}, "ipam": {true},
	},
	"faucet": {
		"nodes": {true}, "dp-id": {false}, "controller": {false}, "dns": {true}, "reversedns": {true},
		"dnszone": {true}, "ipam": {true},
	},
}

// sdnZoneTypeOptions is a zone type's options on the served release:
// pve-network 0.11.2 (PVE 8.4) src/PVE/Network/SDN/Zones/VxlanPlugin.pm
// options has "peers => { optional => 0 }" and no fabric (fabrics came with
// pve-network 1.1).
func (s *Sim) sdnZoneTypeOptions(typ string) map[string]sdnOption {
	opts := sdnZoneOptions[typ]
	if opts == nil || typ != "vxlan" || s.pve.release != "8.4" {
		return opts
	}
	out := map[string]sdnOption{}
	for k, v := range opts {
		if k != "fabric" {
			out[k] = v
		}
	}
	out["peers"] = sdnOption{optional: false}
	return out
}

// sdnListKeys are the options pve-network prints as sorted, comma-joined
// lists (pve-network src/PVE/Network/SDN.pm encode_value; "interfaces" is
// 9.x only and belongs to fabrics).
var sdnListKeys = map[string]bool{"nodes": true, "exitnodes": true, "dhcp-range": true, "interfaces": true}

// sdnNodeList is pve-network src/PVE/Network/SDN/Zones/Plugin.pm
// decode_value for nodes and exitnodes: split_list, each valid node name
// kept once (pve_verify_node_name), then encode_value's sorted join.
func sdnNodeList(value string) string {
	seen := map[string]bool{}
	for _, n := range splitList(value) {
		if nodeNameRE(n) {
			seen[n] = true
		}
	}
	names := sortedKeys(seen)
	return strings.Join(names, ",")
}

// sdnCheckConfig is pve-common src/PVE/SectionConfig.pm check_config with
// skipSchemaCheck (the API schema has checked the values): every given
// option must be one of the type's ("unexpected property"), booleans and
// integers become numbers (check_value), lists are decoded (decode_value),
// and a create needs every required option.
func (s *Sim) sdnCheckConfig(opts map[string]sdnOption, kind string, given map[string]string, create bool) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range sortedKeys(given) {
		if _, ok := opts[k]; !ok {
			return nil, errorf("unexpected property '%s'", k)
		}
		v := given[k]
		if strings.ContainsAny(v, "\n\r") {
			return nil, errorf("property contains a line feed")
		}
		switch n := s.sdnValue(kind, k, v).(type) {
		case int:
			v = fmt.Sprint(n)
		}
		if k == "nodes" || k == "exitnodes" {
			v = sdnNodeList(v)
		}
		out[k] = v
	}
	if create {
		for _, k := range sortedKeys(opts) {
			if _, ok := given[k]; !opts[k].optional && !ok {
				return nil, errorf("missing value for required option '%s'", k)
			}
		}
	}
	return out, nil
}

// sdnDeleteFromConfig is pve-common src/PVE/SectionConfig.pm
// delete_from_config.
func sdnDeleteFromConfig(props map[string]string, opts map[string]sdnOption, set map[string]string, del []string) error {
	for _, k := range del {
		o, ok := opts[k]
		if !ok {
			return errorf("no such option '%s'", k)
		}
		if !o.optional {
			return errorf("unable to delete required option '%s'", k)
		}
		if _, both := set[k]; both {
			return errorf("cannot set and delete property '%s' at the same time!", k)
		}
		delete(props, k)
	}
	return nil
}

// sdnZoneParams are the zone options a request gives: its parameters less
// the handler's own (pve-network src/PVE/API2/Network/SDN/Zones.pm create
// and update extract type, zone, digest, delete and lock-token).
func sdnGivenOptions(c *call, own ...string) map[string]string {
	skip := map[string]bool{"lock-token": true}
	for _, k := range own {
		skip[k] = true
	}
	out := map[string]string{}
	for k, v := range c.params {
		if !skip[k] {
			out[k] = v
		}
	}
	return out
}

// sdnIpamExists is pve-network src/PVE/Network/SDN/Ipams.pm config: the
// built-in "pve" IPAM is always there, whatever ipams.cfg holds.
func (sd *SDNState) sdnIpamExists(id string) bool {
	return id == "pve" || sd.Get(SDNIpams, id) != nil
}

// sdnZoneRefs are the checks of pve-network src/PVE/API2/Network/SDN/Zones.pm
// create and update on the options given: the dns and reversedns servers
// and the ipam must exist, a dnszone needs a dns server.
func (sd *SDNState) sdnZoneRefs(opts map[string]string) error {
	if d := opts["dns"]; d != "" && sd.Get(SDNDNS, d) == nil {
		return paramError(map[string]string{"dns": d + " don't exist"})
	}
	if d := opts["reversedns"]; d != "" && sd.Get(SDNDNS, d) == nil {
		return paramError(map[string]string{"reversedns": d + " don't exist"})
	}
	if opts["dnszone"] != "" && opts["dns"] == "" {
		return paramError(map[string]string{"dnszone": "missing dns server"})
	}
	if ipam := opts["ipam"]; ipam != "" && !sd.sdnIpamExists(ipam) {
		return paramError(map[string]string{"ipam": ipam + " not existing"})
	}
	return nil
}

// sdnZoneUpdateHook is the zone plugin's on_update_hook on the zone as it
// will be written (zones holds every zone, the new one included).
// Perl's " at FILE line N." of a die without newline is left out.
func (s *Sim) sdnZoneUpdateHook(sd *SDNState, id string, zones map[string]*SDNObject) error {
	z := zones[id]
	switch z.Type {
	case "vxlan":
		// pve-network src/PVE/Network/SDN/Zones/VxlanPlugin.pm
		// on_update_hook (9.x; 8.4 has none and requires peers).
		if s.pve.release == "8.4" {
			return nil
		}
		peers, fabric := z.Props["peers"] != "", z.Props["fabric"] != ""
		if peers == fabric {
			msg := "must have exactly one of peers / fabric defined"
			return paramError(map[string]string{"peers": msg, "fabric": msg})
		}
	case "evpn":
		// pve-network src/PVE/Network/SDN/Zones/EvpnPlugin.pm
		// on_update_hook: the controller exists and is an evpn one,
		// vrf-vxlan is unique, a missing mac is made up.
		ctl := z.Props["controller"]
		co := sd.Get(SDNControllers, ctl)
		if co == nil {
			return errorf("controller %s don't exist", ctl)
		}
		if co.Type != "evpn" {
			return errorf("%s is not a evpn controller type", ctl)
		}
		vrf := z.Props["vrf-vxlan"]
		for _, other := range sortedKeys(zones) {
			if other != id {
				if v, ok := zones[other].Props["vrf-vxlan"]; ok && v == vrf {
					return errorf("vrf-vxlan %s is already declared in %s", vrf, other)
				}
			}
		}
		if _, ok := z.Props["mac"]; !ok {
			z.Props["mac"] = s.randomMAC()
		}
	}
	return nil
}

// sdnZonesCopy is a deep copy of zones.cfg's sections, for a handler that
// writes the file only once every check passed (write_config comes last).
func sdnCopyIDs(ids map[string]*SDNObject) map[string]*SDNObject {
	out := make(map[string]*SDNObject, len(ids))
	for id, o := range ids {
		out[id] = o.clone()
	}
	return out
}

// sdnZoneNodes is the set of nodes a zone is limited to, nil for all.
func sdnZoneNodes(z *SDNObject) map[string]bool {
	v, ok := z.Props["nodes"]
	if !ok {
		return nil
	}
	out := map[string]bool{}
	for _, n := range strings.Split(v, ",") {
		if n != "" {
			out[n] = true
		}
	}
	return out
}
