package pvesim

import (
	"strconv"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// The section config plugins of SDN controllers, IPAMs and DNS servers:
// which options each type takes (its options(): true for a required one)
// and the generic checks SectionConfig makes of a write.

// sdnControllerTypes is pve-network src/PVE/Network/SDN/Controllers/
// {Evpn,Bgp,Isis,Faucet}Plugin.pm options. PVE 8.4 (stable-bookworm
// EvpnPlugin.pm options) has no "fabric" and needs "peers" on an EVPN
// controller; 9.x takes either (on_update_hook).
func sdnControllerTypes(release string) map[string]map[string]bool {
	evpn := map[string]bool{"asn": true, "peers": false, "fabric": false}
	if release == "8.4" {
		evpn = map[string]bool{"asn": true, "peers": true}
	}
	return map[string]map[string]bool{
		"evpn": evpn,
		"bgp": {
			"node": true, "asn": true, "peers": true,
			"bgp-multipath-as-path-relax": false, "ebgp": false, "ebgp-multihop": false, "loopback": false,
		},
		"isis": {
			"isis-domain": true, "isis-net": true, "isis-ifaces": true, "node": true, "loopback": false,
		},
		// FaucetPlugin.pm has no options() (SectionConfig's default: none).
		"faucet": {},
	}
}

// sdnxCheckConfig is pve-common src/PVE/SectionConfig.pm check_config (with
// skipSchemaCheck, as the SDN handlers call it; the API schema has checked
// the values): every given option must be one of the type's, and a create
// must give every required one. Integers and booleans are stored as
// numbers ("$value + 0" in check_value). Perl walks the keys in hash
// order; the simulator names the first in sorted order.
func sdnxCheckConfig(c *call, opts map[string]bool, params map[string]string, create bool) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range sortedKeys(params) {
		if _, ok := opts[k]; !ok {
			return nil, errorf("unexpected property '%s'", k)
		}
		out[k] = sdnxNumify(c, k, params[k])
	}
	if create {
		for _, k := range sortedKeys(opts) {
			if _, ok := params[k]; opts[k] && !ok {
				return nil, errorf("missing value for required option '%s'", k)
			}
		}
	}
	return out, nil
}

// sdnxNumify is check_value's "$value + 0" for a parameter the method's
// schema types as integer or boolean.
func sdnxNumify(c *call, key, v string) string {
	if c.method == nil {
		return v
	}
	info, ok := c.method.Param(key)
	if !ok || (info.Type != "integer" && info.Type != "boolean") {
		return v
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return v
}

// sdnxDeleteFromConfig is pve-common src/PVE/SectionConfig.pm
// delete_from_config: each option of the "delete" list (PVE::Tools::
// split_list) must be one of the type's, optional, and not set in the same
// request.
func sdnxDeleteFromConfig(props map[string]string, opts map[string]bool, set map[string]string, del string) error {
	for _, k := range pvegrammar.SplitList(del) {
		required, ok := opts[k]
		if !ok {
			return errorf("no such option '%s'", k)
		}
		if required {
			return errorf("unable to delete required option '%s'", k)
		}
		if _, ok := set[k]; ok {
			return errorf("cannot set and delete property '%s' at the same time!", k)
		}
		delete(props, k)
	}
	return nil
}

// sdnxRequestOptions are the request's parameters other than the ones the
// handler extracts (extract_param) itself.
func sdnxRequestOptions(c *call, skip ...string) map[string]string {
	out := map[string]string{}
	for k, v := range c.params {
		if !containsString(skip, k) {
			out[k] = v
		}
	}
	return out
}

// sdnxLocked is the SDN core's sdnLocked (pve-network
// src/PVE/Network/SDN.pm lock_sdn_config) for a change that needs no
// argument.
func sdnxLocked(c *call, errmsg string, fn func() error) error {
	return sdnLocked(c, errmsg, func(*SDNState) error { return fn() })
}

// sdnxCandidate is the kind's staged objects with id replaced by obj (nil:
// removed), as the hooks see the configuration about to be written.
func sdnxCandidate(sd *SDNState, kind, id string, obj *SDNObject) map[string]*SDNObject {
	out := map[string]*SDNObject{}
	for k, o := range sd.File(kind).IDs {
		out[k] = o
	}
	if obj == nil {
		delete(out, id)
	} else {
		out[id] = obj
	}
	return out
}

// sdnxAssertDigest is pve-common src/PVE/Tools.pm assert_if_modified with
// the request's digest: a given digest must be the file's.
func sdnxAssertDigest(c *call, digest string) error {
	if d := c.str("digest"); d != "" && digest != "" && d != digest {
		return errorf("detected modified configuration - file changed by other user? Try again.")
	}
	return nil
}
