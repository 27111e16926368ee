package pvesim

import (
	"crypto/sha1" //nolint:gosec // SectionConfig's digest is SHA-1; not a security use
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// HA groups (ha/groups.cfg) and HA rules (ha/rules.cfg) as
// pve-ha-manager stores and prints them.

// haNodeEntry matches one entry of a node list: pve-ha-manager
// src/PVE/HA/Tools.pm pve_verify_ha_node (9.x) / pve_verify_ha_group_node
// (8.4), and parse_node_priority.
var haNodeEntry = regexp.MustCompile(`^([a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?)(?::(\d+))?$`)

// haSplitList is pve-common src/PVE/Tools.pm split_list: commas,
// semicolons and white space separate.
func haSplitList(s string) []string {
	if strings.Contains(s, "\x00") {
		return strings.Split(s, "\x00")
	}
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// haParseNodePriority is pve-ha-manager src/PVE/HA/Tools.pm
// parse_node_priority: a node without priority has priority 0.
func haParseNodePriority(entry string) (string, int, bool) {
	m := haNodeEntry.FindStringSubmatch(entry)
	if m == nil {
		return "", 0, false
	}
	pri := 0
	if m[2] != "" {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			// Perl's int() of a huge number is a float; keep the
			// simulator simple and refuse it as a parse failure.
			return "", 0, false
		}
		pri = n
	}
	return m[1], pri, true
}

// haGroupNodes is pve-ha-manager src/PVE/HA/Groups.pm decode_value for
// 'nodes': every entry is a hash key as written ("pve1:2"), so an entry
// given twice is kept once and "pve1:1,pve1:2" keeps both. The entries
// are returned sorted: PVE prints them in Perl hash order (encode_value
// joins keys %$value), which is no order at all; sorted is the
// simulator's deterministic stand-in, and differs from the written order
// as PVE's does.
func haGroupNodes(value string) ([]string, string) {
	seen := map[string]bool{}
	for _, e := range haSplitList(value) {
		if !haNodeEntry.MatchString(e) {
			return nil, e
		}
		seen[e] = true
	}
	return sortedKeys(seen), ""
}

// haRuleNodes is pve-ha-manager src/PVE/HA/Rules/NodeAffinity.pm
// decode_plugin_value for 'nodes': node -> priority, a later entry for
// the same node wins; entries parse_node_priority refuses are dropped
// (noerr).
func haRuleNodes(value string) map[string]int {
	out := map[string]int{}
	for _, e := range haSplitList(value) {
		if n, p, ok := haParseNodePriority(e); ok {
			out[n] = p
		}
	}
	return out
}

// haEncodeRuleNodes is NodeAffinity.pm encode_plugin_value: nodes sorted,
// ":priority" only when the priority is not 0.
func haEncodeRuleNodes(nodes map[string]int) string {
	parts := make([]string, 0, len(nodes))
	for _, n := range sortedKeys(nodes) {
		if p := nodes[n]; p != 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", n, p))
		} else {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, ",")
}

// haRuleResources is pve-ha-manager src/PVE/HA/Rules.pm decode_value for
// 'resources': a set of service ids.
func haRuleResources(value string) map[string]bool {
	out := map[string]bool{}
	for _, sid := range haSplitList(value) {
		out[sid] = true
	}
	return out
}

// haEncodeResources is Rules.pm encode_value for 'resources': sorted,
// joined by commas.
func haEncodeResources(set map[string]bool) string {
	return strings.Join(sortedKeys(set), ",")
}

// haSectionDigest is SectionConfig parse_config's digest: the SHA-1 of
// the file's text (pve-common src/PVE/SectionConfig.pm).
func haSectionDigest(text string) string {
	sum := sha1.Sum([]byte(text)) //nolint:gosec // see the import
	return hex.EncodeToString(sum[:])
}

// renderSection writes one section as SectionConfig write_config does:
// "type: id" and a tab-indented "key value" line per set option.
func renderSection(b *strings.Builder, typ, id string, props map[string]string) {
	fmt.Fprintf(b, "%s: %s\n", typ, id)
	for _, k := range sortedKeys(props) {
		if props[k] != "" {
			fmt.Fprintf(b, "\t%s %s\n", k, props[k])
		}
	}
	b.WriteString("\n")
}

// groupsDigest is the digest of ha/groups.cfg.
func (h *HAState) groupsDigest() string {
	var b strings.Builder
	for _, id := range sortedKeys(h.Groups) {
		renderSection(&b, "group", id, h.Groups[id].Props)
	}
	return haSectionDigest(b.String())
}

// rulesDigest is the digest of ha/rules.cfg, whose sections
// SectionConfig writes in the rules' order.
func (h *HAState) rulesDigest() string {
	var b strings.Builder
	for _, id := range h.sortedRuleIDs(h.Rules) {
		r := h.Rules[id]
		renderSection(&b, r.Type, id, r.Props)
	}
	return haSectionDigest(b.String())
}

// sortedRuleIDs orders rules by their ordinal (pve-ha-manager
// src/PVE/HA/Rules.pm foreach_rule sorted => 1). Equal ordinals, which
// get_next_ordinal produces, come in Perl hash order on PVE; here by id.
func (h *HAState) sortedRuleIDs(rules map[string]*HARule) []string {
	ids := sortedKeys(rules)
	sort.SliceStable(ids, func(i, j int) bool { return rules[ids[i]].Order < rules[ids[j]].Order })
	return ids
}

// nextRuleOrdinal is pve-ha-manager src/PVE/HA/Rules.pm get_next_ordinal:
// the lowest ordinal in use plus one (it sorts ascending and takes the
// first), or 1 when there is no rule.
func nextRuleOrdinal(rules map[string]*HARule) int {
	lowest := 0
	first := true
	for _, r := range rules {
		if first || r.Order < lowest {
			lowest, first = r.Order, false
		}
	}
	return lowest + 1
}

// haConfigGroupsMigrated is pve-ha-manager src/PVE/HA/Config.pm
// have_groups_been_migrated as the 9.x API checks it. PVE 8.4 has no such
// check (the group endpoints always work and there are no rules).
func (s *Sim) haConfigGroupsMigrated(cl *Cluster) bool {
	return s.pve.release != "8.4" && cl.HA.GroupsMigrated
}
