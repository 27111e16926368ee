package wire

import (
	"net/netip"
	"regexp"
	"sort"
	"strings"
)

// SDN zones, vnets and subnets (/cluster/sdn): one table of the zone types
// with exactly the options each takes, and the vnet and subnet options.
//
// Sources: pve-network src/PVE/Network/SDN/Zones/*Plugin.pm options()
// (which keys a type takes; "optional => 0" keys are required) and
// properties(), src/PVE/Network/SDN/VnetPlugin.pm and SubnetPlugin.pm
// properties() and options(), and the API schemas of POST
// /cluster/sdn/zones, /vnets and /vnets/{vnet}/subnets for PVE 9.1 and 8.4
// (which keys each release has). faucet is not offered: PVE's own plugin
// list leaves it out of the GUI and it has no options of its own besides
// dp-id.

// SDNOptionKind is how an SDN option is typed on the wire.
type SDNOptionKind int

const (
	// SDNString is a plain string.
	SDNString SDNOptionKind = iota
	// SDNBool is a boolean (1/0 on the wire).
	SDNBool
	// SDNInt is an integer.
	SDNInt
	// SDNNodeList is a set of names or addresses sent comma-separated;
	// PVE splits it on commas, semicolons or spaces (pve-common
	// split_list) and answers nodes and exitnodes sorted (pve-network
	// src/PVE/Network/SDN.pm encode_value).
	SDNNodeList
)

// SDNOption is one key of a zone's, vnet's or subnet's section config.
type SDNOption struct {
	// Key is PVE's key.
	Key string
	// Kind is its wire type.
	Kind SDNOptionKind
	// Enum lists the accepted values of an enumerated string.
	Enum []string
	// Min and Max bound an integer (HasMin/HasMax tell whether they apply).
	Min, Max       int64
	HasMin, HasMax bool
	// Since9 options exist only from PVE 9.0 on (not in 8.4's schema).
	Since9 bool
	// FilledByPVE options are set by PVE when a create does not give them.
	FilledByPVE bool
	// Description says what the option does (user-facing).
	Description string
}

// SDNAttributeName is the Terraform attribute name of a key: '-' turned
// to '_'.
func SDNAttributeName(key string) string { return strings.ReplaceAll(key, "-", "_") }

// SDNZoneTypeOption is an option as one zone type takes it.
type SDNZoneTypeOption struct {
	SDNOption
	// Required options must be given at creation.
	Required bool
}

// SDNZoneType is one zone type and its options.
type SDNZoneType struct {
	// Name is PVE's type.
	Name string
	// Title names the type for people.
	Title string
	// Options are the keys the type takes (not type and zone).
	Options []SDNZoneTypeOption
}

// Option returns the type's option key.
func (t SDNZoneType) Option(key string) (SDNZoneTypeOption, bool) {
	for _, o := range t.Options {
		if o.Key == key {
			return o, true
		}
	}
	return SDNZoneTypeOption{}, false
}

// The zone options, each defined once (pve-network
// src/PVE/Network/SDN/Zones/*Plugin.pm properties()).
var (
	zoNodes = SDNOption{Key: "nodes", Kind: SDNNodeList,
		Description: "The nodes the zone is deployed on; all nodes when not set."}
	zoMTU = SDNOption{Key: "mtu", Kind: SDNInt,
		Description: "The MTU of the zone's vnet bridges (PVE's default depends on the type: the bridge's for vlan and qinq, 1450 for vxlan and evpn)."}
	zoDNS        = SDNOption{Key: "dns", Description: "The DNS server (`pve_sdn_dns` id) that registers the guests' names."}
	zoReverseDNS = SDNOption{Key: "reversedns", Description: "The DNS server (`pve_sdn_dns` id) for reverse lookups."}
	zoDNSZone    = SDNOption{Key: "dnszone", Description: "The DNS domain of the zone's guests; needs `dns`."}
	zoIPAM       = SDNOption{Key: "ipam", Description: "The IPAM (`pve_sdn_ipam` id, `pve` for PVE's built-in one) that allocates the subnets' addresses."}
	zoDHCP       = SDNOption{Key: "dhcp", Enum: []string{"dnsmasq"},
		Description: "The DHCP server that serves the subnets' `dhcp_range`s: `dnsmasq` (installed on the nodes)."}
	zoBridge = SDNOption{Key: "bridge",
		Description: "The node bridge (for example `vmbr0`) that carries the zone's VLANs."}
	zoNoMACLearning = SDNOption{Key: "bridge-disable-mac-learning", Kind: SDNBool,
		Description: "Disable MAC address learning on the bridge ports."}
	zoTag = SDNOption{Key: "tag", Kind: SDNInt, Min: 0, HasMin: true,
		Description: "The service VLAN tag (outer tag) of the QinQ zone."}
	zoVlanProtocol = SDNOption{Key: "vlan-protocol", Enum: []string{"802.1q", "802.1ad"},
		Description: "The protocol of the outer VLAN tag: `802.1q` or `802.1ad` (PVE's default: `802.1q`)."}
	zoPeers = SDNOption{Key: "peers", Kind: SDNNodeList,
		Description: "The IP addresses of the nodes' VXLAN endpoints (the underlay). Exactly one of `peers` and `fabric` is set."}
	zoVxlanPort = SDNOption{Key: "vxlan-port", Kind: SDNInt, Min: 1, Max: 65536, HasMin: true, HasMax: true,
		Description: "The UDP port of VXLAN (PVE's default: 4789)."}
	zoFabric = SDNOption{Key: "fabric", Since9: true,
		Description: "PVE 9 and later: the fabric (`pve_sdn_fabric` id) whose nodes are the VXLAN peers. Exactly one of `peers` and `fabric` is set."}
	zoVrfVxlan = SDNOption{Key: "vrf-vxlan", Kind: SDNInt, Min: 1, Max: 16777215, HasMin: true, HasMax: true,
		Description: "The VXLAN id (VNI) of the zone's VRF; unique among EVPN zones."}
	zoController = SDNOption{Key: "controller", Description: "The EVPN controller (`pve_sdn_controller` id of type `evpn`)."}
	zoExitNodes  = SDNOption{Key: "exitnodes", Kind: SDNNodeList,
		Description: "The nodes that route the zone's traffic to the outside."}
	zoExitLocalRouting = SDNOption{Key: "exitnodes-local-routing", Kind: SDNBool,
		Description: "Create routes on the exit nodes so that they can reach the zone's guests themselves."}
	zoExitPrimary = SDNOption{Key: "exitnodes-primary", Description: "The exit node traffic goes through first."}
	zoAdvertise   = SDNOption{Key: "advertise-subnets", Kind: SDNBool,
		Description: "Advertise the subnets' prefixes (type-5 routes) instead of each guest's MAC and IP (type-2)."}
	zoNoARPSuppress = SDNOption{Key: "disable-arp-nd-suppression", Kind: SDNBool,
		Description: "Do not suppress ARP and IPv6 neighbour discovery messages."}
	zoRTImport = SDNOption{Key: "rt-import", Description: "Route targets to import, comma-separated (`ASN:NUMBER`)."}
	// PVE draws a MAC for an evpn zone without one (Zones/EvpnPlugin.pm
	// on_update_hook, random_ether_addr with the datacenter's mac_prefix).
	zoMAC = SDNOption{Key: "mac", FilledByPVE: true,
		Description: "The MAC address of the zone's anycast gateway. When not set, PVE draws one at creation and state shows it; removing it later keeps PVE's."}
)

func zreq(o SDNOption) SDNZoneTypeOption { return SDNZoneTypeOption{SDNOption: o, Required: true} }
func zopts(os ...SDNOption) []SDNZoneTypeOption {
	out := make([]SDNZoneTypeOption, len(os))
	for i, o := range os {
		out[i] = SDNZoneTypeOption{SDNOption: o}
	}
	return out
}

// zoneCommon are the options every zone type takes.
func zoneCommon(extra ...SDNZoneTypeOption) []SDNZoneTypeOption {
	return append(extra, zopts(zoNodes, zoMTU, zoDNS, zoReverseDNS, zoDNSZone, zoIPAM)...)
}

// SDNZoneTypes are the zone types (Zones/SimplePlugin.pm, VlanPlugin.pm,
// QinQPlugin.pm, VxlanPlugin.pm, EvpnPlugin.pm options()).
var SDNZoneTypes = []SDNZoneType{
	{Name: "simple", Title: "Simple", Options: zoneCommon(zopts(zoDHCP)...)},
	{Name: "vlan", Title: "VLAN", Options: zoneCommon(zreq(zoBridge), SDNZoneTypeOption{SDNOption: zoNoMACLearning})},
	{Name: "qinq", Title: "QinQ", Options: zoneCommon(append([]SDNZoneTypeOption{zreq(zoBridge), zreq(zoTag)},
		zopts(zoNoMACLearning, zoVlanProtocol)...)...)},
	{Name: "vxlan", Title: "VXLAN", Options: zoneCommon(zopts(zoPeers, zoVxlanPort, zoFabric)...)},
	{Name: "evpn", Title: "EVPN", Options: zoneCommon(append([]SDNZoneTypeOption{zreq(zoVrfVxlan), zreq(zoController)},
		zopts(zoExitNodes, zoExitLocalRouting, zoExitPrimary, zoAdvertise, zoNoARPSuppress, zoNoMACLearning,
			zoRTImport, zoVxlanPort, zoMAC)...)...)},
}

// SDNZoneTypeByName returns the table entry of zone type name.
func SDNZoneTypeByName(name string) (SDNZoneType, bool) {
	for _, t := range SDNZoneTypes {
		if t.Name == name {
			return t, true
		}
	}
	return SDNZoneType{}, false
}

// SDNZoneTypeNames are the zone types' names in table order.
func SDNZoneTypeNames() []string {
	out := make([]string, len(SDNZoneTypes))
	for i, t := range SDNZoneTypes {
		out[i] = t.Name
	}
	return out
}

// SDNZoneOptions is every option some zone type takes, once, sorted by
// key.
func SDNZoneOptions() []SDNOption {
	seen := map[string]bool{}
	var out []SDNOption
	for _, t := range SDNZoneTypes {
		for _, o := range t.Options {
			if !seen[o.Key] {
				seen[o.Key] = true
				out = append(out, o.SDNOption)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// SDNZoneTypesTaking lists the zone types taking key.
func SDNZoneTypesTaking(key string) []string {
	var out []string
	for _, t := range SDNZoneTypes {
		if _, ok := t.Option(key); ok {
			out = append(out, t.Name)
		}
	}
	return out
}

// SDNVnetOptions are the vnet's options besides zone (VnetPlugin.pm
// properties(), options()).
var SDNVnetOptions = []SDNOption{
	{Key: "tag", Kind: SDNInt, Min: 1, Max: 16777215, HasMin: true, HasMax: true,
		Description: "The VLAN tag (vlan and qinq zones) or VXLAN id (vxlan and evpn zones) of the vnet; required in those zones, not taken by simple zones."},
	{Key: "alias", Description: "A display name of the vnet (up to 256 characters)."},
	{Key: "vlanaware", Kind: SDNBool, Description: "Let guests use VLAN tags inside the vnet (not in evpn zones)."},
	{Key: "isolate-ports", Kind: SDNBool, Description: "Isolate the guests' ports on the vnet's bridge from each other (they reach only non-isolated ports)."},
}

// SDNSubnetOptions are the subnet's scalar options (SubnetPlugin.pm
// properties(), options()); dhcp-range is an array of property strings,
// handled apart.
var SDNSubnetOptions = []SDNOption{
	{Key: "gateway", Description: "The gateway address, inside the subnet (layer-3 zones put it on the vnet's bridge)."},
	{Key: "snat", Kind: SDNBool, Description: "Masquerade (source NAT) traffic from the subnet leaving through the node."},
	{Key: "dnszoneprefix", Description: "A DNS prefix of the guests' names (`adm` gives `HOST.adm.DNSZONE`)."},
	{Key: "dhcp-dns-server", Description: "The DNS server address DHCP hands out."},
}

// SDNKeyDHCPRange is the subnet's list of DHCP ranges.
const SDNKeyDHCPRange = "dhcp-range"

// sdnIDPattern is the zone's and the vnet's id: 2 to 8 characters, a
// letter first, then letters and digits (pve-network
// src/PVE/Network/SDN/Zones/Plugin.pm parse_sdn_zone_id, VnetPlugin.pm
// parse_sdn_vnet_id; API schema: len=2..8).
var sdnIDPattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9]*[a-zA-Z0-9]$`)

// IsSDNZoneID reports whether s is a valid zone or vnet id.
func IsSDNZoneID(s string) bool { return len(s) >= 2 && len(s) <= 8 && sdnIDPattern.MatchString(s) }

// SDNIDRule says what IsSDNZoneID accepts, for error texts.
const SDNIDRule = "2 to 8 letters or digits, starting with a letter"

// SplitSDNNodeList splits a node, exit node or peer list the way PVE does
// (pve-common src/PVE/Tools.pm split_list: commas, semicolons, spaces).
func SplitSDNNodeList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' })
}

// CanonicalCIDR returns the CIDR as PVE keys a subnet: the network address
// and the prefix length; ok is false when s is no CIDR or has host bits set
// (pve-network src/PVE/Network/SDN/SubnetPlugin.pm parse_sdn_subnet_id
// verifies cidrv4/cidrv6, and PVE's id is the network address).
func CanonicalCIDR(s string) (canon string, ok bool) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return "", false
	}
	if p.Masked() != p {
		return p.Masked().String(), false
	}
	return p.String(), true
}
