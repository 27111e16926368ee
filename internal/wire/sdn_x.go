package wire

import (
	"regexp"
	"sort"
	"strings"
)

// SDN controllers, IPAMs and DNS servers (/cluster/sdn/controllers,
// /cluster/sdn/ipams, /cluster/sdn/dns): PVE's section configs
// controllers.cfg, ipams.cfg and dns.cfg, one plugin per type. The tables
// say which options each type takes.
//
// Sources: pve-network src/PVE/Network/SDN/Controllers/*Plugin.pm,
// Ipams/*Plugin.pm and Dns/*Plugin.pm options() (which keys a type takes;
// "optional => 0" keys are required) and properties() (their types), the
// plugins' on_update_hook (cross-option checks), and the API schemas of
// POST /cluster/sdn/controllers, /ipams and /dns for PVE 9.1 and 8.4 (which
// keys each release has). None of these options is fixed at creation: PUT
// takes them all; only the type and the id cannot change.

// SDNPluginOptionKind is how an option is typed on the wire.
type SDNPluginOptionKind int

const (
	// SDNPluginString is a plain string.
	SDNPluginString SDNPluginOptionKind = iota
	// SDNPluginBool is a boolean (1/0 on the wire).
	SDNPluginBool
	// SDNPluginInt is an integer.
	SDNPluginInt
	// SDNPluginList is a list PVE splits with pve-common's split_list
	// (commas, semicolons or spaces): peers, isis-ifaces.
	SDNPluginList
)

// SDNPluginOption is one key of an SDN plugin's section config.
type SDNPluginOption struct {
	// Key is PVE's key.
	Key string
	// Kind is its wire type.
	Kind SDNPluginOptionKind
	// Sensitive options are credentials: write-only in the provider.
	Sensitive bool
	// Since9 options exist only from PVE 9.0 on (not in 8.4's schema).
	Since9 bool
	// Min and Max bound an integer (HasMin/HasMax tell whether they apply).
	Min, Max       int64
	HasMin, HasMax bool
	// Pattern is the value's full-match pattern, empty when free.
	Pattern string
	// PatternText says what Pattern accepts, for error texts.
	PatternText string
	// Description says what the option does (user-facing).
	Description string
}

// SDNPluginTypeOption is an option as one type takes it.
type SDNPluginTypeOption struct {
	SDNPluginOption
	// Required options must be given at creation and cannot be removed.
	Required bool
}

// SDNPluginType is one plugin type: its name and its options.
type SDNPluginType struct {
	// Name is PVE's type (evpn, bgp, netbox, ...).
	Name string
	// Title names the type for people.
	Title string
	// Options are the keys the type takes (not type and the id).
	Options []SDNPluginTypeOption
}

// Option returns the type's option key.
func (t SDNPluginType) Option(key string) (SDNPluginTypeOption, bool) {
	for _, o := range t.Options {
		if o.Key == key {
			return o, true
		}
	}
	return SDNPluginTypeOption{}, false
}

// SDNPluginFamily is one kind of SDN plugin object: controllers, IPAMs or
// DNS servers.
type SDNPluginFamily struct {
	// Kind is the object kind in the provider's SDN ids ("controller",
	// "ipam", "dns").
	Kind string
	// Path is the collection's API path.
	Path string
	// IDKey is the id's parameter name in POST ("controller", "ipam",
	// "dns").
	IDKey string
	// Staged families are written into the pending configuration and take
	// effect with the SDN apply (controllers); the others take effect at
	// once (IPAMs and DNS servers: pve-network's apply compiles zones,
	// vnets, subnets, controllers and fabrics only).
	Staged bool
	// Types are the plugin types the provider manages.
	Types []SDNPluginType
}

// Type returns the family's type name.
func (f SDNPluginFamily) Type(name string) (SDNPluginType, bool) {
	for _, t := range f.Types {
		if t.Name == name {
			return t, true
		}
	}
	return SDNPluginType{}, false
}

// TypeNames are the family's type names, in table order.
func (f SDNPluginFamily) TypeNames() []string {
	out := make([]string, len(f.Types))
	for i, t := range f.Types {
		out[i] = t.Name
	}
	return out
}

// Options are all options any type of the family takes, each once, in
// table order of first appearance.
func (f SDNPluginFamily) Options() []SDNPluginOption {
	var out []SDNPluginOption
	seen := map[string]bool{}
	for _, t := range f.Types {
		for _, o := range t.Options {
			if !seen[o.Key] {
				seen[o.Key] = true
				out = append(out, o.SDNPluginOption)
			}
		}
	}
	return out
}

// TypesTaking names the family's types that take key, in table order.
func (f SDNPluginFamily) TypesTaking(key string) []string {
	var out []string
	for _, t := range f.Types {
		if _, ok := t.Option(key); ok {
			out = append(out, t.Name)
		}
	}
	return out
}

// SDNPluginAttributeName is the Terraform attribute name of a key: '-'
// turned to '_'.
func SDNPluginAttributeName(key string) string { return strings.ReplaceAll(key, "-", "_") }

// SplitSDNList splits a list value as PVE does (pve-common
// src/PVE/ParseUtils.pm split_list: commas, semicolons and white space all
// separate), sorted, empty items dropped.
func SplitSDNList(v string) []string {
	items := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' })
	sort.Strings(items)
	return items
}

// JoinSDNList is the wire form of a list: sorted, comma-separated.
func JoinSDNList(items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	return strings.Join(items, ",")
}

// SDN plugin object ids (pve-network src/PVE/Network/SDN/Controllers/Plugin.pm
// parse_sdn_controller_id, Ipams/Plugin.pm parse_sdn_ipam_id,
// Dns/Plugin.pm parse_sdn_dns_id; lengths from the 9.1 schema).
var (
	sdnControllerIDPattern = lazyPattern(`^[a-zA-Z][a-zA-Z0-9_-]*[a-zA-Z0-9]$`)
	sdnPluginIDPattern     = lazyPattern(`^[a-zA-Z][a-zA-Z0-9]*[a-zA-Z0-9]$`)
)

// IsSDNControllerID reports whether s is a controller id: a letter, then
// letters, digits, '-' or '_', ending with a letter or digit; 2 to 64
// characters.
func IsSDNControllerID(s string) bool {
	return len(s) <= 64 && sdnControllerIDPattern().MatchString(s)
}

// IsSDNPluginID reports whether s is an IPAM or DNS id: a letter, then
// letters or digits; at least 2 characters.
func IsSDNPluginID(s string) bool { return sdnPluginIDPattern().MatchString(s) }

// IsSDNPluginIDFor checks the id of family f.
func IsSDNPluginIDFor(f SDNPluginFamily, s string) bool {
	if f.Kind == SDNControllers.Kind {
		return IsSDNControllerID(s)
	}
	return IsSDNPluginID(s)
}

// SDNPluginIDRule says in words what IsSDNPluginIDFor accepts.
func SDNPluginIDRule(f SDNPluginFamily) string {
	if f.Kind == SDNControllers.Kind {
		return "a letter, then letters, digits, '-' or '_', ending with a letter or digit (2 to 64 characters)"
	}
	return "a letter, then letters or digits (at least 2 characters)"
}

// isisNetPattern is pve-sdn-isis-net (pve-network
// src/PVE/Network/SDN/Controllers/IsisPlugin.pm pve_verify_sdn_isis_net).
const isisNetPattern = `^[a-fA-F0-9]{2}(\.[a-fA-F0-9]{4}){3,9}\.[a-fA-F0-9]{2}$`

// sdnFingerprintPattern is the schemas' pattern of fingerprint.
const sdnFingerprintPattern = `^([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}$`

// The options, each defined once.
var (
	sdnASN = SDNPluginOption{Key: "asn", Kind: SDNPluginInt, Min: 0, Max: 4294967295, HasMin: true, HasMax: true,
		Description: "The autonomous system number."}
	sdnPeers = SDNPluginOption{Key: "peers", Kind: SDNPluginList,
		Description: "The BGP peers' IP addresses."}
	sdnFabric = SDNPluginOption{Key: "fabric", Since9: true, Pattern: `^[a-zA-Z0-9][a-zA-Z0-9-]{0,6}[a-zA-Z0-9]$`,
		PatternText: "must be a fabric id (2 to 8 letters, digits or '-', not starting or ending with '-')",
		Description: "PVE 9 and later: the SDN fabric used as underlay; PVE builds the peer list from it."}
	sdnNode = SDNPluginOption{Key: "node", Pattern: `^[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?$`, PatternText: "must be a node name",
		Description: "The node the controller runs on."}
	sdnMultipath = SDNPluginOption{Key: "bgp-multipath-as-path-relax", Kind: SDNPluginBool,
		Description: "Consider different AS paths of equal length for multipath computation."}
	sdnEBGP      = SDNPluginOption{Key: "ebgp", Kind: SDNPluginBool, Description: "Enable eBGP (remote-as external)."}
	sdnMultihop  = SDNPluginOption{Key: "ebgp-multihop", Kind: SDNPluginInt, Description: "The maximum number of hops to eBGP peers (needs `ebgp`)."}
	sdnLoopback  = SDNPluginOption{Key: "loopback", Description: "The loopback or dummy interface that provides the router IP."}
	sdnISISDom   = SDNPluginOption{Key: "isis-domain", Description: "The IS-IS domain's name."}
	sdnISISNet   = SDNPluginOption{Key: "isis-net", Pattern: isisNetPattern, PatternText: "must be an IS-IS network entity title such as 49.0001.1921.6800.1002.00", Description: "The network entity title of this node in the IS-IS network."}
	sdnISISIface = SDNPluginOption{Key: "isis-ifaces", Kind: SDNPluginList, Description: "The interfaces IS-IS runs on."}
	sdnURL       = SDNPluginOption{Key: "url", Description: "The API's URL."}
	sdnToken     = SDNPluginOption{Key: "token", Sensitive: true, Description: "The API token."}
	sdnSection   = SDNPluginOption{Key: "section", Kind: SDNPluginInt, Description: "The phpIPAM section's id."}
	sdnFprint    = SDNPluginOption{Key: "fingerprint", Pattern: sdnFingerprintPattern, PatternText: "must be 32 hex byte pairs separated by ':'",
		Description: "The server certificate's SHA-256 fingerprint (`XX:XX:...`, 32 bytes), for a self-signed certificate."}
	sdnKey   = SDNPluginOption{Key: "key", Sensitive: true, Description: "The API key."}
	sdnTTL   = SDNPluginOption{Key: "ttl", Kind: SDNPluginInt, Description: "The TTL of the records PVE writes, in seconds."}
	sdnRevV6 = SDNPluginOption{Key: "reversemaskv6", Kind: SDNPluginInt, Description: "A netmask for IPv6 reverse zone names other than the subnet's."}
)

func sdnReq(o SDNPluginOption) SDNPluginTypeOption {
	return SDNPluginTypeOption{SDNPluginOption: o, Required: true}
}
func sdnOpt(o SDNPluginOption) SDNPluginTypeOption { return SDNPluginTypeOption{SDNPluginOption: o} }

// SDNControllers are the controller types: evpn, bgp and isis
// (Controllers/EvpnPlugin.pm, BgpPlugin.pm, IsisPlugin.pm options()).
// PVE's faucet type has no options and no function; it is left out.
var SDNControllers = SDNPluginFamily{Kind: "controller", Path: "/cluster/sdn/controllers", IDKey: "controller", Staged: true, Types: []SDNPluginType{
	// On PVE 8.4 peers is required; from 9.0 on exactly one of peers and
	// fabric (EvpnPlugin.pm on_update_hook "must have exactly one of peers
	// / fabric defined").
	{Name: "evpn", Title: "EVPN", Options: []SDNPluginTypeOption{sdnReq(sdnASN), sdnOpt(sdnPeers), sdnOpt(sdnFabric)}},
	{Name: "bgp", Title: "BGP", Options: []SDNPluginTypeOption{
		sdnReq(sdnNode), sdnReq(sdnASN), sdnReq(sdnPeers), sdnOpt(sdnMultipath), sdnOpt(sdnEBGP), sdnOpt(sdnMultihop), sdnOpt(sdnLoopback),
	}},
	{Name: "isis", Title: "IS-IS", Options: []SDNPluginTypeOption{
		sdnReq(sdnISISDom), sdnReq(sdnISISNet), sdnReq(sdnISISIface), sdnReq(sdnNode), sdnOpt(sdnLoopback),
	}},
}}

// SDNIPAMs are the IPAM types (Ipams/PVEPlugin.pm, NetboxPlugin.pm,
// PhpIpamPlugin.pm options()).
var SDNIPAMs = SDNPluginFamily{Kind: "ipam", Path: "/cluster/sdn/ipams", IDKey: "ipam", Types: []SDNPluginType{
	{Name: "pve", Title: "PVE's built-in IPAM"},
	{Name: "netbox", Title: "NetBox", Options: []SDNPluginTypeOption{sdnReq(sdnURL), sdnReq(sdnToken), sdnOpt(sdnFprint)}},
	{Name: "phpipam", Title: "phpIPAM", Options: []SDNPluginTypeOption{sdnReq(sdnURL), sdnReq(sdnToken), sdnReq(sdnSection), sdnOpt(sdnFprint)}},
}}

// SDNDNSServers are the DNS types (Dns/PowerdnsPlugin.pm options();
// reversev6mask is in the API schema but in no plugin's options, so PVE
// refuses it).
var SDNDNSServers = SDNPluginFamily{Kind: "dns", Path: "/cluster/sdn/dns", IDKey: "dns", Types: []SDNPluginType{
	{Name: "powerdns", Title: "PowerDNS", Options: []SDNPluginTypeOption{
		sdnReq(sdnURL), sdnReq(sdnKey), sdnOpt(sdnTTL), sdnOpt(sdnRevV6), sdnOpt(sdnFprint),
	}},
}}

// SDNPluginPattern compiles an option's pattern (nil when it has none).
func SDNPluginPattern(o SDNPluginOption) *regexp.Regexp {
	if o.Pattern == "" {
		return nil
	}
	return regexp.MustCompile(o.Pattern)
}

// SDNPluginOptionsFromAPI puts a GET answer of a plugin object in the form a
// write sends: the type's options only (no type, id, digest, state or
// pending), sensitive options dropped, lists sorted and comma-joined,
// booleans 1/0, numbers in decimal.
func SDNPluginOptionsFromAPI(t SDNPluginType, raw map[string]any) map[string]string {
	out := map[string]string{}
	for _, o := range t.Options {
		v, ok := raw[o.Key]
		if !ok || v == nil || o.Sensitive {
			continue
		}
		s := scalarText(v)
		switch o.Kind {
		case SDNPluginList:
			s = JoinSDNList(SplitSDNList(s))
		case SDNPluginBool:
			if b, err := ParseBool(s); err == nil {
				s = Bool(b)
			}
		}
		out[o.Key] = s
	}
	return out
}
