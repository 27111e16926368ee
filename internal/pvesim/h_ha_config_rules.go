package pvesim

import (
	"net/http"
	"strconv"
	"strings"
)

// HA rules (PVE 9.x): pve-ha-manager src/PVE/API2/HA/Rules.pm. PVE 8.4's
// schema has no such paths, so the schema layer answers as for any
// unknown path.

func (s *Sim) registerHARuleRoutes(audit, console permission) {
	s.handle(http.MethodGet, "/cluster/ha/rules", route{perm: audit, handle: s.listHARules})
	s.handle(http.MethodPost, "/cluster/ha/rules", route{perm: console, handle: s.createHARule})
	s.handle(http.MethodGet, "/cluster/ha/rules/{rule}", route{perm: audit, handle: s.readHARule})
	s.handle(http.MethodPut, "/cluster/ha/rules/{rule}", route{perm: console, handle: s.updateHARule})
	s.handle(http.MethodDelete, "/cluster/ha/rules/{rule}", route{perm: console, handle: deleteHARule})
}

// haRuleOptions are the options each rule type takes and whether each is
// optional: pve-ha-manager src/PVE/HA/Rules/NodeAffinity.pm and
// ResourceAffinity.pm options.
var haRuleOptions = map[string]map[string]bool{
	"node-affinity": {
		"resources": false, "nodes": false, "strict": true, "disable": true, "comment": true,
	},
	"resource-affinity": {
		"resources": false, "affinity": false, "disable": true, "comment": true,
	},
}

// haRuleKeys are the rule options a request may carry.
var haRuleKeys = []string{"affinity", "comment", "disable", "nodes", "resources", "strict"}

// haRuleView is a rule decoded as the rule plugins see it.
type haRuleView struct {
	id        string
	typ       string
	order     int
	props     map[string]string
	resources map[string]bool
	nodes     map[string]int
}

func (v *haRuleView) disabled() bool {
	_, ok := v.props["disable"]
	return ok
}

func newHARuleView(r *HARule) *haRuleView {
	return &haRuleView{
		id: r.ID, typ: r.Type, order: r.Order, props: r.Props,
		resources: haRuleResources(r.Props["resources"]),
		nodes:     haRuleNodes(r.Props["nodes"]),
	}
}

// haFullRules is Rules.pm $get_full_rules_config: the stored rules plus,
// while groups are not migrated, a node-affinity rule per group that HA
// resources use (pve-ha-manager src/PVE/HA/Groups.pm
// migrate_groups_to_rules).
func haFullRules(cl *Cluster) map[string]*HARule {
	out := map[string]*HARule{}
	for id, r := range cl.HA.Rules {
		out[id] = r
	}
	for id, r := range haRulesFromGroups(cl, out) {
		out[id] = r
	}
	return out
}

// haRulesFromGroups is pve-ha-manager src/PVE/HA/Groups.pm
// migrate_groups_to_rules: a group no resource uses, or a resource's group
// that does not exist, gives no rule; the rule id is "ha-group-GROUP",
// strict is the group's restricted, the comment the group's or a
// generated one, the ordinal the next one.
func haRulesFromGroups(cl *Cluster, existing map[string]*HARule) map[string]*HARule {
	users := map[string]map[string]bool{}
	for sid, r := range cl.HA.Resources {
		g := r.Props["group"]
		if g == "" {
			continue
		}
		if users[g] == nil {
			users[g] = map[string]bool{}
		}
		users[g][sid] = true
	}
	all := map[string]*HARule{}
	for id, r := range existing {
		all[id] = r
	}
	out := map[string]*HARule{}
	for _, gid := range sortedKeys(users) {
		g := cl.HA.Groups[gid]
		if g == nil {
			continue
		}
		nodes := map[string]int{}
		for _, e := range haSplitList(g.Props["nodes"]) {
			if n, p, ok := haParseNodePriority(e); ok {
				nodes[n] = p
			}
		}
		props := map[string]string{
			"resources": haEncodeResources(users[gid]),
			"nodes":     haEncodeRuleNodes(nodes),
		}
		if v, ok := g.Props["restricted"]; ok {
			props["strict"] = v
		}
		props["comment"] = g.Props["comment"]
		if props["comment"] == "" {
			props["comment"] = "Generated from HA group '" + gid + "'."
		}
		id := "ha-group-" + gid
		r := &HARule{ID: id, Type: "node-affinity", Props: props, Order: nextRuleOrdinal(all)}
		all[id] = r
		out[id] = r
	}
	return out
}

// haRuleAnswer is Rules.pm $get_api_ha_rule. set_rule_defaults adds no
// key: the only default (strict's) is 0, which it skips.
func haRuleAnswer(r *HARule, digest string, errs map[string][]string) map[string]any {
	out := map[string]any{"rule": r.ID, "type": r.Type, "digest": digest, "order": r.Order}
	for k, v := range r.Props {
		switch k {
		case "strict", "disable":
			n, _ := strconv.Atoi(v)
			out[k] = n
		default:
			out[k] = v
		}
	}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	return out
}

// pve-ha-manager src/PVE/API2/HA/Rules.pm index: every rule (group rules
// included) in order, filtered by type and by a resource the rule names.
func (s *Sim) listHARules(c *call) (any, error) {
	cl := c.cluster
	rules := haFullRules(cl)
	errs := haRuleFeasibility(rules, cl)
	digest := cl.HA.rulesDigest()
	typ, sid := c.str("type"), c.str("resource")
	out := []map[string]any{}
	for _, id := range cl.HA.sortedRuleIDs(rules) {
		r := rules[id]
		if typ != "" && r.Type != typ {
			continue
		}
		if _, ok := c.param("resource"); ok && !haRuleResources(r.Props["resources"])[sid] {
			continue
		}
		out = append(out, haRuleAnswer(r, digest, errs[id]))
	}
	return out, nil
}

// pve-ha-manager src/PVE/API2/HA/Rules.pm read_rule
func (s *Sim) readHARule(c *call) (any, error) {
	cl := c.cluster
	rules := haFullRules(cl)
	id := c.str("rule")
	r := rules[id]
	if r == nil {
		return nil, errorf("no such ha rule '%s'", id)
	}
	return haRuleAnswer(r, cl.HA.rulesDigest(), haRuleFeasibility(rules, cl)[id]), nil
}

// haRuleCheckConfig is pve-common src/PVE/SectionConfig.pm check_config
// for a rule type: every given key must be an option of the type
// ("type" only with the type's own name), and on create every required
// option must be given. Perl walks a hash; the simulator sorted keys.
func haRuleCheckConfig(typ string, given map[string]string, create bool) error {
	opts := haRuleOptions[typ]
	for _, k := range sortedKeys(given) {
		if k == "type" && given[k] == typ {
			continue
		}
		if _, ok := opts[k]; !ok {
			return errorf("unexpected property '%s'", k)
		}
	}
	if create {
		for _, k := range sortedKeys(opts) {
			if _, ok := given[k]; !opts[k] && !ok {
				return errorf("missing value for required option '%s'", k)
			}
		}
	}
	return nil
}

// haRuleGiven collects the rule options of a request. Rules.pm create and
// update drop a false "disable" (delete $param->{disable} if
// !$param->{disable}).
func haRuleGiven(c *call) map[string]string {
	given := map[string]string{}
	for _, k := range haRuleKeys {
		if v, ok := c.param(k); ok {
			given[k] = v
		}
	}
	if given["disable"] != "1" {
		delete(given, "disable")
	}
	return given
}

// haStoreRuleProps turns checked options into what rules.cfg keeps
// (decode_value, then encode_value when written).
func haStoreRuleProps(props, given map[string]string) {
	for k, v := range given {
		switch k {
		case "resources":
			props[k] = haEncodeResources(haRuleResources(v))
		case "nodes":
			props[k] = haEncodeRuleNodes(haRuleNodes(v))
		default:
			props[k] = v
		}
	}
}

// haAssertResources is pve-ha-manager src/PVE/API2/HA/Rules.pm
// $assert_valid_resources_param: every
// resource must be an HA resource.
func haAssertResources(cl *Cluster, value string) error {
	set := haRuleResources(value)
	if len(set) == 0 {
		return errorf("no resources were specified")
	}
	var missing []string
	for _, sid := range sortedKeys(set) {
		if cl.HA.Resources[sid] == nil {
			missing = append(missing, sid)
		}
	}
	if len(missing) > 0 {
		return errorf("cannot use unmanaged resource(s) %s.", strings.Join(missing, ", "))
	}
	return nil
}

// haAssertNodes is pve-ha-manager src/PVE/API2/HA/Rules.pm
// $assert_valid_nodes_param: every node must be
// a cluster node (the answering node always passes).
func haAssertNodes(cl *Cluster, value string) error {
	nodes := haRuleNodes(value)
	if len(nodes) == 0 {
		return errorf("no nodes were specified")
	}
	var missing []string
	local := cl.answeringNode().Name
	for _, n := range sortedKeys(nodes) {
		if n != local && cl.Node(n) == nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return errorf("cannot use non-existent node(s) %s.", strings.Join(missing, ", "))
	}
	return nil
}

// haAssertFeasible is Rules.pm $assert_feasibility: the rule's own
// feasibility errors refuse the change with a 400 that names them per
// option, each option's messages joined by ", ".
func haAssertFeasible(cl *Cluster, rules map[string]*HARule, id string) error {
	full := map[string]*HARule{}
	for k, v := range rules {
		full[k] = v
	}
	for k, v := range haRulesFromGroups(cl, full) {
		full[k] = v
	}
	errs := haRuleFeasibility(full, cl)[id]
	if len(errs) == 0 {
		return nil
	}
	params := map[string]string{}
	for opt, msgs := range errs {
		params[opt] = strings.Join(msgs, ", ")
	}
	return &apiError{status: http.StatusBadRequest, message: "Rule '" + id + "' is invalid.\n", params: params}
}

// pve-ha-manager src/PVE/API2/HA/Rules.pm create_rule
func (s *Sim) createHARule(c *call) (any, error) {
	cl := c.cluster
	if !s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot create ha rule: ha groups have not been migrated yet")
	}
	typ, id := c.str("type"), c.str("rule")
	given := haRuleGiven(c)
	if err := haRuleCheckConfig(typ, given, true); err != nil {
		return nil, err
	}
	fail := func(err error) error { return wrapLockError("create ha rule failed", err) }
	if cl.HA.Rules[id] != nil {
		return nil, fail(errorf("HA rule '%s' already defined", id))
	}
	if err := haAssertResources(cl, given["resources"]); err != nil {
		return nil, fail(err)
	}
	if v, ok := given["nodes"]; ok {
		if err := haAssertNodes(cl, v); err != nil {
			return nil, fail(err)
		}
	}
	r := &HARule{ID: id, Type: typ, Props: map[string]string{}, Order: nextRuleOrdinal(cl.HA.Rules)}
	haStoreRuleProps(r.Props, given)
	next := map[string]*HARule{id: r}
	for k, v := range cl.HA.Rules {
		next[k] = v
	}
	if err := haAssertFeasible(cl, next, id); err != nil {
		return nil, fail(err)
	}
	cl.HA.Rules[id] = r
	return nil, nil
}

// pve-ha-manager src/PVE/API2/HA/Rules.pm update_rule
func (s *Sim) updateHARule(c *call) (any, error) {
	cl := c.cluster
	if !s.haConfigGroupsMigrated(cl) {
		return nil, errorf("cannot update ha rule: ha groups have not been migrated yet")
	}
	id := c.str("rule")
	given := haRuleGiven(c)
	given["type"] = c.str("type")
	fail := func(err error) error { return wrapLockError("update HA rules failed", err) }
	if err := assertSectionDigest(cl.HA.rulesDigest(), c.str("digest")); err != nil {
		return nil, fail(err)
	}
	old := cl.HA.Rules[id]
	if old == nil {
		return nil, fail(errorf("HA rule '%s' does not exist", id))
	}
	if err := haRuleCheckConfig(old.Type, given, false); err != nil {
		return nil, fail(err)
	}
	delete(given, "type")
	if v, ok := given["resources"]; ok {
		if err := haAssertResources(cl, v); err != nil {
			return nil, fail(err)
		}
	}
	if v, ok := given["nodes"]; ok {
		if err := haAssertNodes(cl, v); err != nil {
			return nil, fail(err)
		}
	}
	props := map[string]string{}
	for k, v := range old.Props {
		props[k] = v
	}
	// pve-common src/PVE/SectionConfig.pm delete_from_config
	opts := haRuleOptions[old.Type]
	for _, k := range haSplitList(c.str("delete")) {
		optional, known := opts[k]
		switch {
		case !known:
			return nil, fail(errorf("no such option '%s'", k))
		case !optional:
			return nil, fail(errorf("unable to delete required option '%s'", k))
		}
		if _, set := given[k]; set {
			return nil, fail(errorf("cannot set and delete property '%s' at the same time!", k))
		}
		delete(props, k)
	}
	haStoreRuleProps(props, given)
	r := &HARule{ID: id, Type: old.Type, Props: props, Order: old.Order}
	next := map[string]*HARule{}
	for k, v := range cl.HA.Rules {
		next[k] = v
	}
	next[id] = r
	if err := haAssertFeasible(cl, next, id); err != nil {
		return nil, fail(err)
	}
	cl.HA.Rules[id] = r
	return nil, nil
}

// pve-ha-manager src/PVE/API2/HA/Rules.pm delete_rule: no check at all;
// deleting a rule that does not exist succeeds.
func deleteHARule(c *call) (any, error) {
	delete(c.cluster.HA.Rules, c.str("rule"))
	return nil, nil
}
