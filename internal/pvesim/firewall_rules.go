package pvesim

import (
	"strconv"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Firewall rule lists: the cluster's, a node's, a guest's and a security
// group's (pve-firewall src/PVE/API2/Firewall/Rules.pm RulesBase with
// ClusterRules, HostRules, VMRules, CTRules and GroupRules). Every change
// loads the file, edits the list and writes the file; PVE serialises
// writers with a cfs lock per file, the simulator with its model lock.

// firewallRuleProperties are the keys copy_rule_data copies and
// delete_rule_properties knows (pve-firewall src/PVE/Firewall.pm
// $rule_properties).
var firewallRuleProperties = []string{
	"pos", "digest", "type", "action", "macro", "iface", "source", "dest", "proto",
	"enable", "log", "sport", "dport", "comment", "icmp-type",
}

// firewallRuleList is one loaded rule list and what its file needs to
// verify and write it.
type firewallRuleList struct {
	env   string
	kind  firewallFileKind
	scope firewallScope
	group string
	conf  *FirewallConf
	rules []FirewallRule
	// parsed is what the parser verifies the list's rules against.
	parsed firewallRuleContext
	// apiCluster and apiFW are what the API verifies a changed rule
	// against: for the cluster's and the groups' rules PVE passes no
	// cluster config and the cluster's file as the rule's own.
	apiCluster, apiFW *FirewallConf
	allowIface        bool
}

// loadFirewallRules is the load_config of the rule list a call addresses.
func loadFirewallRules(c *call, env string) (*firewallRuleList, error) {
	cl := c.cluster
	cluster := cl.clusterFirewallConf()
	l := &firewallRuleList{env: env, allowIface: true}
	switch env {
	case "group":
		l.kind, l.conf = clusterFile, cluster
		l.parsed = firewallRuleContext{cluster: cluster, env: "group"}
		l.apiFW = cluster
		// The groups section is written without interfaces
		// (save_clusterfw_conf's $format_rules->($rules, 0)).
		l.allowIface = false
		l.group = c.str("group")
		rules, ok := cluster.Groups[l.group]
		if !ok {
			// pve-firewall src/PVE/API2/Firewall/Rules.pm GroupRules
			// load_config: the name is looked up as given, the parser
			// keys groups lowercased.
			return nil, errorf("no such security group '%s'", l.group)
		}
		l.rules = rules
	case "cluster":
		l.kind, l.conf = clusterFile, cluster
		l.parsed = firewallRuleContext{cluster: cluster, fw: cluster, env: "cluster"}
		l.apiFW = cluster
		l.rules = cluster.Rules
	default:
		l.scope = firewallScopeOf(c, env)
		l.kind, l.conf = l.scope.fileKind(), cl.firewallConfFor(l.scope)
		l.parsed = firewallRuleContext{cluster: cluster, fw: l.conf, env: env}
		l.apiCluster, l.apiFW = cluster, l.conf
		l.rules = l.conf.Rules
	}
	l.rules = l.parsed.reparseAll(l.rules)
	return l, nil
}

// save is save_rules: the list as the file round trip leaves it. Writing
// formats the whole file, so a list of the same file that the writer
// cannot format fails the save too.
func (l *firewallRuleList) save(rules []FirewallRule) error {
	stored, err := roundTripRules(rules, l.allowIface, l.kind, l.parsed)
	if err != nil {
		return err
	}
	replaced := fileRulesSection
	if l.env == "group" {
		replaced = l.group
	}
	if err := firewallFileWritable(l.conf, l.kind, replaced); err != nil {
		return err
	}
	if l.env == "group" {
		l.conf.Groups[l.group] = stored
	} else {
		l.conf.Rules = stored
	}
	return nil
}

// firewallRuleAnswer is a rule as copy_list_with_digest hands it out: the
// parsed keys (enable and ipversion are numbers), the errors if any.
func firewallRuleAnswer(r FirewallRule) map[string]any {
	out := make(map[string]any, len(r.Fields)+2)
	for k, v := range r.Fields {
		if k == "enable" || k == "ipversion" {
			if n, err := strconv.Atoi(v); err == nil {
				out[k] = n
				continue
			}
		}
		out[k] = v
	}
	if len(r.Errors) > 0 {
		errs := make(map[string]string, len(r.Errors))
		for k, v := range r.Errors {
			errs[k] = v
		}
		out["errors"] = errs
	}
	return out
}

// firewallRulesAnswer is copy_list_with_digest: the rules with the list's
// digest (errors do not count).
func firewallRulesAnswer(rules []FirewallRule) ([]map[string]any, string) {
	list := make([]map[string]any, len(rules))
	for i, r := range rules {
		list[i] = firewallRuleAnswer(r)
	}
	return withListDigest(list)
}

// copyFirewallRuleData is pve-firewall src/PVE/Firewall.pm copy_rule_data:
// an empty value or '-' removes a key.
func copyFirewallRuleData(rule map[string]string, c *call) {
	for _, k := range firewallRuleProperties {
		v, ok := c.param(k)
		if !ok {
			continue
		}
		if v == "" || v == "-" {
			delete(rule, k)
		} else {
			rule[k] = v
		}
	}
}

func ruleListHandler(env string, fn func(c *call, l *firewallRuleList) (any, error)) handlerFunc {
	return func(c *call) (any, error) {
		l, err := loadFirewallRules(c, env)
		if err != nil {
			return nil, err
		}
		return fn(c, l)
	}
}

// pve-firewall src/PVE/API2/Firewall/Rules.pm register_get_rules
func getFirewallRules(c *call, l *firewallRuleList) (any, error) {
	list, _ := firewallRulesAnswer(l.rules)
	for i, e := range list {
		e["pos"] = i
	}
	return list, nil
}

// pve-firewall src/PVE/API2/Firewall/Rules.pm register_get_rule
func getFirewallRule(c *call, l *firewallRuleList) (any, error) {
	list, _ := firewallRulesAnswer(l.rules)
	pos := c.intParam("pos", 0)
	if pos >= len(list) {
		return nil, errorf("no rule at position %d", pos)
	}
	// The position is the parameter as given: a string that JSON::XS
	// writes as a string.
	e := list[pos]
	e["pos"] = c.str("pos")
	return e, nil
}

// createFirewallRule adds a rule at the top of the list. There is no
// digest check, and a rule created without enable is disabled
// (pve-firewall src/PVE/API2/Firewall/Rules.pm register_create_rule).
func createFirewallRule(c *call, l *firewallRuleList) (any, error) {
	rule := map[string]string{}
	copyFirewallRuleData(rule, c)
	if _, err := verifyFirewallRule(rule, l.apiCluster, l.apiFW, l.env, false); err != nil {
		return nil, err
	}
	if _, ok := c.param("enable"); !ok {
		rule["enable"] = "0"
	}
	rules := append([]FirewallRule{{Fields: rule}}, l.rules...)
	return nil, l.save(rules)
}

// updateFirewallRule changes or moves one rule (pve-firewall
// src/PVE/API2/Firewall/Rules.pm register_update_rule). With moveto (other
// than the rule's own position) the rule goes before the rule that was at
// moveto, or to the end when moveto is past the last rule, and every other
// argument is ignored.
func updateFirewallRule(c *call, l *firewallRuleList) (any, error) {
	pos, err := l.changedPos(c)
	if err != nil {
		return nil, err
	}
	rules := l.rules
	if _, ok := c.param("moveto"); ok && c.intParam("moveto", 0) != pos {
		moveto := c.intParam("moveto", 0)
		moved := make([]FirewallRule, 0, len(rules))
		for i, r := range rules {
			if i == pos {
				continue
			}
			if i == moveto {
				moved = append(moved, rules[pos])
			}
			moved = append(moved, r)
		}
		if moveto >= len(rules) {
			moved = append(moved, rules[pos])
		}
		return nil, l.save(moved)
	}
	rule := make(map[string]string, len(rules[pos].Fields))
	for k, v := range rules[pos].Fields {
		rule[k] = v
	}
	copyFirewallRuleData(rule, c)
	if del := c.str("delete"); pvegrammar.PerlTruthy(del) {
		if err := deleteFirewallRuleProperties(rule, del); err != nil {
			return nil, err
		}
	}
	if _, err := verifyFirewallRule(rule, l.apiCluster, l.apiFW, l.env, false); err != nil {
		return nil, err
	}
	changed := append([]FirewallRule(nil), rules...)
	changed[pos] = FirewallRule{Fields: rule}
	return nil, l.save(changed)
}

// changedPos is the position an update or a delete addresses, once the
// list's digest matched (pve-firewall src/PVE/API2/Firewall/Rules.pm
// register_update_rule, register_delete_rule).
func (l *firewallRuleList) changedPos(c *call) (int, error) {
	_, digest := firewallRulesAnswer(l.rules)
	if err := assertFirewallDigest(digest, c.str("digest")); err != nil {
		return 0, err
	}
	pos := c.intParam("pos", 0)
	if pos >= len(l.rules) {
		// pve-firewall src/PVE/API2/Firewall/Rules.pm register_update_rule,
		// register_delete_rule
		return 0, errorf("no rule at position %d", pos)
	}
	return pos, nil
}

// deleteFirewallRuleProperties is pve-firewall src/PVE/Firewall.pm
// delete_rule_properties.
func deleteFirewallRuleProperties(rule map[string]string, list string) error {
	for _, opt := range splitList(list) {
		known := false
		for _, k := range firewallRuleProperties {
			known = known || k == opt
		}
		if !known {
			return paramError(map[string]string{"delete": "no such property ('" + opt + "')"})
		}
		if opt == "type" || opt == "action" {
			return paramError(map[string]string{"delete": "unable to delete required property '" + opt + "'"})
		}
		delete(rule, opt)
	}
	return nil
}

// pve-firewall src/PVE/API2/Firewall/Rules.pm register_delete_rule
func deleteFirewallRule(c *call, l *firewallRuleList) (any, error) {
	pos, err := l.changedPos(c)
	if err != nil {
		return nil, err
	}
	rules := append(append([]FirewallRule(nil), l.rules[:pos]...), l.rules[pos+1:]...)
	return nil, l.save(rules)
}
