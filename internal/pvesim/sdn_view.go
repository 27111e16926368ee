package pvesim

import (
	"net/http"
	"strconv"
)

// sdnCreatePaths are the create methods whose parameters type each kind's
// options in answers. sdnsimx adds its kinds here.
var sdnCreatePaths = map[string]string{
	SDNZones:       "/cluster/sdn/zones",
	SDNVnets:       "/cluster/sdn/vnets",
	SDNSubnets:     "/cluster/sdn/vnets/{vnet}/subnets",
	SDNControllers: "/cluster/sdn/controllers",
	SDNIpams:       "/cluster/sdn/ipams",
	SDNDNS:         "/cluster/sdn/dns",
}

// sdnValue is an option's value as the API prints it: SectionConfig
// check_value stores booleans, integers and numbers as Perl numbers
// ("$value + 0", pve-common src/PVE/SectionConfig.pm check_value), which
// JSON prints bare; the running config keeps them so (to_json/from_json in
// pve-network src/PVE/Network/SDN.pm). Other values are strings.
func (s *Sim) sdnValue(kind, key, v string) any {
	path, ok := sdnCreatePaths[kind]
	if !ok {
		return v
	}
	m, _, _ := s.pve.api.Lookup(http.MethodPost, path)
	if m == nil {
		return v
	}
	info, ok := m.Param(key)
	if !ok {
		return v
	}
	switch info.Type {
	case "boolean", "integer":
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	case "number":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}

// SDNAnswer is one object as the SDN API prints it: the handlers'
// $api_sdn_<kind>_config (pve-network src/PVE/API2/Network/SDN/Zones.pm,
// Vnets.pm, Subnets.pm, Controllers.pm, ...): the object's values, its id
// under idKey ("zone", "vnet", "subnet", "controller", ...) and "digest",
// the file's digest in the default view. In the pending and running views
// the handlers copy the digest of a structure that has none, so the key is
// there with a null value. The pending view adds "state" and "pending".
func (s *Sim) sdnAnswer(kind, idKey string, e SDNEntry, view SDNView) map[string]any {
	out := map[string]any{}
	for k, v := range e.Props {
		out[k] = s.sdnValue(kind, k, v)
	}
	out[idKey] = e.ID
	if view == SDNViewConfig {
		out["digest"] = s.sdnDigest(kind)
	} else {
		out["digest"] = nil
	}
	if e.State != "" {
		out["state"] = e.State
	}
	if e.Pending != nil {
		p := map[string]any{}
		for k, v := range e.Pending {
			if v == "deleted" {
				p[k] = v
				continue
			}
			p[k] = s.sdnValue(kind, k, v)
		}
		out["pending"] = p
	}
	return out
}

// sdnDigest is the kind's file digest; it is only called with the model
// locked, from handlers.
func (s *Sim) sdnDigest(kind string) string {
	return s.cluster.SDN.Digest(kind)
}
