package pvesim

import (
	"net/http"
	"net/netip"
)

// SDN IPAMs and DNS servers: pve-network src/PVE/API2/Network/SDN/Ipams.pm
// and Dns.pm over src/PVE/Network/SDN/Ipams/*Plugin.pm and
// Dns/PowerdnsPlugin.pm. ipams.cfg and dns.cfg are not staged: there is no
// pending or running view, a write takes effect at once (it still takes
// the SDN lock).
//
// Secrets: the plugins keep the IPAM token and the DNS key as plain options
// of ipams.cfg and dns.cfg, and the read and list handlers return the whole
// section ($api_sdn_ipams_config, $api_sdn_dns_config: a dclone of it), so
// GET answers them as PVE does; pve-manager's edit windows
// (www/manager6/sdn/ipams/NetboxEdit.js) load the token from there.
//
// Permissions, as the handlers declare them: the list shows an entry only
// with SDN.Audit or SDN.Allocate on /sdn/<kind>/<id>; read needs
// SDN.Allocate on /sdn/<kind>/{id}; create, update and delete SDN.Allocate
// on /sdn/<kind>.

// sdnPluginKind is what differs between the IPAM and the DNS handlers.
type sdnPluginKind struct {
	kind  string // SDNIpams, SDNDNS
	idKey string // "ipam", "dns": the id parameter and answer key
	types map[string]map[string]bool
	// createErr, updateErr, deleteErr are the lock_sdn_config messages.
	createErr, updateErr, deleteErr string
	// verify is the plugin's on_update_hook on the section about to be
	// written.
	verify func(c *call, typ string, props map[string]string) error
}

var sdnIpamKind = &sdnPluginKind{
	kind: SDNIpams, idKey: "ipam",
	// pve-network src/PVE/Network/SDN/Ipams/{PVE,Netbox,PhpIpam}Plugin.pm
	// options; the same on 8.4. PVEPlugin's options() is empty: the
	// built-in IPAM takes no option.
	types: map[string]map[string]bool{
		"pve":     {},
		"netbox":  {"url": true, "token": true, "fingerprint": false},
		"phpipam": {"url": true, "token": true, "section": true, "fingerprint": false},
	},
	// Ipams.pm delete names its failure "delete sdn zone object failed".
	createErr: "create sdn ipam object failed", updateErr: "update sdn ipam object failed",
	deleteErr: "delete sdn zone object failed",
	verify:    sdnxVerifyIpam,
}

var sdnDNSKind = &sdnPluginKind{
	kind: SDNDNS, idKey: "dns",
	// pve-network src/PVE/Network/SDN/Dns/PowerdnsPlugin.pm options; the
	// same on 8.4. "reversev6mask", in the API's schema, is no option of
	// powerdns.
	types: map[string]map[string]bool{
		"powerdns": {"url": true, "key": true, "ttl": false, "reversemaskv6": false, "fingerprint": false},
	},
	createErr: "create sdn dns object failed", updateErr: "update sdn dns object failed",
	deleteErr: "delete sdn dns object failed",
	verify:    sdnxVerifyDNS,
}

func (s *Sim) registerSDNPluginRoutes(k *sdnPluginKind) {
	base := "/cluster/sdn/" + k.kind
	allocate := permission{path: "/sdn/" + k.kind, privs: []string{"SDN.Allocate"}}
	s.handle(http.MethodGet, base, route{handle: func(c *call) (any, error) { return s.listSDNPlugins(c, k) }})
	s.handle(http.MethodGet, base+"/{"+k.idKey+"}", route{
		perm:   permission{path: "/sdn/" + k.kind + "/{" + k.idKey + "}", privs: []string{"SDN.Allocate"}},
		handle: func(c *call) (any, error) { return s.readSDNPlugin(c, k) },
	})
	s.handle(http.MethodPost, base, route{perm: allocate, handle: func(c *call) (any, error) { return s.createSDNPlugin(c, k) }})
	s.handle(http.MethodPut, base+"/{"+k.idKey+"}", route{perm: allocate, handle: func(c *call) (any, error) { return s.updateSDNPlugin(c, k) }})
	s.handle(http.MethodDelete, base+"/{"+k.idKey+"}", route{perm: allocate, handle: func(c *call) (any, error) { return s.deleteSDNPlugin(c, k) }})
	if k.kind == SDNIpams {
		// Ipams.pm ipamindex: user => 'all', filtered per vnet.
		s.handle(http.MethodGet, base+"/{ipam}/status", route{handle: s.sdnIpamStatus})
	}
}

// config is the kind's configuration as pve-network reads it: the file;
// for IPAMs the built-in "pve" IPAM is always there (pve-network
// src/PVE/Network/SDN/Ipams.pm config: "add default internal pve").
func (k *sdnPluginKind) config(sd *SDNState) map[string]*SDNObject {
	out := map[string]*SDNObject{}
	for id, o := range sd.File(k.kind).IDs {
		out[id] = o
	}
	if k.kind == SDNIpams && out["pve"] == nil {
		out["pve"] = &SDNObject{Type: "pve", Props: map[string]string{}}
	}
	return out
}

// write stores the configuration read by config: for IPAMs that writes
// the built-in "pve" section into ipams.cfg unless the write removed it.
func (k *sdnPluginKind) write(sd *SDNState, removed string) {
	if k.kind == SDNIpams && removed != "pve" && sd.Get(SDNIpams, "pve") == nil {
		sd.Put(SDNIpams, "pve", &SDNObject{Type: "pve", Props: map[string]string{}})
	}
}

func (s *Sim) sdnPluginAnswer(k *sdnPluginKind, id string, o *SDNObject) map[string]any {
	return s.sdnAnswer(k.kind, k.idKey, SDNEntry{ID: id, Props: o.flat()}, SDNViewConfig)
}

// listSDNPlugins is Ipams.pm / Dns.pm index: every entry the caller may
// see, of the type asked for, each with all its options and the digest.
func (s *Sim) listSDNPlugins(c *call, k *sdnPluginKind) (any, error) {
	cfg := k.config(c.cluster.SDN)
	typ := c.str("type")
	out := []map[string]any{}
	for _, id := range sortedKeys(cfg) {
		if !c.can("/sdn/"+k.kind+"/"+id, true, "SDN.Audit", "SDN.Allocate") {
			continue
		}
		if typ != "" && cfg[id].Type != typ {
			continue
		}
		out = append(out, s.sdnPluginAnswer(k, id, cfg[id]))
	}
	return out, nil
}

// readSDNPlugin is pve-network src/PVE/API2/Network/SDN/Ipams.pm / Dns.pm read; sdn_ipams_config and
// sdn_dns_config die "sdn 'ID' does not exist".
func (s *Sim) readSDNPlugin(c *call, k *sdnPluginKind) (any, error) {
	id := c.str(k.idKey)
	o := k.config(c.cluster.SDN)[id]
	if o == nil {
		return nil, errorf("sdn '%s' does not exist", id)
	}
	return s.sdnPluginAnswer(k, id, o), nil
}

// createSDNPlugin is pve-network src/PVE/API2/Network/SDN/Ipams.pm / Dns.pm create: check_config outside the
// lock, then under lock_sdn_config the id check and the plugin's
// on_update_hook (the external API's check).
func (s *Sim) createSDNPlugin(c *call, k *sdnPluginKind) (any, error) {
	typ, id := c.str("type"), c.str(k.idKey)
	opts, err := sdnxCheckConfig(c, k.types[typ], sdnxRequestOptions(c, "type", k.idKey, "lock-token"), true)
	if err != nil {
		return nil, err
	}
	sd := c.cluster.SDN
	return nil, sdnxLocked(c, k.createErr, func() error {
		if k.config(sd)[id] != nil {
			return errorf("sdn %s object ID '%s' already defined", k.idKey, id)
		}
		if err := k.verify(c, typ, opts); err != nil {
			return err
		}
		// The model was unlocked during the check.
		if k.config(sd)[id] != nil {
			return errorf("sdn %s object ID '%s' already defined", k.idKey, id)
		}
		k.write(sd, "")
		sd.Put(k.kind, id, &SDNObject{Type: typ, Props: opts})
		return nil
	})
}

// updateSDNPlugin is pve-network src/PVE/API2/Network/SDN/Ipams.pm / Dns.pm update: under lock_sdn_config the
// digest, the entry's existence, check_config, the deletions, the new
// values and on_update_hook on the merged section.
func (s *Sim) updateSDNPlugin(c *call, k *sdnPluginKind) (any, error) {
	id := c.str(k.idKey)
	params := sdnxRequestOptions(c, k.idKey, "digest", "delete", "lock-token")
	sd := c.cluster.SDN
	return nil, sdnxLocked(c, k.updateErr, func() error {
		if err := sdnxAssertDigest(c, sd.Digest(k.kind)); err != nil {
			return err
		}
		cur := k.config(sd)[id]
		if cur == nil {
			return errorf("sdn '%s' does not exist", id)
		}
		typeOpts := k.types[cur.Type]
		opts, err := sdnxCheckConfig(c, typeOpts, params, false)
		if err != nil {
			return err
		}
		obj := cur.clone()
		if del, ok := c.param("delete"); ok {
			if err := sdnxDeleteFromConfig(obj.Props, typeOpts, opts, del); err != nil {
				return err
			}
		}
		for key, v := range opts {
			obj.Props[key] = v
		}
		if err := k.verify(c, obj.Type, obj.Props); err != nil {
			return err
		}
		if k.config(sd)[id] == nil {
			// Deleted while the model was unlocked for the check.
			return errorf("sdn '%s' does not exist", id)
		}
		k.write(sd, "")
		sd.Put(k.kind, id, obj)
		return nil
	})
}

// deleteSDNPlugin is pve-network src/PVE/API2/Network/SDN/Ipams.pm / Dns.pm delete: no check of the zones that
// name the entry. Deleting the built-in "pve" IPAM drops its section from
// ipams.cfg, and config brings it back.
func (s *Sim) deleteSDNPlugin(c *call, k *sdnPluginKind) (any, error) {
	id := c.str(k.idKey)
	sd := c.cluster.SDN
	return nil, sdnxLocked(c, k.deleteErr, func() error {
		if k.config(sd)[id] == nil {
			return errorf("sdn '%s' does not exist", id)
		}
		k.write(sd, id)
		sd.Remove(k.kind, id)
		return nil
	})
}

// sdnxVerifyIpam is the IPAM plugins' on_update_hook: pve-network src/PVE/Network/SDN/Ipams/NetboxPlugin.pm
// verify_api (GET URL/ipam/aggregates/ with "Authorization: token T"),
// PhpIpamPlugin.pm verify_api (GET URL/sections/SECTION with "Token: T");
// the built-in IPAM checks nothing.
func sdnxVerifyIpam(c *call, typ string, p map[string]string) error {
	switch typ {
	case "netbox":
		if err := sdnxAPIRequest(c, p["url"]+"/ipam/aggregates/", map[string]string{
			"Content-Type": "application/json; charset=UTF-8", "Authorization": "token " + p["token"],
		}, p["fingerprint"]); err != nil {
			return errorf("Can't connect to netbox api: %s", asAPIError(err).Error())
		}
	case "phpipam":
		if err := sdnxAPIRequest(c, p["url"]+"/sections/"+p["section"], map[string]string{
			"Content-Type": "application/json; charset=UTF-8", "Token": p["token"],
		}, p["fingerprint"]); err != nil {
			return errorf("Can't connect to phpipam api: %s", asAPIError(err).Error())
		}
	}
	return nil
}

// sdnxVerifyDNS is pve-network src/PVE/Network/SDN/Dns/PowerdnsPlugin.pm on_update_hook: GET URL with
// "X-API-Key: KEY" ("verify that api is working").
func sdnxVerifyDNS(c *call, _ string, p map[string]string) error {
	if err := sdnxAPIRequest(c, p["url"], map[string]string{
		"Content-Type": "application/json; charset=UTF-8", "X-API-Key": p["key"],
	}, p["fingerprint"]); err != nil {
		return errorf("dns api error: %s", asAPIError(err).Error())
	}
	return nil
}

// sdnIpamStatus is pve-network src/PVE/API2/Network/SDN/Ipams.pm
// ipamindex (GET /cluster/sdn/ipams/{ipam}/status): the built-in IPAM's
// addresses of every zone whose running config uses the "pve" IPAM with
// DHCP, each under the running vnet whose running subnet holds the
// subnet's address, shown where the caller has SDN.Audit or SDN.Allocate
// on /sdn/zones/<zone>/<vnet>. Other IPAMs fail ("Currently only PVE
// IPAM is supported!", a die without newline: suffix left out).
func (s *Sim) sdnIpamStatus(c *call) (any, error) {
	if c.str("ipam") != "pve" {
		return nil, errorf("Currently only PVE IPAM is supported!")
	}
	sd := c.cluster.SDN
	running := sd.Running.Kinds
	out := []map[string]any{}
	db := sd.pveIpam()
	for _, zone := range sortedKeys(db) {
		z := running[SDNZones][zone]
		if z == nil || z.Props["ipam"] != "pve" || !perlTruthy(z.Props["dhcp"]) {
			continue
		}
		for _, cidr := range sortedKeys(db[zone]) {
			prefix, ok := sdnPrefix(cidr)
			if !ok {
				continue
			}
			vnet := sdnIpamSubnetVnet(sd, zone, prefix.Addr().String())
			if vnet == "" || !c.can("/sdn/zones/"+zone+"/"+vnet, true, "SDN.Audit", "SDN.Allocate") {
				continue
			}
			for _, ip := range sortedKeys(db[zone][cidr]) {
				e := db[zone][cidr][ip]
				entry := map[string]any{"zone": zone, "subnet": cidr, "ip": ip, "vnet": vnet}
				if e.Gateway {
					entry["gateway"] = 1
				}
				if e.VMID != 0 {
					entry["vmid"] = e.VMID
				}
				if e.Hostname != "" {
					entry["hostname"] = e.Hostname
				}
				if e.MAC != "" {
					entry["mac"] = e.MAC
				}
				out = append(out, entry)
			}
		}
	}
	return out, nil
}

// sdnIpamSubnetVnet is the vnet of the zone (running config) that
// Vnets.pm get_subnet_from_vnet_ip finds the address in: a running subnet
// of the vnet whose network holds it (Subnets.pm find_ip_subnet), the vnet
// still in the staged config.
func sdnIpamSubnetVnet(sd *SDNState, zone, addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return ""
	}
	vnets := sd.Running.Kinds[SDNVnets]
	for _, vnet := range sortedKeys(vnets) {
		if vnets[vnet].Props["zone"] != zone || sd.Get(SDNVnets, vnet) == nil {
			continue
		}
		subnets := sd.Running.Kinds[SDNSubnets]
		for _, id := range sortedKeys(subnets) {
			if subnets[id].Props["vnet"] != vnet {
				continue
			}
			if p, ok := sdnPrefix(sdnSubnetCIDR(id)); ok && p.Contains(ip) {
				return vnet
			}
		}
	}
	return ""
}
