package pvesim

import (
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Firewall aliases: pve-firewall src/PVE/API2/Firewall/Aliases.pm
// (AliasesBase and its ClusterAliases, VMAliases, CTAliases subclasses).
// Aliases are keyed by their lowercased name; the name keeps the case it
// was last written with.

// storedFirewallAlias is an alias as the [ALIASES] line the API writes
// reads back: the address through parse_ip_or_cidr (host length dropped,
// IP version derived), the comment through fileComment (pve-firewall
// src/PVE/Firewall.pm $format_aliases, parse_alias).
func storedFirewallAlias(name, cidr, comment string) *FirewallAlias {
	parsed, version, _ := pvegrammar.ParseIPOrCIDR(cidr)
	return &FirewallAlias{Name: name, CIDR: parsed, IPVersion: version, Comment: fileComment(comment)}
}

func firewallAliasEntry(a *FirewallAlias) map[string]any {
	e := map[string]any{"name": a.Name, "cidr": a.CIDR, "ipversion": a.IPVersion}
	if a.Comment != "" {
		e["comment"] = a.Comment
	}
	return e
}

// firewallAliasList is $aliases_to_list with copy_list_with_digest: the
// aliases by lowercased name, each with the list digest.
func firewallAliasList(conf *FirewallConf) ([]map[string]any, string) {
	list := make([]map[string]any, 0, len(conf.Aliases))
	for _, key := range sortedKeys(conf.Aliases) {
		list = append(list, firewallAliasEntry(conf.Aliases[key]))
	}
	return withListDigest(list)
}

// pve-firewall src/PVE/API2/Firewall/Aliases.pm register_get_aliases
func listFirewallAliases(c *call, scope firewallScope) (any, error) {
	list, _ := firewallAliasList(c.cluster.firewallConfFor(scope))
	return list, nil
}

// pve-firewall src/PVE/API2/Firewall/Aliases.pm register_create_alias
func createFirewallAlias(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	name := c.str("name")
	key := strings.ToLower(name)
	if conf.Aliases[key] != nil {
		return nil, paramError(map[string]string{"name": "alias '" + name + "' already exists"})
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	if conf.Aliases == nil {
		conf.Aliases = map[string]*FirewallAlias{}
	}
	conf.Aliases[key] = storedFirewallAlias(name, c.str("cidr"), c.str("comment"))
	return nil, nil
}

// pve-firewall src/PVE/API2/Firewall/Aliases.pm register_read_alias: the
// stored alias, without a digest.
func readFirewallAlias(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	a := conf.alias(c.str("name"))
	if a == nil {
		return nil, paramError(map[string]string{"name": "no such alias"})
	}
	return firewallAliasEntry(a), nil
}

// pve-firewall src/PVE/API2/Firewall/Aliases.pm register_update_alias: the
// digest is checked first; the alias is replaced whole (a comment not given
// is dropped) and takes the name's case from the request path. A rename to
// another name moves it, keeping the case of rename; a rename that only
// changes case is no rename, so the path's case stays.
func updateFirewallAlias(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	_, digest := firewallAliasList(conf)
	if err := assertFirewallDigest(digest, c.str("digest")); err != nil {
		return nil, err
	}
	name := c.str("name")
	key := strings.ToLower(name)
	if conf.Aliases[key] == nil {
		return nil, paramError(map[string]string{"name": "no such alias"})
	}
	data := storedFirewallAlias(name, c.str("cidr"), c.str("comment"))
	rename := c.str("rename")
	renameKey := strings.ToLower(rename)
	renamed := pvegrammar.PerlTruthy(rename) && renameKey != key
	if renamed && conf.Aliases[renameKey] != nil {
		// pve-firewall src/PVE/API2/Firewall/Aliases.pm
		// register_update_alias: nothing is saved when the new name is
		// taken.
		return nil, paramError(map[string]string{"name": "alias '" + rename + "' already exists"})
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	if renamed {
		data.Name = rename
		delete(conf.Aliases, key)
		key = renameKey
	}
	conf.Aliases[key] = data
	return nil, nil
}

// pve-firewall src/PVE/API2/Firewall/Aliases.pm register_delete_alias: a
// missing alias is no error.
func deleteFirewallAlias(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	_, digest := firewallAliasList(conf)
	if err := assertFirewallDigest(digest, c.str("digest")); err != nil {
		return nil, err
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	delete(conf.Aliases, strings.ToLower(c.str("name")))
	return nil, nil
}

// alias is the alias a file holds under name in any case: the parser keys
// aliases lowercased and every lookup lowercases the name (pve-firewall
// src/PVE/Firewall.pm parse_alias, resolve_alias, verify_rule).
func (fc *FirewallConf) alias(name string) *FirewallAlias {
	if fc == nil {
		return nil
	}
	return fc.Aliases[strings.ToLower(name)]
}

// resolveFirewallAlias is pve-firewall src/PVE/Firewall.pm resolve_alias:
// an unscoped name is looked up in the local file, then in cluster.fw; dc/
// only in cluster.fw, guest/ only in the local file. local is nil where PVE
// passes no local file (the cluster's own IPSet API).
func resolveFirewallAlias(local, cluster *FirewallConf, scope, name string) *FirewallAlias {
	var a *FirewallAlias
	if scope != "dc/" {
		a = local.alias(name)
	}
	if scope != "guest/" && a == nil {
		a = cluster.alias(name)
	}
	return a
}
