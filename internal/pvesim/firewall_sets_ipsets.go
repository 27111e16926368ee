package pvesim

import (
	"regexp"
	"sort"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Firewall IPSets: pve-firewall src/PVE/API2/Firewall/IPSet.pm
// (BaseIPSetList for the sets, IPSetBase for their entries, each with its
// Cluster, VM and CT subclass). The parser keys sets by their lowercased
// name while the API looks them up by the name exactly as given, so a set
// created as "Web" is found as "web" only. The writer sorts each set's
// entries by their text and drops repeated ones; the entries are kept in
// that order.

// firewallIPSetList is $get_ipset_list: the sets by name, each with its
// comment and the list digest.
func firewallIPSetList(conf *FirewallConf) ([]map[string]any, string) {
	list := make([]map[string]any, 0, len(conf.IPSets))
	for _, name := range sortedKeys(conf.IPSets) {
		e := map[string]any{"name": name}
		if cm := conf.IPSetComments[name]; pvegrammar.PerlTruthy(cm) {
			e["comment"] = cm
		}
		list = append(list, e)
	}
	return withListDigest(list)
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm BaseIPSetList register_index
func listFirewallIPSets(c *call, scope firewallScope) (any, error) {
	list, _ := firewallIPSetList(c.cluster.firewallConfFor(scope))
	return list, nil
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm BaseIPSetList
// register_create: without rename a new empty set; with rename (the
// existing set) the set moves to name, digest-checked, keeping its comment
// unless one is given. Names are compared as given with the parser's
// lowercased keys.
func createFirewallIPSet(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	name := c.str("name")
	sets := make(map[string][]*FirewallIPSetEntry, len(conf.IPSets)+1)
	for k, v := range conf.IPSets {
		sets[k] = v
	}
	comments := make(map[string]string, len(conf.IPSetComments)+1)
	for k, v := range conf.IPSetComments {
		comments[k] = v
	}
	comment, hasComment := c.param("comment")
	if rename := c.str("rename"); pvegrammar.PerlTruthy(rename) {
		_, digest := firewallIPSetList(conf)
		if err := assertFirewallDigest(digest, c.str("digest")); err != nil {
			return nil, err
		}
		if _, ok := sets[rename]; !ok {
			return nil, paramError(map[string]string{"name": "IPSet '" + rename + "' does not exist"})
		}
		// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_create:
		// "prevent overwriting existing ipset".
		if _, ok := sets[name]; ok && name != rename {
			return nil, paramError(map[string]string{"name": "IPSet '" + name + "' does already exist"})
		}
		entries := sets[rename]
		delete(sets, rename)
		sets[name] = entries
		cm := comments[rename]
		delete(comments, rename)
		if pvegrammar.PerlTruthy(cm) {
			comments[name] = cm
		}
	} else {
		// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_create
		if _, ok := sets[name]; ok {
			return nil, paramError(map[string]string{"name": "IPSet '" + name + "' already exists"})
		}
		sets[name] = []*FirewallIPSetEntry{}
	}
	if hasComment {
		comments[name] = comment
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	storeFirewallIPSets(conf, sets, comments)
	return nil, nil
}

// storeFirewallIPSets keeps what cluster.fw or VMID.fw reads back after the
// writer wrote these sets: one [IPSET name] section per set in name order,
// its comment only when true (pve-firewall src/PVE/Firewall.pm
// $format_ipsets); the parser lowercases each name, a later section of the
// same lowercased name replaces the entries of an earlier one and its
// comment, when it has one, the comment (generic_fw_config_parser). A
// comment without a set is not written.
func storeFirewallIPSets(conf *FirewallConf, sets map[string][]*FirewallIPSetEntry, comments map[string]string) {
	outSets := make(map[string][]*FirewallIPSetEntry, len(sets))
	outComments := map[string]string{}
	for _, name := range sortedKeys(sets) {
		key := strings.ToLower(name)
		outSets[key] = sets[name]
		if cm := comments[name]; pvegrammar.PerlTruthy(cm) {
			if read := fileComment(cm); read != "" {
				outComments[key] = read
			}
		}
	}
	conf.IPSets = outSets
	conf.IPSetComments = outComments
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_delete_ipset
func deleteFirewallIPSet(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	name := c.str("name")
	entries, err := loadFirewallIPSet(conf, name)
	if err != nil {
		return nil, err
	}
	// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_delete_ipset
	if len(entries) > 0 && !c.boolParam("force") {
		return nil, errorf("IPSet '%s' is not empty", name)
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	delete(conf.IPSets, name)
	delete(conf.IPSetComments, name)
	return nil, nil
}

// hasIPSet tells whether a file holds a set of exactly this name: the
// parser keys sets lowercased, but the IPSet API and verify_rule look a
// set up by the name as written (pve-firewall src/PVE/Firewall.pm
// generic_fw_config_parser, verify_rule; src/PVE/API2/Firewall/IPSet.pm).
func (fc *FirewallConf) hasIPSet(name string) bool {
	if fc == nil {
		return false
	}
	_, ok := fc.IPSets[name]
	return ok
}

// loadFirewallIPSet is the load_config of the IPSet subclasses: the set by
// its name as given, its entries in file order.
// pve-firewall src/PVE/API2/Firewall/IPSet.pm ClusterIPset, VMIPset,
// CTIPset load_config
func loadFirewallIPSet(conf *FirewallConf, name string) ([]*FirewallIPSetEntry, error) {
	entries, ok := conf.IPSets[name]
	if !ok {
		return nil, errorf("no such IPSet '%s'", name)
	}
	if sorted, changed := inFileOrder(entries); changed {
		conf.IPSets[name] = sorted
		entries = sorted
	}
	return entries, nil
}

// inFileOrder is the order the writer leaves a set in: sorted by address
// text, the first of repeated addresses kept (pve-firewall
// src/PVE/Firewall.pm $format_ipsets).
func inFileOrder(entries []*FirewallIPSetEntry) (sorted []*FirewallIPSetEntry, changed bool) {
	inOrder := true
	for i := 1; i < len(entries) && inOrder; i++ {
		inOrder = entries[i-1].CIDR < entries[i].CIDR
	}
	if inOrder {
		return entries, false
	}
	seen := make(map[string]bool, len(entries))
	out := make([]*FirewallIPSetEntry, 0, len(entries))
	for _, e := range entries {
		if !seen[e.CIDR] {
			seen[e.CIDR] = true
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CIDR < out[j].CIDR })
	return out, true
}

// findIPSetEntry finds an address in a set in file order: its index, or
// where it would go.
func findIPSetEntry(entries []*FirewallIPSetEntry, cidr string) (int, bool) {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].CIDR >= cidr })
	return i, i < len(entries) && entries[i].CIDR == cidr
}

func firewallIPSetEntry(e *FirewallIPSetEntry) map[string]any {
	out := map[string]any{"cidr": e.CIDR}
	if e.NoMatch {
		out["nomatch"] = 1
	}
	if e.Comment != "" {
		out["comment"] = e.Comment
	}
	return out
}

// firewallIPSetEntries is copy_list_with_digest over a set as the parser
// returns it: each entry with the errors the parser found (which the
// digest leaves out) and the list digest.
func (c *call) firewallIPSetEntries(scope firewallScope, conf *FirewallConf, entries []*FirewallIPSetEntry) ([]map[string]any, string) {
	list := make([]map[string]any, len(entries))
	for i, e := range entries {
		list[i] = firewallIPSetEntry(e)
	}
	list, digest := withListDigest(list)
	local, cluster := conf, c.cluster.clusterFirewallConf()
	for i, e := range entries {
		if errs := parsedIPSetEntryErrors(scope, local, cluster, e); errs != nil {
			list[i]["errors"] = errs
		}
	}
	return list, digest
}

// parsedIPSetEntryErrors is what generic_fw_config_parser notes on an
// entry when it reads the file (pve-firewall src/PVE/Firewall.pm): an alias
// it cannot resolve. In cluster.fw the parser passes the cluster file as
// both the local and the cluster one, so every scope resolves there.
// Entries the API stores never repeat and never have a zero prefix.
//
// inferred: the kernel supports nomatch, so no entry notes its lack
// (INFERRED.md).
func parsedIPSetEntryErrors(scope firewallScope, local, cluster *FirewallConf, e *FirewallIPSetEntry) map[string]string {
	aliasScope, alias, ok := pvegrammar.AliasReference(e.CIDR)
	if !ok {
		return nil
	}
	if scope.kind == "cluster" {
		local = cluster
	}
	if resolveFirewallAlias(local, cluster, aliasScope, alias) != nil {
		return nil
	}
	return map[string]string{"cidr": "no such alias '" + alias + "'"}
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_get_ipset
func listFirewallIPSetEntries(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	entries, err := loadFirewallIPSet(conf, c.str("name"))
	if err != nil {
		return nil, err
	}
	list, _ := c.firewallIPSetEntries(scope, conf, entries)
	return list, nil
}

var zeroPrefix = regexp.MustCompile(`/0+$`)

// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_create_ip: an alias
// must resolve (the cluster's own sets have no local file, so guest/ never
// resolves there); an address is cleaned of host bits and stored as the
// parser would read it. The entry goes first, and the writer sorts.
func createFirewallIPSetEntry(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	name := c.str("name")
	entries, err := loadFirewallIPSet(conf, name)
	if err != nil {
		return nil, err
	}
	cidr := c.str("cidr")
	if aliasScope, alias, ok := pvegrammar.AliasReference(cidr); ok {
		local, cluster := conf, c.cluster.clusterFirewallConf()
		if scope.kind == "cluster" {
			local = nil
		}
		// pve-firewall src/PVE/Firewall.pm resolve_alias
		if resolveFirewallAlias(local, cluster, aliasScope, alias) == nil {
			return nil, errorf("no such alias '%s'", alias)
		}
	} else {
		cidr, _, _ = pvegrammar.ParseIPOrCIDR(pvegrammar.CleanCIDR(cidr))
	}
	at, found := findIPSetEntry(entries, cidr)
	// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_create_ip
	if found {
		return nil, paramError(map[string]string{"cidr": "address '" + cidr + "' already exists"})
	}
	if zeroPrefix.MatchString(cidr) {
		return nil, paramError(map[string]string{"cidr": "a zero prefix is not allowed in ipset entries"})
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	entry := &FirewallIPSetEntry{CIDR: cidr, NoMatch: c.boolParam("nomatch"), Comment: fileComment(c.str("comment"))}
	entries = append(entries, nil)
	copy(entries[at+1:], entries[at:])
	entries[at] = entry
	conf.IPSets[name] = entries
	return nil, nil
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_read_ip: the entry
// whose address is the path's text exactly, with the list digest.
func readFirewallIPSetEntry(c *call, scope firewallScope) (any, error) {
	conf := c.cluster.firewallConfFor(scope)
	entries, err := loadFirewallIPSet(conf, c.str("name"))
	if err != nil {
		return nil, err
	}
	at, found := findIPSetEntry(entries, c.str("cidr"))
	if !found {
		return nil, paramError(map[string]string{"cidr": "no such IP/Network"})
	}
	list, _ := c.firewallIPSetEntries(scope, conf, entries)
	return list[at], nil
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_update_ip: digest
// first; nomatch and comment are both replaced, so one not given is
// dropped.
func updateFirewallIPSetEntry(c *call, scope firewallScope) (any, error) {
	conf, entries, err := changedIPSet(c, scope)
	if err != nil {
		return nil, err
	}
	at, found := findIPSetEntry(entries, c.str("cidr"))
	if !found {
		return nil, paramError(map[string]string{"cidr": "no such IP/Network"})
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	entries[at] = &FirewallIPSetEntry{CIDR: entries[at].CIDR, NoMatch: c.boolParam("nomatch"), Comment: fileComment(c.str("comment"))}
	return nil, nil
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm register_delete_ip: digest
// first; an address that is not in the set is no error.
func deleteFirewallIPSetEntry(c *call, scope firewallScope) (any, error) {
	conf, entries, err := changedIPSet(c, scope)
	if err != nil {
		return nil, err
	}
	if err := firewallFileWritable(conf, scope.fileKind(), ""); err != nil {
		return nil, err
	}
	if at, found := findIPSetEntry(entries, c.str("cidr")); found {
		conf.IPSets[c.str("name")] = append(entries[:at:at], entries[at+1:]...)
	}
	return nil, nil
}

// changedIPSet loads the set an update or a delete of an entry addresses
// and checks its digest first (pve-firewall
// src/PVE/API2/Firewall/IPSet.pm register_update_ip, register_delete_ip).
func changedIPSet(c *call, scope firewallScope) (*FirewallConf, []*FirewallIPSetEntry, error) {
	conf := c.cluster.firewallConfFor(scope)
	entries, err := loadFirewallIPSet(conf, c.str("name"))
	if err != nil {
		return nil, nil, err
	}
	if err := assertFirewallDigest(firewallIPSetDigest(entries), c.str("digest")); err != nil {
		return nil, nil, err
	}
	return conf, entries, nil
}

func firewallIPSetDigest(entries []*FirewallIPSetEntry) string {
	list := make([]map[string]any, len(entries))
	for i, e := range entries {
		list[i] = firewallIPSetEntry(e)
	}
	return firewallListDigest(list)
}
