package pvesim

import (
	"sort"
	"strings"
)

// The SDN configuration under /etc/pve/sdn as pve-network keeps it: one
// section config file per kind (zones.cfg, vnets.cfg, subnets.cfg,
// controllers.cfg, ipams.cfg, dns.cfg, fabrics.cfg), which every API write
// changes, and .running-config, the JSON document PUT /cluster/sdn compiles
// from the files (pve-network src/PVE/Network/SDN.pm compile_running_cfg).
// What the files hold and the running config does not is "pending"
// (SDN.pm pending_config).

// The SDN kinds: each is a section config file and the key of its part of
// the running config.
const (
	SDNZones       = "zones"
	SDNVnets       = "vnets"
	SDNSubnets     = "subnets"
	SDNControllers = "controllers"
	SDNIpams       = "ipams"
	SDNDNS         = "dns"
	SDNFabrics     = "fabrics"
)

// sdnCompiledKinds are the kinds PUT /cluster/sdn copies into the running
// config: pve-network src/PVE/Network/SDN.pm compile_running_cfg (vnets,
// zones, controllers, subnets, fabrics). ipams and dns are not staged: a
// write takes effect at once.
var sdnCompiledKinds = []string{SDNVnets, SDNZones, SDNControllers, SDNSubnets, SDNFabrics}

// sdnPendingKinds are the kinds whose pending entries count as pending
// changes (the lock's allow-pending check): pve-network
// src/PVE/Network/SDN.pm has_pending_changes ("only use configuration files
// which get written by commit_config": zones, vnets, subnets,
// controllers).
var sdnPendingKinds = []string{SDNZones, SDNVnets, SDNSubnets, SDNControllers}

// SDNObject is one section of an SDN config file. Props are its options as
// SectionConfig stores them, in the form pve-network's encode_value prints
// them: lists (nodes, exitnodes, dhcp-range, interfaces) sorted and joined
// by commas, booleans and integers as decimal numbers. The section's type
// is Type, not a Props key.
type SDNObject struct {
	Type  string
	Props map[string]string
	// order is the section's place in its file (SectionConfig's order:
	// parse order, a new section last).
	order int
}

func (o *SDNObject) clone() *SDNObject {
	return &SDNObject{Type: o.Type, Props: copyMap(o.Props), order: o.order}
}

// flat is the object as pending_config sees it: its options plus "type".
func (o *SDNObject) flat() map[string]string {
	out := copyMap(o.Props)
	out["type"] = o.Type
	return out
}

// SDNConfig is one section config file of /etc/pve/sdn: the staged
// configuration of one kind, by id.
type SDNConfig struct {
	IDs map[string]*SDNObject
}

// SDNRunning is /etc/pve/sdn/.running-config: the configuration the last
// apply compiled. Version is 0 and Kinds empty when SDN was never applied
// (the file does not exist).
type SDNRunning struct {
	Version int
	Kinds   map[string]map[string]*SDNObject
	// vnetSince is the version each running vnet first ran in: a node
	// whose network runs an older version has no bridge for it.
	vnetSince map[string]int
}

// SDNState is the cluster's SDN configuration.
type SDNState struct {
	Files   map[string]*SDNConfig
	Running SDNRunning
	// LockToken is /etc/pve/sdn/.lock, the global lock's token (PVE 9);
	// "" when nobody holds the lock (pve-network src/PVE/Network/SDN.pm
	// create_global_lock, delete_global_lock).
	LockToken string
	// NodeVersion is the running config version each node's network runs
	// (the version line of /etc/network/interfaces.d/sdn, pve-network
	// src/PVE/Network/SDN/Zones.pm read_etc_network_config_version): set
	// when an apply's reload worker is done.
	NodeVersion map[string]int
	// PVEIpam is the built-in IPAM's database (sdn_subnets.go), nil until
	// a subnet of a zone using it is created.
	PVEIpam SDNPVEIpam
}

func newSDNState() *SDNState {
	return &SDNState{
		Files:       map[string]*SDNConfig{},
		Running:     SDNRunning{Kinds: map[string]map[string]*SDNObject{}},
		NodeVersion: map[string]int{},
	}
}

// File is the kind's config file; a file that does not exist reads empty.
func (sd *SDNState) File(kind string) *SDNConfig {
	f := sd.Files[kind]
	if f == nil {
		f = &SDNConfig{IDs: map[string]*SDNObject{}}
		sd.Files[kind] = f
	}
	return f
}

// Get is the staged object kind/id, or nil.
func (sd *SDNState) Get(kind, id string) *SDNObject {
	return sd.File(kind).IDs[id]
}

// Put stages an object: a new section goes last in its file, a replaced one
// keeps its place (pve-common src/PVE/SectionConfig.pm write_config).
func (sd *SDNState) Put(kind, id string, obj *SDNObject) {
	f := sd.File(kind)
	if old := f.IDs[id]; old != nil {
		obj.order = old.order
	} else {
		max := 0
		for _, o := range f.IDs {
			if o.order > max {
				max = o.order
			}
		}
		obj.order = max + 1
	}
	if obj.Props == nil {
		obj.Props = map[string]string{}
	}
	f.IDs[id] = obj
}

// Remove drops kind/id from its file; it reports whether it was there.
func (sd *SDNState) Remove(kind, id string) bool {
	f := sd.File(kind)
	_, ok := f.IDs[id]
	delete(f.IDs, id)
	return ok
}

// vnetOnNode tells whether a node's network has the bridge of a running
// vnet: the vnet's zone includes the node and the node runs a version the
// vnet is part of.
func (sd *SDNState) vnetOnNode(vnet, node string) bool {
	v := sd.RunningObject(SDNVnets, vnet)
	if v == nil {
		return false
	}
	z := sd.RunningObject(SDNZones, v.Props["zone"])
	if z == nil {
		return false
	}
	if nodes := sdnZoneNodes(z); nodes != nil && !nodes[node] {
		return false
	}
	local := sd.NodeVersion[node]
	return local > 0 && local >= sd.Running.vnetSince[vnet]
}

// RunningObject is kind/id in the running config, or nil.
func (sd *SDNState) RunningObject(kind, id string) *SDNObject {
	return sd.Running.Kinds[kind][id]
}

// sortedIDs are a file's ids in file order.
func (f *SDNConfig) sortedIDs() []string {
	ids := sortedKeys(f.IDs)
	sort.SliceStable(ids, func(i, j int) bool { return f.IDs[ids[i]].order < f.IDs[ids[j]].order })
	return ids
}

// Digest is the file's digest: SHA-1 of its text (pve-common
// src/PVE/SectionConfig.pm parse_config). The text is write_config's:
// sections in file order, "type: id", the options tab-indented. inferred:
// the options are written sorted (write_config puts a plugin's required
// options first); only the digest's value depends on it.
func (sd *SDNState) Digest(kind string) string {
	f := sd.File(kind)
	var b strings.Builder
	for _, id := range f.sortedIDs() {
		o := f.IDs[id]
		renderSection(&b, o.Type, id, o.Props)
	}
	return haSectionDigest(b.String())
}

// SDNView is which configuration a GET shows.
type SDNView int

// The views of GET /cluster/sdn/<kind>: the files (default), running=1
// and pending=1.
const (
	SDNViewConfig SDNView = iota
	SDNViewRunning
	SDNViewPending
)

// SDNEntry is one object as a view shows it. Props are the top-level
// values, "type" included; in the pending view those are the running
// values (type, and a subnet's vnet, come from the files), State is "new",
// "changed", "deleted" or "" and Pending the staged values that differ,
// a removed option as "deleted" (nil when State is "").
type SDNEntry struct {
	ID      string
	Props   map[string]string
	State   string
	Pending map[string]string
}

// Type is the entry's section type.
func (e SDNEntry) Type() string { return e.Props["type"] }

// View lists a kind's objects in a view, sorted by id.
func (sd *SDNState) View(kind string, view SDNView) []SDNEntry {
	var src map[string]*SDNObject
	switch view {
	case SDNViewPending:
		return sd.pendingView(kind)
	case SDNViewRunning:
		src = sd.Running.Kinds[kind]
	default:
		src = sd.File(kind).IDs
	}
	out := make([]SDNEntry, 0, len(src))
	for _, id := range sortedKeys(src) {
		out = append(out, SDNEntry{ID: id, Props: src[id].flat()})
	}
	return out
}

// Entry is kind/id in a view, or false when the view does not show it.
func (sd *SDNState) Entry(kind, id string, view SDNView) (SDNEntry, bool) {
	for _, e := range sd.View(kind, view) {
		if e.ID == id {
			return e, true
		}
	}
	return SDNEntry{}, false
}

// pendingView is pve-network src/PVE/Network/SDN.pm pending_config: every
// object of the running config with its running values, marked deleted
// when the file lost it and changed when an option differs or went away
// (the option then pending as "deleted"); then every object of the file:
// its type (and a subnet's vnet) at top level, each option that is new or
// differs pending, the object new when it is not running. Values compare
// in encode_value's form, which is how Props store them.
func (sd *SDNState) pendingView(kind string) []SDNEntry {
	running := sd.Running.Kinds[kind]
	files := sd.File(kind).IDs
	entries := map[string]*SDNEntry{}
	get := func(id string) *SDNEntry {
		e := entries[id]
		if e == nil {
			e = &SDNEntry{ID: id, Props: map[string]string{}}
			entries[id] = e
		}
		return e
	}
	setPending := func(e *SDNEntry, k, v string) {
		if e.Pending == nil {
			e.Pending = map[string]string{}
		}
		e.Pending[k] = v
	}
	for _, id := range sortedKeys(running) {
		r := running[id].flat()
		var cfg map[string]string
		if o := files[id]; o != nil {
			cfg = o.flat()
		}
		e := get(id)
		for _, k := range sortedKeys(r) {
			e.Props[k] = r[k]
			cv, ok := cfg[k]
			switch {
			case cfg == nil:
				e.State = "deleted"
			case !ok:
				setPending(e, k, "deleted")
				e.State = "changed"
			case sdnEncode(k, cv) != sdnEncode(k, r[k]):
				e.State = "changed"
			}
		}
		if e.State != "" && e.Pending == nil {
			e.Pending = map[string]string{}
		}
	}
	for _, id := range sortedKeys(files) {
		cfg := files[id].flat()
		var r map[string]string
		if o := running[id]; o != nil {
			r = o.flat()
		}
		e := get(id)
		for _, k := range sortedKeys(cfg) {
			rv, ok := r[k]
			if k == "type" || k == "vnet" {
				e.Props[k] = cfg[k]
			} else if !ok || sdnEncode(k, cfg[k]) != sdnEncode(k, rv) {
				setPending(e, k, cfg[k])
			}
			switch {
			case r == nil:
				e.State = "new"
			case !ok:
				e.State = "changed"
			}
		}
		if e.State != "" && e.Pending == nil {
			e.Pending = map[string]string{}
		}
	}
	out := make([]SDNEntry, 0, len(entries))
	for _, id := range sortedKeys(entries) {
		out = append(out, *entries[id])
	}
	return out
}

// HasPendingChanges is pve-network src/PVE/Network/SDN.pm
// has_pending_changes: an entry of zones, vnets, subnets or controllers
// with a pending part.
func (sd *SDNState) HasPendingChanges() bool {
	for _, kind := range sdnPendingKinds {
		for _, e := range sd.pendingView(kind) {
			if e.Pending != nil {
				return true
			}
		}
	}
	return false
}

// Commit is pve-network src/PVE/Network/SDN.pm compile_running_cfg and
// commit_config: the running config becomes a copy of the compiled kinds'
// files, its version bumped (1 the first time).
func (sd *SDNState) Commit() {
	kinds := map[string]map[string]*SDNObject{}
	for _, kind := range sdnCompiledKinds {
		ids := map[string]*SDNObject{}
		for id, o := range sd.File(kind).IDs {
			ids[id] = o.clone()
		}
		kinds[kind] = ids
	}
	version := sd.Running.Version + 1
	since := map[string]int{}
	for id := range kinds[SDNVnets] {
		if v, ok := sd.Running.vnetSince[id]; ok {
			since[id] = v
		} else {
			since[id] = version
		}
	}
	sd.Running = SDNRunning{Version: version, Kinds: kinds, vnetSince: since}
}

// Rollback is pve-network src/PVE/API2/Network/SDN.pm rollback: the files
// of the compiled kinds are written back from the running config (a kind the
// running config lacks becomes empty).
func (sd *SDNState) Rollback() {
	for _, kind := range sdnCompiledKinds {
		f := &SDNConfig{IDs: map[string]*SDNObject{}}
		for id, o := range sd.Running.Kinds[kind] {
			f.IDs[id] = o.clone()
		}
		sd.Files[kind] = f
	}
}
