package pvesim

import (
	"sort"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Security groups live in cluster.fw as "[group NAME] # comment" sections
// (pve-firewall src/PVE/API2/Firewall/Groups.pm, src/PVE/Firewall.pm
// save_clusterfw_conf and generic_fw_config_parser). The API keys a new
// group by the name as given; the parser lowercases it, so what a later
// load finds is the lowercased name.

// securityGroupList is Groups.pm $get_security_group_list: the groups
// sorted, each with its comment, and the list's digest.
func securityGroupList(cluster *FirewallConf) ([]map[string]any, string) {
	list := make([]map[string]any, 0, len(cluster.Groups))
	for _, n := range sortedKeys(cluster.Groups) {
		e := map[string]any{"group": n}
		if cm := cluster.GroupComments[n]; pvegrammar.PerlTruthy(cm) {
			e["comment"] = cm
		}
		list = append(list, e)
	}
	return withListDigest(list)
}

// pve-firewall src/PVE/API2/Firewall/Groups.pm list_security_groups
func listSecurityGroups(c *call) (any, error) {
	list, _ := securityGroupList(c.cluster.clusterFirewallConf())
	return list, nil
}

// createSecurityGroup creates a group, or with rename renames one (or with
// rename equal to group sets its comment). A rename rewrites the group
// rules naming the old group in the cluster's, every node's and every
// guest's rule list (pve-firewall src/PVE/API2/Firewall/Groups.pm
// create_security_group).
func createSecurityGroup(c *call) (any, error) {
	cl := c.cluster
	cluster := cl.clusterFirewallConf()
	group := c.str("group")
	comment, hasComment := c.param("comment")
	rename := c.str("rename")
	if cluster.Groups == nil {
		cluster.Groups = map[string][]FirewallRule{}
	}
	if cluster.GroupComments == nil {
		cluster.GroupComments = map[string]string{}
	}
	if !pvegrammar.PerlTruthy(rename) {
		if _, ok := cluster.Groups[group]; ok {
			// pve-firewall src/PVE/API2/Firewall/Groups.pm create_security_group
			return nil, paramError(map[string]string{"group": "Security group '" + group + "' already exists"})
		}
		groups := copyGroups(cluster)
		groups.rules[group] = []FirewallRule{}
		if hasComment {
			groups.comments[group] = comment
		}
		return nil, saveClusterGroups(cl, groups)
	}

	_, digest := securityGroupList(cluster)
	if err := assertFirewallDigest(digest, c.str("digest")); err != nil {
		return nil, err
	}
	if _, ok := cluster.Groups[rename]; !ok {
		// pve-firewall src/PVE/API2/Firewall/Groups.pm create_security_group
		return nil, paramError(map[string]string{"group": "Security group '" + rename + "' does not exist"})
	}
	if _, ok := cluster.Groups[group]; ok && group != rename {
		return nil, paramError(map[string]string{"group": "Security group '" + group + "' does already exist"})
	}
	groups := copyGroups(cluster)
	if rename == group {
		if hasComment {
			groups.comments[rename] = comment
		}
		return nil, saveClusterGroups(cl, groups)
	}
	// The copy under the new name is written first, then every node's and
	// guest's rules, then the cluster's own rules without the old group.
	groups.rules[group] = groups.rules[rename]
	if cm, ok := groups.comments[rename]; ok {
		groups.comments[group] = cm
	} else {
		delete(groups.comments, group)
	}
	if hasComment {
		groups.comments[group] = comment
	}
	if err := saveClusterGroups(cl, groups); err != nil {
		return nil, err
	}
	for _, n := range cl.Nodes {
		if err := renameGroupRules(cl, firewallScope{kind: "host", node: n.Name}, rename, group); err != nil {
			return nil, err
		}
	}
	vmids := make([]int, 0, len(cl.Guests))
	for id := range cl.Guests {
		vmids = append(vmids, id)
	}
	sort.Ints(vmids)
	for _, id := range vmids {
		kind := "vm"
		if cl.Guests[id].Type == LXC {
			kind = "ct"
		}
		if err := renameGroupRules(cl, firewallScope{kind: kind, vmid: id}, rename, group); err != nil {
			return nil, err
		}
	}
	// The handler goes on with the config it loaded, not the file it
	// wrote: the old group is deleted by the name as given.
	rc := firewallRuleContext{cluster: cluster, fw: cluster, env: "cluster"}
	rules := renamedGroupRefs(rc.reparseAll(cluster.Rules), rename, group)
	delete(groups.rules, rename)
	delete(groups.comments, rename)
	stored, err := roundTripRules(rules, true, clusterFile, rc)
	if err != nil {
		return nil, err
	}
	if err := saveClusterGroups(cl, groups); err != nil {
		return nil, err
	}
	cluster.Rules = stored
	return nil, nil
}

// renamedGroupRefs is Groups.pm $rename_fw_rules: group rules whose
// action is exactly the old name now name the new one.
func renamedGroupRefs(rules []FirewallRule, from, to string) []FirewallRule {
	out := make([]FirewallRule, len(rules))
	for i, r := range rules {
		out[i] = r
		if r.Fields["type"] == "group" && r.Fields["action"] == from {
			f := make(map[string]string, len(r.Fields))
			for k, v := range r.Fields {
				f[k] = v
			}
			f["action"] = to
			out[i] = FirewallRule{Fields: f}
		}
	}
	return out
}

// renameGroupRules loads, renames and saves one node's or guest's file.
func renameGroupRules(cl *Cluster, scope firewallScope, from, to string) error {
	fw := cl.Firewall
	var conf *FirewallConf
	if scope.kind == "host" {
		conf = fw.Hosts[scope.node]
	} else {
		conf = fw.Guests[scope.vmid]
	}
	if conf == nil {
		return nil // no file: loading and saving it changes nothing
	}
	cluster := cl.clusterFirewallConf()
	rc := firewallRuleContext{cluster: cluster, fw: conf, env: scope.kind}
	stored, err := roundTripRules(renamedGroupRefs(rc.reparseAll(conf.Rules), from, to), true, scope.fileKind(), rc)
	if err != nil {
		return err
	}
	conf.Rules = stored
	return nil
}

// clusterGroups is the groups part of cluster.fw being edited.
type clusterGroups struct {
	rules    map[string][]FirewallRule
	comments map[string]string
}

func copyGroups(cluster *FirewallConf) clusterGroups {
	g := clusterGroups{rules: map[string][]FirewallRule{}, comments: map[string]string{}}
	rc := firewallRuleContext{cluster: cluster, env: "group"}
	for k, v := range cluster.Groups {
		g.rules[k] = rc.reparseAll(v)
	}
	for k, v := range cluster.GroupComments {
		g.comments[k] = v
	}
	return g
}

// saveClusterGroups writes the groups sections as save_clusterfw_conf
// does (sorted by name, "[group NAME] # comment", rules without
// interfaces) and reads them back as generic_fw_config_parser does: the
// name lowercased (a header resets a group of the same lowercased name),
// the comment trimmed and kept only when true, a newline in a comment
// ending the header line.
func saveClusterGroups(cl *Cluster, groups clusterGroups) error {
	cluster := cl.clusterFirewallConf()
	if _, err := formatFirewallRules(cluster.Rules, true); err != nil {
		return err
	}
	var b strings.Builder
	for _, name := range sortedKeys(groups.rules) {
		header := "[group " + name + "]"
		if cm := groups.comments[name]; pvegrammar.PerlTruthy(cm) {
			header += " # " + cm
		}
		if err := clusterFile.checkContinuations(header); err != nil {
			return err
		}
		text, err := formatFirewallRules(groups.rules[name], false)
		if err != nil {
			return err
		}
		if err := clusterFile.checkContinuations(strings.TrimSuffix(text, "\n")); err != nil {
			return err
		}
		b.WriteString(header + "\n\n" + text + "\n")
	}
	rc := firewallRuleContext{cluster: cluster, env: "group"}
	parsed := map[string][]FirewallRule{}
	comments := map[string]string{}
	current, inGroup := "", false
	for _, line := range firewallFileLines(b.String()) {
		if m := fwHeaderGroup.FindStringSubmatch(line); m != nil {
			name := strings.ToLower(m[1])
			if len(name) > 18 || !firewallGroupName.MatchString(name) {
				inGroup = false // "invalid security group name": the section is skipped
				continue
			}
			current, inGroup = name, true
			parsed[name] = []FirewallRule{}
			if pvegrammar.PerlTruthy(m[2]) {
				comments[name] = decodeFileText(m[2])
			}
			continue
		}
		if !inGroup {
			continue
		}
		fields, ok := parseFirewallRuleLine(line)
		if !ok {
			continue
		}
		if r, ok := rc.reparse(fields); ok {
			parsed[current] = append(parsed[current], r)
		}
	}
	cluster.Groups = parsed
	cluster.GroupComments = comments
	return nil
}

// pve-firewall src/PVE/API2/Firewall/Rules.pm GroupRules
// delete_security_group
func deleteSecurityGroup(c *call) (any, error) {
	l, err := loadFirewallRules(c, "group")
	if err != nil {
		return nil, err
	}
	if len(l.rules) > 0 {
		return nil, errorf("Security group '%s' is not empty", l.group)
	}
	groups := copyGroups(l.conf)
	delete(groups.rules, l.group)
	return nil, saveClusterGroups(c.cluster, groups)
}
