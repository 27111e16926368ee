package wire

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// HA groups (PVE 8) and HA rules (PVE 9): their ids and the node list
// with priorities, pve-ha-manager's "<node>[:<pri>]{,<node>[:<pri>]}*".

var (
	haNodePattern     = lazyPattern(`^[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?$`)
	haNodeEntry       = lazyPattern(`^([a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?)(?::([0-9]+))?$`)
	haRuleResourceSID = lazyPattern(`^[a-z]+:\S+$`)
)

// IsHAConfigID reports whether s is a valid HA group or rule id: PVE's
// pve-configid format (a letter, then letters, digits, '_' or '-', at
// least two characters).
func IsHAConfigID(s string) bool { return configIDPattern().MatchString(s) }

// IsHANodeName reports whether s may be a node of an HA node list
// (pve-ha-manager src/PVE/HA/Tools.pm pve_verify_ha_node, without the
// priority).
func IsHANodeName(s string) bool { return haNodePattern().MatchString(s) }

// IsHARuleResource reports whether s has the form of an HA resource id as
// a rule lists it: a type, ':' and a name ("vm:100", "ct:101";
// pve-ha-manager src/PVE/HA/Tools.pm pve_verify_ha_resource_id).
func IsHARuleResource(s string) bool { return haRuleResourceSID().MatchString(s) }

// FormatHANodeList writes node -> priority as PVE's node list: sorted by
// node, and a priority of 0 as the bare node name, which PVE reads as
// priority 0 (parse_node_priority) and prints back that way for rules
// (NodeAffinity.pm encode_plugin_value). Writing the same form for groups
// keeps what PVE prints equal to what was sent.
func FormatHANodeList(nodes map[string]int64) string {
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		if p := nodes[n]; p != 0 {
			parts = append(parts, n+":"+strconv.FormatInt(p, 10))
		} else {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, ",")
}

// ParseHANodeList reads PVE's node list in any order, with commas,
// semicolons or spaces between entries (pve-common split_list); a node
// without priority has priority 0. A node given twice keeps its highest
// priority: PVE keeps both entries of a group ("pve1:1,pve1:2") in no
// defined order, and the manager's choice between them is not defined
// either, so the highest is a stable reading.
func ParseHANodeList(s string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, e := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n'
	}) {
		m := haNodeEntry().FindStringSubmatch(e)
		if m == nil {
			return nil, fmt.Errorf("unable to parse HA node entry '%s'", e)
		}
		var p int64
		if m[2] != "" {
			n, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("HA node entry '%s': priority out of range", e)
			}
			p = n
		}
		if old, seen := out[m[1]]; !seen || p > old {
			out[m[1]] = p
		}
	}
	return out, nil
}

// HA rule types and resource affinities (pve-ha-manager
// src/PVE/HA/Rules/NodeAffinity.pm, ResourceAffinity.pm).
const (
	HARuleNodeAffinity     = "node-affinity"
	HARuleResourceAffinity = "resource-affinity"
)

// HARuleAffinities are a resource-affinity rule's affinity values.
var HARuleAffinities = []string{"positive", "negative"}
