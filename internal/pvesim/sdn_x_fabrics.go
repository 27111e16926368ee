package pvesim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// SDN fabrics (PVE 9): /etc/pve/sdn/fabrics.cfg, which pve-network reads
// and writes through the Rust config of proxmox-ve-rs
// (proxmox-ve-config/src/sdn/fabric, by way of proxmox-perl-rs
// pve-rs/src/bindings/sdn/fabrics.rs). The rules below follow
// proxmox-ve-rs 96d4b9c, the state that matches PVE 9.1's API schema
// (openfabric, ospf and wireguard; the simulator has the first two).
//
// The file holds a section per fabric ("openfabric_fabric: ID",
// "ospf_fabric: ID") and per node of a fabric ("openfabric_node:
// FABRIC_NODE", "ospf_node: FABRIC_NODE", section_config/mod.rs Section).
// The simulator stores them so in the SDN store's fabrics file, which PUT
// /cluster/sdn copies into the running config; a node's interfaces are one
// property string per line.

// sdnFabric is a fabric as the API shows it (section_config/fabric.rs
// Fabric, tagged by protocol).
type sdnFabric struct {
	ID, Protocol        string
	IPPrefix, IP6Prefix string
	// Openfabric: HelloInterval, CsnpInterval; ospf: Area.
	HelloInterval, CsnpInterval, Area string
}

// sdnFabricNode is a node of a fabric as the API shows it
// (section_config/node.rs api::Node).
type sdnFabricNode struct {
	Fabric, Node, Protocol string
	IP, IP6                string
	Interfaces             []string
}

// sdnFabricConfig is the whole fabrics configuration (FabricConfig): the
// fabrics by id and each fabric's nodes by node id.
type sdnFabricConfig struct {
	fabrics map[string]*sdnFabric
	nodes   map[string]map[string]*sdnFabricNode
}

func sdnFabricSectionID(fabric, node string) string { return fabric + "_" + node }

// loadFabrics reads the sections of a fabrics file (or of the running
// config's fabrics).
func loadFabrics(sections map[string]*SDNObject) *sdnFabricConfig {
	cfg := &sdnFabricConfig{fabrics: map[string]*sdnFabric{}, nodes: map[string]map[string]*sdnFabricNode{}}
	for id, o := range sections {
		proto, kind, _ := strings.Cut(o.Type, "_")
		switch kind {
		case "fabric":
			cfg.fabrics[id] = &sdnFabric{
				ID: id, Protocol: proto, IPPrefix: o.Props["ip_prefix"], IP6Prefix: o.Props["ip6_prefix"],
				HelloInterval: o.Props["hello_interval"], CsnpInterval: o.Props["csnp_interval"], Area: o.Props["area"],
			}
		case "node":
			fabric, node, _ := strings.Cut(id, "_")
			n := &sdnFabricNode{Fabric: fabric, Node: node, Protocol: proto, IP: o.Props["ip"], IP6: o.Props["ip6"]}
			if v := o.Props["interfaces"]; v != "" {
				n.Interfaces = strings.Split(v, "\n")
			}
			if cfg.nodes[fabric] == nil {
				cfg.nodes[fabric] = map[string]*sdnFabricNode{}
			}
			cfg.nodes[fabric][node] = n
		}
	}
	return cfg
}

// sections is the configuration as fabrics.cfg sections.
func (cfg *sdnFabricConfig) sections() map[string]*SDNObject {
	out := map[string]*SDNObject{}
	for id, f := range cfg.fabrics {
		p := map[string]string{}
		setIf := func(k, v string) {
			if v != "" {
				p[k] = v
			}
		}
		setIf("ip_prefix", f.IPPrefix)
		setIf("ip6_prefix", f.IP6Prefix)
		setIf("hello_interval", f.HelloInterval)
		setIf("csnp_interval", f.CsnpInterval)
		setIf("area", f.Area)
		out[id] = &SDNObject{Type: f.Protocol + "_fabric", Props: p}
	}
	for fabric, nodes := range cfg.nodes {
		for node, n := range nodes {
			p := map[string]string{}
			if n.IP != "" {
				p["ip"] = n.IP
			}
			if n.IP6 != "" {
				p["ip6"] = n.IP6
			}
			if len(n.Interfaces) > 0 {
				p["interfaces"] = strings.Join(n.Interfaces, "\n")
			}
			out[sdnFabricSectionID(fabric, node)] = &SDNObject{Type: n.Protocol + "_node", Props: p}
		}
	}
	return out
}

// store writes the configuration into the fabrics file, keeping the place
// of the sections that stay.
func (cfg *sdnFabricConfig) store(sd *SDNState) {
	secs := cfg.sections()
	for _, id := range sortedKeys(sd.File(SDNFabrics).IDs) {
		if secs[id] == nil {
			sd.Remove(SDNFabrics, id)
		}
	}
	for _, id := range sortedKeys(secs) {
		sd.Put(SDNFabrics, id, secs[id])
	}
}

// api is the fabric as the API answers it: integers as numbers.
func (f *sdnFabric) api() map[string]any {
	out := map[string]any{"id": f.ID, "protocol": f.Protocol}
	if f.IPPrefix != "" {
		out["ip_prefix"] = f.IPPrefix
	}
	if f.IP6Prefix != "" {
		out["ip6_prefix"] = f.IP6Prefix
	}
	for k, v := range map[string]string{"hello_interval": f.HelloInterval, "csnp_interval": f.CsnpInterval} {
		if n, err := strconv.Atoi(v); err == nil {
			out[k] = n
		}
	}
	if f.Area != "" {
		out["area"] = f.Area
	}
	return out
}

// api is the node as the API answers it; interfaces is always there
// (OpenfabricNodeProperties, OspfNodeProperties: a Vec with serde default).
func (n *sdnFabricNode) api() map[string]any {
	out := map[string]any{"fabric_id": n.Fabric, "node_id": n.Node, "protocol": n.Protocol}
	if n.IP != "" {
		out["ip"] = n.IP
	}
	if n.IP6 != "" {
		out["ip6"] = n.IP6
	}
	ifaces := append([]string{}, n.Interfaces...)
	out["interfaces"] = ifaces
	return out
}

// digest is pve-rs's PerlFabricConfig digest: SHA-256 over the
// configuration's JSON, hex. inferred: the simulator's JSON is its own
// (the value differs from a live node's; what changes it is the same).
func (cfg *sdnFabricConfig) digest() string {
	var fabrics []map[string]any
	for _, id := range sortedKeys(cfg.fabrics) {
		f := cfg.fabrics[id].api()
		var nodes []map[string]any
		for _, nid := range sortedKeys(cfg.nodes[id]) {
			nodes = append(nodes, cfg.nodes[id][nid].api())
		}
		f["nodes"] = nodes
		fabrics = append(fabrics, f)
	}
	raw, _ := json.Marshal(fabrics)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// validate is proxmox-ve-rs proxmox-ve-config/src/sdn/fabric/mod.rs FabricConfig
// validate, which every write of fabrics.cfg runs (pve-rs to_raw:
// write_section_config takes a valid config): prefixes of different
// fabrics must not overlap; OSPF areas must differ; a node's interface is
// in one fabric only; then each fabric (FabricEntry validate).
func (cfg *sdnFabricConfig) validate() error {
	ids := sortedKeys(cfg.fabrics)
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			f1, f2 := cfg.fabrics[a], cfg.fabrics[b]
			if prefixesOverlap(f1.IPPrefix, f2.IPPrefix) {
				return errorf("IP prefix %s in fabric '%s' overlaps with IPv4 prefix %s in fabric '%s'", f2.IPPrefix, b, f1.IPPrefix, a)
			}
			if prefixesOverlap(f1.IP6Prefix, f2.IP6Prefix) {
				return errorf("IPv6 prefix %s in fabric '%s' overlaps with IPv6 prefix %s in fabric '%s'", f2.IP6Prefix, b, f1.IP6Prefix, a)
			}
		}
	}
	areas := map[string]bool{}
	ifaces := map[string]bool{}
	for _, id := range ids {
		f := cfg.fabrics[id]
		if f.Protocol == "ospf" {
			key := areaIPv4(f.Area)
			if areas[key] {
				return errorf("duplicate OSPF area")
			}
			areas[key] = true
		}
		for _, nid := range sortedKeys(cfg.nodes[id]) {
			for _, iface := range cfg.nodes[id][nid].Interfaces {
				key := nid + "\x00" + propertyStringValue(iface, "name")
				if ifaces[key] {
					return errorf("interface is already in use by another fabric")
				}
				ifaces[key] = true
			}
		}
		if err := cfg.validateFabric(f); err != nil {
			return err
		}
	}
	return nil
}

// validateFabric is proxmox-ve-rs FabricEntry validate: each node (its own check, IPs
// unique in the fabric, inside the fabric's prefixes, present when the
// fabric has the prefix), then the fabric's own check.
func (cfg *sdnFabricConfig) validateFabric(f *sdnFabric) error {
	ips, ip6s := map[string]bool{}, map[string]bool{}
	for _, nid := range sortedKeys(cfg.nodes[f.ID]) {
		n := cfg.nodes[f.ID][nid]
		sid := sdnFabricSectionID(f.ID, nid)
		// protocol/openfabric.rs and ospf.rs: NodeSection validate.
		if n.IP == "" && (f.Protocol == "ospf" || n.IP6 == "") {
			return errorf("node '%s' does not have an IP configured", sid)
		}
		if f.Protocol == "ospf" && n.IP6 != "" {
			return errorf("IPv6 is currently not supported for protocol ospf")
		}
		if n.IP != "" {
			if ips[n.IP] {
				return errorf("fabric %s contains nodes with duplicated IPs", f.ID)
			}
			ips[n.IP] = true
		}
		if n.IP6 != "" {
			if ip6s[n.IP6] {
				return errorf("fabric %s contains nodes with duplicated IPs", f.ID)
			}
			ip6s[n.IP6] = true
		}
		for _, pair := range [][2]string{{f.IPPrefix, n.IP}, {f.IP6Prefix, n.IP6}} {
			prefix, ip := pair[0], pair[1]
			switch {
			case prefix == "" && ip != "":
				return errorf("fabric '%s' does not have an IP prefix configured for the node IP %s", f.ID, ip)
			case prefix != "" && ip == "":
				return errorf("node '%s' does not have an IP configured for this fabric prefix %s", sid, prefix)
			case prefix != "" && !prefixContains(prefix, ip):
				return errorf("node IP %s is outside the IP prefix %s of the fabric", ip, prefix)
			}
		}
	}
	// protocol/openfabric.rs and ospf.rs: FabricSection validate.
	switch f.Protocol {
	case "openfabric":
		if f.IPPrefix == "" && f.IP6Prefix == "" {
			return errorf("fabric '%s' does not have an IP prefix configured", f.ID)
		}
	case "ospf":
		if f.IPPrefix == "" {
			return errorf("fabric '%s' does not have an IP prefix configured", f.ID)
		}
		if f.IP6Prefix != "" {
			return errorf("IPv6 is currently not supported for protocol ospf")
		}
	}
	return nil
}

func prefixesOverlap(a, b string) bool {
	pa, errA := netip.ParsePrefix(a)
	pb, errB := netip.ParsePrefix(b)
	return errA == nil && errB == nil && pa.Overlaps(pb)
}

func prefixContains(prefix, ip string) bool {
	p, err := netip.ParsePrefix(prefix)
	a, errA := netip.ParseAddr(ip)
	return err == nil && errA == nil && p.Masked().Contains(a)
}

// canonicalPrefix is proxmox-network-types' Cidr canonical: the host bits
// cleared (FabricConfig add_fabric; an update keeps the value as given).
func canonicalPrefix(v string) string {
	p, err := netip.ParsePrefix(v)
	if err != nil {
		return v
	}
	return p.Masked().String()
}

// normalizeIP is how the Rust types print an address or prefix: IPv6 in
// its canonical compressed form (Ipv6Addr's Display).
func normalizeIP(v string) string {
	if a, err := netip.ParseAddr(v); err == nil {
		return a.String()
	}
	if p, err := netip.ParsePrefix(v); err == nil {
		return p.String()
	}
	return v
}

// parseArea is proxmox-sdn-types src/ospf.rs Area from_str: an IPv4
// address or a 32-bit number, printed back in that form.
func parseArea(v string) (string, bool) {
	if a, err := netip.ParseAddr(v); err == nil && a.Is4() {
		return a.String(), true
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil && !strings.HasPrefix(v, "+") {
		return strconv.FormatUint(n, 10), true
	}
	return "", false
}

// areaIPv4 is Area get_ipv4_representation: a number as the IPv4 address
// of its 32 bits.
func areaIPv4(area string) string {
	if n, err := strconv.ParseUint(area, 10, 32); err == nil {
		return fmt.Sprintf("%d.%d.%d.%d", n>>24, (n>>16)&0xff, (n>>8)&0xff, n&0xff)
	}
	return area
}

// sdnFabricInterfaceKeys are the keys of a node's interface property
// string in the order the Rust struct prints them
// (OpenfabricInterfaceProperties, OspfInterfaceProperties).
var sdnFabricInterfaceKeys = map[string][]string{
	"openfabric": {"name", "hello_multiplier", "ip", "ip6"},
	"ospf":       {"name", "ip"},
}

// normalizeInterface parses an interface property string and prints it
// back as PropertyString does: the struct's keys in its order, addresses
// in their canonical form.
func normalizeInterface(protocol, v string) string {
	kv := map[string]string{}
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		kv[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	var parts []string
	for _, k := range sdnFabricInterfaceKeys[protocol] {
		if val, ok := kv[k]; ok {
			if k == "ip" || k == "ip6" {
				val = normalizeIP(val)
			}
			if k == "hello_multiplier" {
				if n, err := strconv.Atoi(val); err == nil {
					val = strconv.Itoa(n)
				}
			}
			parts = append(parts, k+"="+val)
		}
	}
	return strings.Join(parts, ",")
}

func propertyStringValue(v, key string) string {
	for _, part := range strings.Split(v, ",") {
		if k, val, ok := strings.Cut(part, "="); ok && k == key {
			return val
		}
	}
	return ""
}

// sdnxPendingConfig is pve-network src/PVE/Network/SDN.pm pending_config
// on API objects (the fabrics and nodes handlers pass the Rust config's
// lists): the running objects with their running values, "deleted" when
// the current config lost them, "changed" when a value differs or went
// away (pending "deleted"); then the current objects, each value that is
// new or differs under "pending" ("type" and "vnet" at top level), "new"
// when not running. Values compare in encode_value's form: an
// "interfaces" list sorted and joined by commas.
func sdnxPendingConfig(running, current map[string]map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	get := func(id string) map[string]any {
		if out[id] == nil {
			out[id] = map[string]any{}
		}
		return out[id]
	}
	pending := func(o map[string]any) map[string]any {
		p, _ := o["pending"].(map[string]any)
		if p == nil {
			p = map[string]any{}
			o["pending"] = p
		}
		return p
	}
	finish := func(o map[string]any) {
		if o["state"] != nil && o["pending"] == nil {
			o["pending"] = map[string]any{}
		}
	}
	for _, id := range sortedKeys(running) {
		r, cfg := running[id], current[id]
		o := get(id)
		for _, k := range sortedKeys(r) {
			o[k] = r[k]
			cv, ok := cfg[k]
			switch {
			case len(cfg) == 0:
				o["state"] = "deleted"
			case !ok:
				pending(o)[k] = "deleted"
				o["state"] = "changed"
			case encodeSDNValue(k, r[k]) != encodeSDNValue(k, cv):
				o["state"] = "changed"
			}
		}
		finish(o)
	}
	for _, id := range sortedKeys(current) {
		cfg, r := current[id], running[id]
		o := get(id)
		for _, k := range sortedKeys(cfg) {
			rv, ok := r[k]
			cv := encodeSDNValue(k, cfg[k])
			if k == "type" || k == "vnet" {
				o[k] = cv
			} else if !ok || cv != encodeSDNValue(k, rv) {
				pending(o)[k] = cfg[k]
			}
			switch {
			case len(r) == 0:
				o["state"] = "new"
			case !ok:
				o["state"] = "changed"
			}
		}
		finish(o)
	}
	return out
}

// encodeSDNValue is pve-network src/PVE/Network/SDN.pm encode_value for an
// API value: the list keys sorted and joined by commas, anything else as
// Perl prints it.
func encodeSDNValue(key string, v any) string {
	switch x := v.(type) {
	case []string:
		if key == "nodes" || key == "exitnodes" || key == "dhcp-range" || key == "interfaces" {
			s := append([]string{}, x...)
			sort.Strings(s)
			return strings.Join(s, ",")
		}
		return fmt.Sprint(x)
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}
