package pvesim

import "sort"

// haRuleFeasibility is pve-ha-manager src/PVE/HA/Rules.pm
// check_feasibility: the checks of the rule plugins in their registration
// order (node-affinity, resource-affinity: PVE/HA/Env/PVE2.pm), then the
// checks between rule types; disabled rules take no part. The result maps
// a rule to its messages per option. The node list is the manager's
// (manager_status node_status); the simulator's HA manager knows every
// cluster node.
func haRuleFeasibility(rules map[string]*HARule, cl *Cluster) map[string]map[string][]string {
	errs := map[string]map[string][]string{}
	add := func(id, msg string) {
		if errs[id] == nil {
			errs[id] = map[string][]string{}
		}
		errs[id]["resources"] = append(errs[id]["resources"], msg)
	}
	na, ra, pos, neg := map[string]*haRuleView{}, map[string]*haRuleView{}, map[string]*haRuleView{}, map[string]*haRuleView{}
	for id, r := range rules {
		v := newHARuleView(r)
		if v.disabled() {
			continue
		}
		switch r.Type {
		case "node-affinity":
			na[id] = v
		case "resource-affinity":
			ra[id] = v
			switch r.Props["affinity"] {
			case "positive":
				pos[id] = v
			case "negative":
				neg[id] = v
			}
		}
	}

	// NodeAffinity.pm check_single_resource_reference
	for _, c := range haSingleResourceReference(na) {
		add(c[0], "resource '"+c[1]+"' is already used in another node affinity rule")
	}
	// ResourceAffinity.pm check_resource_affinity_resources_count
	for _, id := range sortedKeys(ra) {
		if len(ra[id].resources) < 2 {
			add(id, "rule is ineffective as there are less than two resources")
		}
	}
	// ResourceAffinity.pm check_negative_resource_affinity_resources_count
	for _, id := range sortedKeys(neg) {
		if len(neg[id].resources) > len(cl.Nodes) {
			add(id, "rule defines more resources than available nodes")
		}
	}
	// ResourceAffinity.pm check_inter_resource_affinity_rules_consistency
	var conflicts [][2]string
	for _, entry := range haDisjointRuleSets(pos) {
		for _, nid := range sortedKeys(neg) {
			if haIntersectCount(entry.resources, neg[nid].resources) < 2 {
				continue
			}
			conflicts = append(conflicts, [2]string{"negative", nid})
			for _, pid := range entry.ruleIDs {
				conflicts = append(conflicts, [2]string{"positive", pid})
			}
		}
	}
	for _, c := range haSortConflicts(conflicts) {
		if c[0] == "positive" {
			add(c[1], "rule shares two or more resources with a negative resource affinity rule")
		} else {
			add(c[1], "rule shares two or more resources with a positive resource affinity rule")
		}
	}
	// Rules.pm check_single_priority_node_affinity_in_resource_affinity_rules
	conflicts = nil
	for _, rid := range sortedKeys(ra) {
		multiple := false
		var paired []string
		for _, nid := range sortedKeys(na) {
			if haIntersectCount(ra[rid].resources, na[nid].resources) == 0 {
				continue
			}
			multiple = multiple || haMultiplePriorities(na[nid].nodes)
			paired = append(paired, nid)
		}
		if multiple {
			conflicts = append(conflicts, [2]string{"resource-affinity", rid})
			for _, nid := range paired {
				conflicts = append(conflicts, [2]string{"node-affinity", nid})
			}
		}
	}
	for _, c := range haSortConflicts(conflicts) {
		if c[0] == "node-affinity" {
			add(c[1], "resources are in a resource affinity rule and cannot be in a node affinity rule with multiple priorities")
		} else {
			add(c[1], "resources are in node affinity rules with multiple priorities")
		}
	}
	// Rules.pm check_single_node_affinity_per_positive_resource_affinity_rule
	conflicts = nil
	for _, entry := range haDisjointRuleSets(pos) {
		var paired []string
		for _, nid := range sortedKeys(na) {
			if haIntersectCount(entry.resources, na[nid].resources) > 0 {
				paired = append(paired, nid)
			}
		}
		if len(paired) > 1 {
			for _, pid := range entry.ruleIDs {
				conflicts = append(conflicts, [2]string{"positive", pid})
			}
			for _, nid := range paired {
				conflicts = append(conflicts, [2]string{"node-affinity", nid})
			}
		}
	}
	for _, c := range haSortConflicts(conflicts) {
		if c[0] == "positive" {
			add(c[1], "resources are in multiple node affinity rules")
		} else {
			add(c[1], "at least one resource is in a positive resource affinity rule and there are other resources in at least one other node affinity rule already")
		}
	}
	// Rules.pm check_negative_resource_affinity_node_affinity_consistency
	conflicts = nil
	for _, nid := range sortedKeys(neg) {
		allowed, located := map[string]bool{}, map[string]bool{}
		var paired []string
		for _, aid := range sortedKeys(na) {
			common := 0
			for sid := range neg[nid].resources {
				if na[aid].resources[sid] {
					located[sid] = true
					common++
				}
			}
			if common == 0 {
				continue
			}
			for n := range na[aid].nodes {
				allowed[n] = true
			}
			paired = append(paired, aid)
		}
		if len(allowed) < len(located) {
			conflicts = append(conflicts, [2]string{"negative", nid})
			for _, aid := range paired {
				conflicts = append(conflicts, [2]string{"node-affinity", aid})
			}
		}
	}
	for _, c := range haSortConflicts(conflicts) {
		if c[0] == "negative" {
			add(c[1], "two or more resources are restricted to less nodes than available to the resources")
		} else {
			add(c[1], "at least one resource is in a negative resource affinity rule and this rule would restrict these to less nodes than available to the resources")
		}
	}
	return errs
}

// haSingleResourceReference is NodeAffinity.pm
// check_single_resource_reference: (rule, resource) pairs where a
// resource is in more than one node-affinity rule, sorted.
func haSingleResourceReference(na map[string]*haRuleView) [][2]string {
	users := map[string][]string{}
	for id, v := range na {
		for sid := range v.resources {
			users[sid] = append(users[sid], id)
		}
	}
	var out [][2]string
	for sid, ids := range users {
		if len(ids) < 2 {
			continue
		}
		for _, id := range ids {
			out = append(out, [2]string{id, sid})
		}
	}
	return haSortConflicts(out)
}

func haSortConflicts(c [][2]string) [][2]string {
	sort.Slice(c, func(i, j int) bool {
		if c[i][0] != c[j][0] {
			return c[i][0] < c[j][0]
		}
		return c[i][1] < c[j][1]
	})
	return c
}

func haIntersectCount(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// haMultiplePriorities is Rules.pm $has_multiple_priorities.
func haMultiplePriorities(nodes map[string]int) bool {
	first, set := 0, false
	for _, p := range nodes {
		if !set {
			first, set = p, true
		} else if p != first {
			return true
		}
	}
	return false
}

type haDisjointSet struct {
	ruleIDs   []string
	resources map[string]bool
}

// haDisjointRuleSets is pve-ha-manager src/PVE/HA/Rules/Helpers.pm
// find_disjoint_rules_resource_sets: rules sorted by their lowest
// resource id (then id), each joining the first set it overlaps.
func haDisjointRuleSets(rules map[string]*haRuleView) []*haDisjointSet {
	ids := sortedKeys(rules)
	lowest := func(id string) string {
		ks := sortedKeys(rules[id].resources)
		if len(ks) == 0 {
			return ""
		}
		return ks[0]
	}
	sort.SliceStable(ids, func(i, j int) bool { return lowest(ids[i]) < lowest(ids[j]) })
	var out []*haDisjointSet
	for _, id := range ids {
		found := false
		for _, e := range out {
			if haIntersectCount(rules[id].resources, e.resources) == 0 {
				continue
			}
			found = true
			e.ruleIDs = append(e.ruleIDs, id)
			for sid := range rules[id].resources {
				e.resources[sid] = true
			}
			break
		}
		if !found {
			set := map[string]bool{}
			for sid := range rules[id].resources {
				set[sid] = true
			}
			out = append(out, &haDisjointSet{ruleIDs: []string{id}, resources: set})
		}
	}
	return out
}
