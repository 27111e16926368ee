package pvesim

import (
	"net/http"
	"strconv"
	"strings"
)

// SDN fabrics and their nodes (PVE 9): pve-network
// src/PVE/API2/Network/SDN/Fabrics.pm, Fabrics/Fabric.pm, Fabrics/Node.pm
// and Fabrics/FabricNode.pm over the Rust config (sdn_x_fabrics.go). PVE
// 8.4 has none of these paths: its schema answers them as not
// implemented.
//
// Every write runs under lock_sdn_config (its lock token, "adding fabric
// failed: ..." and the like) and stores the whole configuration, which the
// Rust side validates first (sdnFabricConfig validate): a write that
// leaves the configuration invalid fails and changes nothing.

func (s *Sim) registerSDNFabricRoutes() {
	base := "/cluster/sdn/fabrics"
	// Fabrics.pm index: SDN.Audit on /sdn/fabrics.
	s.handle(http.MethodGet, base, route{
		perm: permission{path: "/sdn/fabrics", privs: []string{"SDN.Audit"}},
		handle: func(*call) (any, error) {
			return []map[string]string{{"subdir": "fabric"}, {"subdir": "node"}, {"subdir": "all"}}, nil
		},
	})
	s.handle(http.MethodGet, base+"/all", route{handle: s.listSDNFabricsAll})
	s.handle(http.MethodGet, base+"/fabric", route{handle: s.listSDNFabrics})
	s.handle(http.MethodPost, base+"/fabric", route{
		perm: permission{path: "/sdn/fabrics", privs: []string{"SDN.Allocate"}}, handle: s.addSDNFabric,
	})
	s.handle(http.MethodGet, base+"/fabric/{id}", route{
		perm:   permission{path: "/sdn/fabrics/{id}", privs: []string{"SDN.Audit", "SDN.Allocate"}, any: true},
		handle: s.getSDNFabric,
	})
	fabricAllocate := permission{path: "/sdn/fabrics/{id}", privs: []string{"SDN.Allocate"}}
	s.handle(http.MethodPut, base+"/fabric/{id}", route{perm: fabricAllocate, handle: s.updateSDNFabric})
	s.handle(http.MethodDelete, base+"/fabric/{id}", route{perm: fabricAllocate, handle: s.deleteSDNFabric})

	s.handle(http.MethodGet, base+"/node", route{handle: s.listSDNFabricNodesAll})
	s.handle(http.MethodGet, base+"/node/{fabric_id}", route{
		perm:   permission{path: "/sdn/fabrics/{fabric_id}", privs: []string{"SDN.Audit"}},
		handle: s.listSDNFabricNodes,
	})
	s.handle(http.MethodPost, base+"/node/{fabric_id}", route{check: sdnFabricNodeWriteCheck, handle: s.addSDNFabricNode})
	s.handle(http.MethodGet, base+"/node/{fabric_id}/{node_id}", route{check: sdnFabricNodeReadCheck, handle: s.getSDNFabricNode})
	s.handle(http.MethodPut, base+"/node/{fabric_id}/{node_id}", route{check: sdnFabricNodeWriteCheck, handle: s.updateSDNFabricNode})
	s.handle(http.MethodDelete, base+"/node/{fabric_id}/{node_id}", route{check: sdnFabricNodeWriteCheck, handle: s.deleteSDNFabricNode})
}

// sdnFabricNodeReadCheck is FabricNode.pm get_node's ['and', ['perm',
// '/sdn/fabrics/{fabric_id}', [SDN.Audit, SDN.Allocate], any], ['perm',
// '/nodes/{node_id}', [Sys.Audit, Sys.Modify], any]].
func sdnFabricNodeReadCheck(c *call) error {
	if err := c.check("/sdn/fabrics/"+c.str("fabric_id"), true, "SDN.Audit", "SDN.Allocate"); err != nil {
		return err
	}
	return c.check("/nodes/"+c.str("node_id"), true, "Sys.Audit", "Sys.Modify")
}

// sdnFabricNodeWriteCheck is add_node's, update_node's and delete_node's
// ['and', ['perm', '/sdn/fabrics/{fabric_id}', [SDN.Allocate]], ['perm',
// '/nodes/{node_id}', [Sys.Modify]]].
func sdnFabricNodeWriteCheck(c *call) error {
	if err := c.check("/sdn/fabrics/"+c.str("fabric_id"), false, "SDN.Allocate"); err != nil {
		return err
	}
	return c.check("/nodes/"+c.str("node_id"), false, "Sys.Modify")
}

func (sd *SDNState) fabricConfig() *sdnFabricConfig { return loadFabrics(sd.File(SDNFabrics).IDs) }

func (sd *SDNState) runningFabricConfig() *sdnFabricConfig {
	return loadFabrics(sd.Running.Kinds[SDNFabrics])
}

func (cfg *sdnFabricConfig) fabricObjects() map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, f := range cfg.fabrics {
		out[id] = f.api()
	}
	return out
}

// nodeObjects are the nodes as pve-rs lists them: list_nodes_fabric and
// list_nodes by node id (list_nodes lets a later fabric's node of the same
// name win), list_all by section id "FABRIC_NODE".
func (cfg *sdnFabricConfig) nodeObjects(fabric string, bySection bool) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, fid := range sortedKeys(cfg.nodes) {
		if fabric != "" && fid != fabric {
			continue
		}
		for nid, n := range cfg.nodes[fid] {
			key := nid
			if bySection {
				key = sdnFabricSectionID(fid, nid)
			}
			out[key] = n.api()
		}
	}
	return out
}

// fabricExists is proxmox-ve-rs proxmox-ve-config/src/sdn/fabric/mod.rs
// FabricConfig get_fabric: FabricDoesNotExist.
func (cfg *sdnFabricConfig) fabricExists(id string) error {
	if cfg.fabrics[id] == nil {
		return errorf("fabric '%s' does not exist in configuration", id)
	}
	return nil
}

// sdnFabricViews is the objects of the view a list asks for: pending
// (pending_config of the running and the current objects, with the
// current digest), running (no digest) or the current config.
func sdnFabricViews(c *call, objects func(cfg *sdnFabricConfig) (map[string]map[string]any, error)) (map[string]map[string]any, string, error) {
	sd := c.cluster.SDN
	cur := sd.fabricConfig()
	switch sdnViewOf(c) {
	case SDNViewPending:
		running, err := objects(sd.runningFabricConfig())
		if err != nil {
			return nil, "", err
		}
		current, err := objects(cur)
		if err != nil {
			return nil, "", err
		}
		return sdnxPendingConfig(running, current), cur.digest(), nil
	case SDNViewRunning:
		objs, err := objects(sd.runningFabricConfig())
		return objs, "", err
	}
	objs, err := objects(cur)
	return objs, cur.digest(), err
}

func withDigest(o map[string]any, digest string) map[string]any {
	if digest != "" {
		o["digest"] = digest
	}
	return o
}

// listSDNFabrics is Fabric.pm index: the fabrics the caller may see
// (SDN.Audit or SDN.Allocate on /sdn/fabrics/<id>).
func (s *Sim) listSDNFabrics(c *call) (any, error) {
	objs, digest, err := sdnFabricViews(c, func(cfg *sdnFabricConfig) (map[string]map[string]any, error) {
		return cfg.fabricObjects(), nil
	})
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, id := range sortedKeys(objs) {
		if c.can("/sdn/fabrics/"+id, true, "SDN.Audit", "SDN.Allocate") {
			out = append(out, withDigest(objs[id], digest))
		}
	}
	return out, nil
}

// listSDNFabricNodesAll is Node.pm list_nodes: every node, keyed by its
// node id, the caller may see (SDN.Audit or SDN.Allocate on its fabric,
// Sys.Audit or Sys.Modify on /nodes/<node>).
func (s *Sim) listSDNFabricNodesAll(c *call) (any, error) {
	objs, digest, err := sdnFabricViews(c, func(cfg *sdnFabricConfig) (map[string]map[string]any, error) {
		return cfg.nodeObjects("", false), nil
	})
	if err != nil {
		return nil, err
	}
	return sdnVisibleNodes(c, objs, digest), nil
}

func sdnVisibleNodes(c *call, objs map[string]map[string]any, digest string) []map[string]any {
	out := []map[string]any{}
	for _, key := range sortedKeys(objs) {
		o := objs[key]
		fabric, node := sdnNodeIDs(o)
		if !c.can("/sdn/fabrics/"+fabric, true, "SDN.Audit", "SDN.Allocate") ||
			!c.can("/nodes/"+node, true, "Sys.Audit", "Sys.Modify") {
			continue
		}
		out = append(out, withDigest(o, digest))
	}
	return out
}

// sdnNodeIDs are a listed node's fabric and node ids, from the pending
// part for a new node (Fabrics.pm list_all: "$node->{fabric_id} //
// $node->{pending}->{fabric_id}").
func sdnNodeIDs(o map[string]any) (string, string) {
	fabric, _ := o["fabric_id"].(string)
	node, _ := o["node_id"].(string)
	if p, ok := o["pending"].(map[string]any); ok {
		if fabric == "" {
			fabric, _ = p["fabric_id"].(string)
		}
		if node == "" {
			node, _ = p["node_id"].(string)
		}
	}
	return fabric, node
}

// listSDNFabricNodes is FabricNode.pm list_nodes_fabric: the fabric's
// nodes the caller may see (Sys.Audit or Sys.Modify on /nodes/<node>). The
// fabric must exist in every config the view reads: the pending view of a
// fabric that is not running (or no longer staged) fails.
func (s *Sim) listSDNFabricNodes(c *call) (any, error) {
	fabric := c.str("fabric_id")
	objs, digest, err := sdnFabricViews(c, func(cfg *sdnFabricConfig) (map[string]map[string]any, error) {
		if err := cfg.fabricExists(fabric); err != nil {
			return nil, err
		}
		return cfg.nodeObjects(fabric, false), nil
	})
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, key := range sortedKeys(objs) {
		if c.can("/nodes/"+key, true, "Sys.Audit", "Sys.Modify") {
			out = append(out, withDigest(objs[key], digest))
		}
	}
	return out, nil
}

// listSDNFabricsAll is Fabrics.pm list_all: fabrics and nodes (these by
// section id) of the view, filtered as the two lists are.
func (s *Sim) listSDNFabricsAll(c *call) (any, error) {
	fabrics, digest, err := sdnFabricViews(c, func(cfg *sdnFabricConfig) (map[string]map[string]any, error) {
		return cfg.fabricObjects(), nil
	})
	if err != nil {
		return nil, err
	}
	nodes, _, err := sdnFabricViews(c, func(cfg *sdnFabricConfig) (map[string]map[string]any, error) {
		return cfg.nodeObjects("", true), nil
	})
	if err != nil {
		return nil, err
	}
	outF := []map[string]any{}
	for _, id := range sortedKeys(fabrics) {
		if c.can("/sdn/fabrics/"+id, true, "SDN.Audit", "SDN.Allocate") {
			outF = append(outF, withDigest(fabrics[id], digest))
		}
	}
	return map[string]any{"fabrics": outF, "nodes": sdnVisibleNodes(c, nodes, digest)}, nil
}

// getSDNFabric is Fabric.pm get_fabric: the current config's fabric and
// its digest.
func (s *Sim) getSDNFabric(c *call) (any, error) {
	cfg := c.cluster.SDN.fabricConfig()
	id := c.str("id")
	if err := cfg.fabricExists(id); err != nil {
		return nil, err
	}
	return withDigest(cfg.fabrics[id].api(), cfg.digest()), nil
}

// getSDNFabricNode is pve-network src/PVE/API2/Network/SDN/Fabrics/FabricNode.pm
// get_node (proxmox-ve-rs FabricEntry get_node: NodeDoesNotExist).
func (s *Sim) getSDNFabricNode(c *call) (any, error) {
	cfg := c.cluster.SDN.fabricConfig()
	fabric, node := c.str("fabric_id"), c.str("node_id")
	if err := cfg.fabricExists(fabric); err != nil {
		return nil, err
	}
	n := cfg.nodes[fabric][node]
	if n == nil {
		return nil, errorf("node '%s' does not exist in fabric '%s'", node, fabric)
	}
	return withDigest(n.api(), cfg.digest()), nil
}

// sdnNotSimulatedFabricParams are the 9.1 schema's parameters of route
// filters (prefix lists) and WireGuard fabrics, which the simulator does
// not have.
// not simulated: route_filter and the WireGuard protocol
var sdnNotSimulatedFabricParams = []string{
	"route_filter", "persistent_keepalive", "allowed_ips", "endpoint", "peers", "public_key", "role",
}

// sdnFabricNotSimulated refuses what the simulator does not have.
// not simulated: WireGuard fabrics, route filters.
func sdnFabricNotSimulated(c *call) error {
	if c.str("protocol") == "wireguard" {
		return errorf("pvesim does not simulate WireGuard fabrics")
	}
	return sdnxRefuseNotSimulated(c.params, sdnNotSimulatedFabricParams)
}

// sdnFabricWrite is a fabrics write under lock_sdn_config: the digest
// (assert_if_modified when one is given), the change on the current
// config, its validation, the store.
func sdnFabricWrite(c *call, errmsg string, change func(cfg *sdnFabricConfig) error) error {
	if err := sdnFabricNotSimulated(c); err != nil {
		return err
	}
	sd := c.cluster.SDN
	return sdnxLocked(c, errmsg, func() error {
		cfg := sd.fabricConfig()
		if err := sdnxAssertDigest(c, cfg.digest()); err != nil {
			return err
		}
		if err := change(cfg); err != nil {
			return err
		}
		if err := cfg.validate(); err != nil {
			return err
		}
		cfg.store(sd)
		return nil
	})
}

// sdnListParam is an array parameter's items (form data and JSON arrays
// both arrive NUL-joined).
func sdnListParam(c *call, name string) ([]string, bool) {
	v, ok := c.param(name)
	if !ok {
		return nil, false
	}
	if v == "" {
		return []string{}, true
	}
	return strings.Split(v, "\x00"), true
}

// sdnFabricProtocolProps reads the protocol's own properties of a fabric
// from the request (the Rust Fabric / FabricUpdater, tagged by protocol:
// another protocol's properties are not its fields and are dropped).
func sdnFabricProtocolProps(c *call, f *sdnFabric, create bool) error {
	switch f.Protocol {
	case "openfabric":
		for _, k := range []string{"hello_interval", "csnp_interval"} {
			v, ok := c.param(k)
			if !ok {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				// inferred: the Rust side's u16 refuses a fraction; the
				// text is the simulator's.
				return errorf("%s: invalid value '%s', expected an integer", k, v)
			}
			if k == "hello_interval" {
				f.HelloInterval = strconv.Itoa(n)
			} else {
				f.CsnpInterval = strconv.Itoa(n)
			}
		}
	case "ospf":
		v, ok := c.param("area")
		if !ok {
			if create {
				// inferred: serde's text for the missing Area field.
				return errorf("missing field `area`")
			}
			return nil
		}
		area, valid := parseArea(v)
		if !valid {
			// proxmox-sdn-types src/ospf.rs Area from_str
			return errorf("Area is not a number, nor an ip address")
		}
		f.Area = area
	}
	return nil
}

// addSDNFabric is pve-network src/PVE/API2/Network/SDN/Fabrics/Fabric.pm
// add_fabric and proxmox-ve-rs FabricConfig add_fabric (the id
// must be new; the prefixes are stored canonical, host bits cleared).
func (s *Sim) addSDNFabric(c *call) (any, error) {
	return nil, sdnFabricWrite(c, "adding fabric failed", func(cfg *sdnFabricConfig) error {
		id := c.str("id")
		f := &sdnFabric{ID: id, Protocol: c.str("protocol")}
		if v, ok := c.param("ip_prefix"); ok {
			f.IPPrefix = canonicalPrefix(v)
		}
		if v, ok := c.param("ip6_prefix"); ok {
			f.IP6Prefix = canonicalPrefix(v)
		}
		if err := sdnFabricProtocolProps(c, f, true); err != nil {
			return err
		}
		if cfg.fabrics[id] != nil {
			return errorf("fabric '%s' already exists in config", id)
		}
		cfg.fabrics[id] = f
		return nil
	})
}

// sdnFabricDeletable are the properties the schema lets an update delete
// per protocol and the Rust updater accepts: openfabric's intervals; an
// OSPF fabric's "area" is in the schema's list but not deletable
// (OspfDeletableProperties).
var sdnFabricDeletable = map[string][]string{
	"openfabric": {"hello_interval", "csnp_interval"},
	"ospf":       {},
}

// updateSDNFabric is pve-network src/PVE/API2/Network/SDN/Fabrics/Fabric.pm
// update_fabric and proxmox-ve-rs FabricConfig update_fabric
// (the protocol must be the fabric's; prefixes are stored as given).
func (s *Sim) updateSDNFabric(c *call) (any, error) {
	return nil, sdnFabricWrite(c, "updating fabric failed", func(cfg *sdnFabricConfig) error {
		id := c.str("id")
		upd := &sdnFabric{Protocol: c.str("protocol")}
		if err := sdnFabricProtocolProps(c, upd, false); err != nil {
			return err
		}
		del, _ := sdnListParam(c, "delete")
		for _, k := range del {
			if !containsString(sdnFabricDeletable[upd.Protocol], k) {
				// inferred: serde's text for a value of the untagged
				// FabricDeletableProperties that matches no variant.
				return errorf("data did not match any variant of untagged enum FabricDeletableProperties")
			}
		}
		if err := cfg.fabricExists(id); err != nil {
			return err
		}
		f := cfg.fabrics[id]
		if f.Protocol != upd.Protocol {
			return errorf("node has a different protocol than the referenced fabric")
		}
		if v, ok := c.param("ip_prefix"); ok {
			f.IPPrefix = v
		}
		if v, ok := c.param("ip6_prefix"); ok {
			f.IP6Prefix = normalizeIP(v)
		}
		if upd.HelloInterval != "" {
			f.HelloInterval = upd.HelloInterval
		}
		if upd.CsnpInterval != "" {
			f.CsnpInterval = upd.CsnpInterval
		}
		if upd.Area != "" {
			f.Area = upd.Area
		}
		for _, k := range del {
			switch k {
			case "hello_interval":
				f.HelloInterval = ""
			case "csnp_interval":
				f.CsnpInterval = ""
			}
		}
		return nil
	})
}

// deleteSDNFabric is pve-network src/PVE/API2/Network/SDN/Fabrics/Fabric.pm
// delete_fabric: the fabric must exist, the
// caller needs Sys.Modify on each of its nodes, no EVPN controller and no
// VXLAN zone (staged) may name it; its nodes go with it.
func (s *Sim) deleteSDNFabric(c *call) (any, error) {
	sd := c.cluster.SDN
	return nil, sdnFabricWrite(c, "deleting fabric failed", func(cfg *sdnFabricConfig) error {
		id := c.str("id")
		if err := cfg.fabricExists(id); err != nil {
			return err
		}
		for _, node := range sortedKeys(cfg.nodes[id]) {
			if !c.can("/nodes/"+node, false, "Sys.Modify") {
				return errorf("permission check failed: missing 'Sys.Modify' on node %s", node)
			}
		}
		ctrls := sd.File(SDNControllers).IDs
		for _, key := range sortedKeys(ctrls) {
			if o := ctrls[key]; o.Type == "evpn" && o.Props["fabric"] == id {
				return errorf("this fabric is still used in the EVPN controller \"%s\"", key)
			}
		}
		zones := sd.File(SDNZones).IDs
		for _, key := range sortedKeys(zones) {
			if o := zones[key]; o.Type == "vxlan" && o.Props["fabric"] == id {
				return errorf("this fabric is still used in the VXLAN zone \"%s\"", key)
			}
		}
		delete(cfg.fabrics, id)
		delete(cfg.nodes, id)
		return nil
	})
}

// sdnNodeProps reads a node's addresses and interfaces from the request
// into n, in the form the Rust types print them.
func sdnNodeProps(c *call, n *sdnFabricNode) {
	if v, ok := c.param("ip"); ok {
		n.IP = v
	}
	if v, ok := c.param("ip6"); ok {
		n.IP6 = normalizeIP(v)
	}
	if list, ok := sdnListParam(c, "interfaces"); ok {
		n.Interfaces = nil
		for _, v := range list {
			n.Interfaces = append(n.Interfaces, normalizeInterface(n.Protocol, v))
		}
	}
}

// addSDNFabricNode is pve-network src/PVE/API2/Network/SDN/Fabrics/FabricNode.pm
// add_node (proxmox-ve-rs FabricEntry add_node): the fabric must exist, the
// node be new in it and have the fabric's protocol.
func (s *Sim) addSDNFabricNode(c *call) (any, error) {
	return nil, sdnFabricWrite(c, "adding node failed", func(cfg *sdnFabricConfig) error {
		fabric, node := c.str("fabric_id"), c.str("node_id")
		n := &sdnFabricNode{Fabric: fabric, Node: node, Protocol: c.str("protocol")}
		sdnNodeProps(c, n)
		if err := cfg.fabricExists(fabric); err != nil {
			return err
		}
		if cfg.fabrics[fabric].Protocol != n.Protocol {
			return errorf("node has a different protocol than the referenced fabric")
		}
		if cfg.nodes[fabric][node] != nil {
			return errorf("node '%s' already exists in config for fabric %s", node, fabric)
		}
		if cfg.nodes[fabric] == nil {
			cfg.nodes[fabric] = map[string]*sdnFabricNode{}
		}
		cfg.nodes[fabric][node] = n
		return nil
	})
}

// updateSDNFabricNode is pve-network src/PVE/API2/Network/SDN/Fabrics/FabricNode.pm
// update_node (proxmox-ve-rs FabricEntry update_node): the given values
// replace the node's (interfaces as a whole list), then the deletions
// (interfaces, ip, ip6).
func (s *Sim) updateSDNFabricNode(c *call) (any, error) {
	return nil, sdnFabricWrite(c, "updating node failed", func(cfg *sdnFabricConfig) error {
		fabric, node := c.str("fabric_id"), c.str("node_id")
		if err := cfg.fabricExists(fabric); err != nil {
			return err
		}
		n := cfg.nodes[fabric][node]
		if n == nil {
			return errorf("node '%s' does not exist in fabric '%s'", node, fabric)
		}
		if n.Protocol != c.str("protocol") {
			return errorf("node has a different protocol than the referenced fabric")
		}
		sdnNodeProps(c, n)
		del, _ := sdnListParam(c, "delete")
		for _, k := range del {
			switch k {
			case "ip":
				n.IP = ""
			case "ip6":
				n.IP6 = ""
			case "interfaces":
				n.Interfaces = nil
			}
		}
		return nil
	})
}

// deleteSDNFabricNode is pve-network src/PVE/API2/Network/SDN/Fabrics/FabricNode.pm
// delete_node (proxmox-ve-rs FabricEntry delete_node).
func (s *Sim) deleteSDNFabricNode(c *call) (any, error) {
	return nil, sdnFabricWrite(c, "deleting node failed", func(cfg *sdnFabricConfig) error {
		fabric, node := c.str("fabric_id"), c.str("node_id")
		if err := cfg.fabricExists(fabric); err != nil {
			return err
		}
		if cfg.nodes[fabric][node] == nil {
			return errorf("node '%s' does not exist in fabric '%s'", node, fabric)
		}
		delete(cfg.nodes[fabric], node)
		return nil
	})
}
