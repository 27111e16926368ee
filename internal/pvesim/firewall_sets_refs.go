package pvesim

import "github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"

// The references rules may use in source and dest: pve-firewall
// src/PVE/API2/Firewall/Cluster.pm refs (SDN's, then the cluster's) and
// VM.pm refs (the cluster's as dc, SDN's, then the guest's), each scope's
// IPSets before its aliases (src/PVE/Firewall/Helpers.pm collect_refs).
// The simulator has no SDN, so there are no sdn references.
//
// inferred: collect_refs walks Perl hashes, whose order varies from call to
// call; the simulator answers each scope's IPSets and aliases by name
// (INFERRED.md).

// pve-firewall src/PVE/API2/Firewall/Cluster.pm refs, VM.pm refs
func listFirewallRefs(c *call, scope firewallScope) (any, error) {
	typ := c.str("type")
	cluster := c.cluster.clusterFirewallConf()
	refs := collectFirewallRefs(cluster, typ, "dc")
	if scope.kind != "cluster" {
		refs = append(refs, collectFirewallRefs(c.cluster.firewallConfFor(scope), typ, "guest")...)
	}
	return refs, nil
}

// collectFirewallRefs is pve-firewall src/PVE/Firewall/Helpers.pm
// collect_refs: an IPSet is referenced as +name, an alias by its lowercased
// name; comments only when true.
func collectFirewallRefs(conf *FirewallConf, typ, scope string) []map[string]any {
	refs := []map[string]any{}
	if typ == "" || typ == "ipset" {
		for _, name := range sortedKeys(conf.IPSets) {
			ref := map[string]any{"type": "ipset", "name": name, "ref": "+" + name, "scope": scope}
			if cm := conf.IPSetComments[name]; pvegrammar.PerlTruthy(cm) {
				ref["comment"] = cm
			}
			refs = append(refs, ref)
		}
	}
	if typ == "" || typ == "alias" {
		for _, key := range sortedKeys(conf.Aliases) {
			ref := map[string]any{"type": "alias", "name": key, "ref": key, "scope": scope}
			if cm := conf.Aliases[key].Comment; pvegrammar.PerlTruthy(cm) {
				ref["comment"] = cm
			}
			refs = append(refs, ref)
		}
	}
	return refs
}
