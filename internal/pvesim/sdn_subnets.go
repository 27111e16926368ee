package pvesim

import (
	"net/netip"
	"sort"
	"strings"
)

// Subnets: pve-network src/PVE/Network/SDN/SubnetPlugin.pm, Subnets.pm
// and the built-in IPAM, src/PVE/Network/SDN/Ipams/PVEPlugin.pm.

// sdnSubnetOptions is pve-network src/PVE/Network/SDN/SubnetPlugin.pm
// options (the same in pve-network 0.11.2, PVE 8.4).
var sdnSubnetOptions = map[string]sdnOption{
	"vnet": {false}, "gateway": {true}, "snat": {true}, "dnszoneprefix": {true},
	"dhcp-range": {true}, "dhcp-dns-server": {true},
}

// sdnSubnetID is the id pve-network src/PVE/API2/Network/SDN/Subnets.pm
// create gives a subnet: "<zone>-<cidr with / as ->", the cidr as given
// (no normalisation: 10.0.0.5/24 stays 10.0.0.5-24).
func sdnSubnetID(zone, cidr string) string {
	return zone + "-" + strings.ReplaceAll(cidr, "/", "-")
}

// sdnSubnetParts is pve-network src/PVE/Network/SDN/Subnets.pm
// sdn_subnets_config's split of the id on "-": zone, network, mask.
func sdnSubnetParts(id string) (zone, network, mask string) {
	parts := strings.Split(id, "-")
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2]
}

func sdnSubnetZone(id string) string {
	z, _, _ := sdnSubnetParts(id)
	return z
}

// sdnSubnetCIDR is the subnet's cidr, "<network>/<mask>".
func sdnSubnetCIDR(id string) string {
	_, n, m := sdnSubnetParts(id)
	return n + "/" + m
}

// sdnListItems splits a stored array option (dhcp-range), whose items are
// kept joined by NUL as the request gave them.
func sdnListItems(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, "\x00")
}

// sdnEncode is pve-network src/PVE/Network/SDN.pm encode_value: the list
// options compare as their sorted items joined by commas.
func sdnEncode(key, v string) string {
	if !sdnListKeys[key] || !strings.Contains(v, "\x00") {
		return v
	}
	items := sdnListItems(v)
	sort.Strings(items)
	return strings.Join(items, ",")
}

// sdnDHCPRanges is pve-network src/PVE/Network/SDN/Subnets.pm
// get_dhcp_ranges: each item parsed as a pve-sdn-dhcp-range property
// string (start-address, end-address); items that do not parse are
// skipped. The API schema has checked each item's format.
func (s *Sim) sdnDHCPRanges(v string) []map[string]string {
	out := []map[string]string{}
	for _, item := range sdnListItems(v) {
		r := map[string]string{}
		ok := true
		for _, kv := range strings.Split(item, ",") {
			k, val, found := strings.Cut(kv, "=")
			if !found || (k != "start-address" && k != "end-address") {
				ok = false
				break
			}
			r[k] = val
		}
		if ok && r["start-address"] != "" && r["end-address"] != "" {
			out = append(out, r)
		}
	}
	return out
}

// sdnPrefix parses a cidr as Net::Subnet's subnet_matcher does: the host
// bits are ignored.
func sdnPrefix(cidr string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Prefix{}, false
	}
	return p.Masked(), true
}

// sdnSubnetUpdateHook is pve-network src/PVE/Network/SDN/SubnetPlugin.pm
// on_update_hook: the vnet exists and is not vlan-aware, the gateway lies
// in the subnet (an IPv4 /32 may point elsewhere), the dhcp ranges pass
// validate_dhcp_ranges, and a zone with an IPAM registers the subnet and
// its gateway (the built-in "pve" IPAM only; old is nil on create).
func (s *Sim) sdnSubnetUpdateHook(sd *SDNState, id string, sub, old *SDNObject) error {
	cidr := sdnSubnetCIDR(id)
	_, _, mask := sdnSubnetParts(id)
	prefix, ok := sdnPrefix(cidr)
	if !ok {
		return errorf("invalid cidr '%s'", cidr) // not an API answer: the id passed the schema's pve-sdn-subnet-id
	}
	vnetID := sub.Props["vnet"]
	if vnetID != "" {
		v := sd.Get(SDNVnets, vnetID)
		if v == nil {
			return paramError(map[string]string{"vnet": vnetID + " don't exist"})
		}
		if pvegrammarTrue(v.Props["vlanaware"]) {
			return paramError(map[string]string{"vnet": "you can't add a subnet on a vlanaware vnet"})
		}
	}
	gw := sub.Props["gateway"]
	gwAddr, gwErr := netip.ParseAddr(gw)
	pointopoint := gwErr == nil && gwAddr.Is4() && mask == "32"
	if gw != "" && !pointopoint && (gwErr != nil || !prefix.Contains(gwAddr)) {
		return paramError(map[string]string{"gateway": gw + " is not in subnet " + cidr})
	}
	if err := s.sdnValidateDHCPRanges(sub.Props["dhcp-range"], cidr, prefix); err != nil {
		return err
	}
	zone := sd.Get(SDNZones, sdnSubnetZone(id))
	if zone == nil || zone.Props["ipam"] != "pve" {
		return nil
	}
	ipam := sd.pveIpam()
	zid := sdnSubnetZone(id)
	if old == nil {
		ipam.addSubnet(zid, cidr)
	}
	if pointopoint {
		return nil
	}
	oldGw := ""
	if old != nil {
		oldGw = old.Props["gateway"]
	}
	if gw == "" && oldGw != "" {
		ipam.delIP(zid, cidr, oldGw)
	}
	if oldGw == "" || gw != "" && gw != oldGw {
		if err := ipam.addIP(zid, cidr, gw, true); err != nil {
			return err
		}
	}
	if gw != "" && oldGw != "" && gw != oldGw {
		ipam.delIP(zid, cidr, oldGw)
	}
	return nil
}

// sdnValidateDHCPRanges is pve-network src/PVE/Network/SDN/SubnetPlugin.pm
// validate_dhcp_ranges.
func (s *Sim) sdnValidateDHCPRanges(v, cidr string, prefix netip.Prefix) error {
	type span struct{ lo, hi netip.Addr }
	var done []span
	fail := func(msg string) error { return paramError(map[string]string{"dhcp-range": msg}) }
	for _, r := range s.sdnDHCPRanges(v) {
		start, end := r["start-address"], r["end-address"]
		lo, err := netip.ParseAddr(start)
		if err != nil {
			return fail("start-address is not a valid IP " + start)
		}
		hi, err := netip.ParseAddr(end)
		if err != nil {
			return fail("end-address is not a valid IP " + end)
		}
		if lo.Compare(hi) > 0 {
			return fail("start-address " + start + " must be smaller than end-address " + end)
		}
		if !prefix.Contains(lo) {
			return fail("start-address " + start + " is not in subnet " + cidr)
		}
		if !prefix.Contains(hi) {
			return fail("end-address " + end + " is not in subnet " + cidr)
		}
		for _, d := range done {
			if lo.Compare(d.hi) <= 0 && d.lo.Compare(hi) <= 0 {
				return fail("dhcp ranges must not overlap")
			}
		}
		done = append(done, span{lo, hi})
	}
	return nil
}

// SDNIpamEntry is one address of the built-in IPAM's database
// (/etc/pve/priv/ipam.db): a subnet's gateway, or a guest's address.
type SDNIpamEntry struct {
	Gateway  bool
	VMID     int
	Hostname string
	MAC      string
}

// SDNPVEIpam is the built-in IPAM's database, pve-network
// src/PVE/Network/SDN/Ipams/PVEPlugin.pm: zone -> subnet cidr -> address.
type SDNPVEIpam map[string]map[string]map[string]*SDNIpamEntry

func (sd *SDNState) pveIpam() SDNPVEIpam {
	if sd.PVEIpam == nil {
		sd.PVEIpam = SDNPVEIpam{}
	}
	return sd.PVEIpam
}

// addSubnet is PVEPlugin.pm add_subnet: the subnet gets an empty address
// list unless it has one.
func (db SDNPVEIpam) addSubnet(zone, cidr string) {
	if db[zone] == nil {
		db[zone] = map[string]map[string]*SDNIpamEntry{}
	}
	if db[zone][cidr] == nil {
		db[zone][cidr] = map[string]*SDNIpamEntry{}
	}
}

// addIP is pve-network src/PVE/Network/SDN/Ipams/PVEPlugin.pm add_ip for a gateway (the only addresses the
// simulator registers).
func (db SDNPVEIpam) addIP(zone, cidr, ip string, gateway bool) error {
	if db[zone] == nil {
		return errorf("zone '%s' doesn't exist in IPAM DB", zone)
	}
	sub := db[zone][cidr]
	if sub == nil {
		return errorf("subnet '%s' doesn't exist in IPAM DB", cidr)
	}
	if e := sub[ip]; e != nil && (!gateway || !e.Gateway) {
		return errorf("IP '%s' already exist", ip)
	}
	sub[ip] = &SDNIpamEntry{Gateway: gateway}
	return nil
}

// delIP is PVEPlugin.pm del_ip; its errors are only warned about by the
// subnet hook (eval { ... }; warn if $@).
func (db SDNPVEIpam) delIP(zone, cidr, ip string) {
	if sub := db[zone][cidr]; sub != nil {
		delete(sub, ip)
	}
}

// delSubnet is pve-network src/PVE/Network/SDN/Ipams/PVEPlugin.pm
// del_subnet: a subnet with addresses stays,
// unless its one address is its gateway (only_gateway_remains).
func (db SDNPVEIpam) delSubnet(zone, cidr string) error {
	if db[zone] == nil {
		return errorf("zone '%s' doesn't exist in IPAM DB", zone)
	}
	sub := db[zone][cidr]
	if sub == nil {
		return errorf("subnet '%s' doesn't exist in IPAM DB", cidr)
	}
	onlyGateway := false
	for _, e := range sub {
		onlyGateway = len(sub) == 1 && e.Gateway
	}
	if len(sub) > 0 && !onlyGateway {
		return errorf("cannot delete subnet '%s', not empty", cidr)
	}
	delete(db[zone], cidr)
	return nil
}
