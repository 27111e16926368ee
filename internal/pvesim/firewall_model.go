package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's digest is SHA-1; it guards edits, it is no security boundary
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// The firewall keeps its state in files under /etc/pve: cluster.fw for the
// cluster (options, rules, aliases, ipsets, security groups), nodes/N/host.fw
// for a node (options, rules), firewall/VMID.fw for a guest (options, rules,
// aliases, ipsets). Every API change is "load the file, change the parsed
// structure, write the file", so what a later GET answers is what the file
// writer kept and the parser read back (pve-firewall src/PVE/Firewall.pm
// generic_fw_config_parser, save_clusterfw_conf, save_hostfw_conf,
// save_vmfw_conf). The simulator keeps the parsed structure: each change
// stores what the round trip through the file would leave.

// FirewallState is the firewall configuration of the whole cluster.
type FirewallState struct {
	Cluster *FirewallConf
	// Hosts are the host.fw files by node name.
	Hosts map[string]*FirewallConf
	// Guests are the VMID.fw files by VMID.
	Guests map[int]*FirewallConf
}

// FirewallConf is one parsed firewall file. Sections a scope does not have
// stay nil (a host has no aliases, ipsets or groups; a guest has no groups).
type FirewallConf struct {
	// Options as the parser keeps them: lowercase keys, values as stored.
	Options map[string]string
	Rules   []FirewallRule
	// Aliases by lowercased name.
	Aliases map[string]*FirewallAlias
	// IPSets by name as the parser keys them (lowercased), entries in file
	// order.
	IPSets        map[string][]*FirewallIPSetEntry
	IPSetComments map[string]string
	// Groups are the security groups (cluster.fw only), by lowercased name.
	Groups        map[string][]FirewallRule
	GroupComments map[string]string
}

// FirewallRule is one parsed rule: the keys of PVE's rule hash (type,
// action, macro, iface, source, dest, proto, dport, sport, log, icmp-type,
// comment, enable, ipversion) with their values as PVE holds them. Errors
// are the texts verify_rule collected when the parser read an invalid rule
// back.
type FirewallRule struct {
	Fields map[string]string
	Errors map[string]string
}

// FirewallAlias is one [ALIASES] line: the name as written, the address
// and the IP version the parser derives (pve-firewall src/PVE/Firewall.pm
// parse_alias).
type FirewallAlias struct {
	Name      string
	CIDR      string
	Comment   string
	IPVersion int
}

// FirewallIPSetEntry is one line of an [IPSET name] section.
type FirewallIPSetEntry struct {
	CIDR    string
	NoMatch bool
	Comment string
	Errors  map[string]string
}

func newFirewallState() *FirewallState {
	return &FirewallState{
		Cluster: &FirewallConf{},
		Hosts:   map[string]*FirewallConf{},
		Guests:  map[int]*FirewallConf{},
	}
}

// firewallListDigest is the digest PVE gives a list and checks edits
// against: SHA-1 over every entry's defined scalar values, keys sorted, each
// as "key:value\n" (pve-firewall src/PVE/Firewall.pm copy_list_with_digest;
// values are UTF-8 bytes). Non-scalar values (a rule's errors) are left out.
func firewallListDigest(entries []map[string]any) string {
	h := sha1.New() //nolint:gosec // see the import
	for _, e := range entries {
		keys := make([]string, 0, len(e))
		for k := range e {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch v := e[k].(type) {
			case nil, map[string]string, map[string]any, []any:
				continue
			default:
				fmt.Fprintf(h, "%s:%v\n", k, v)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// withListDigest is pve-firewall src/PVE/Firewall.pm copy_list_with_digest:
// the list digest over the entries, then added to each of them.
func withListDigest(entries []map[string]any) ([]map[string]any, string) {
	digest := firewallListDigest(entries)
	for _, e := range entries {
		e["digest"] = digest
	}
	return entries, digest
}

// assertFirewallDigest is pve-common src/PVE/Tools.pm assert_if_modified:
// when both the current and the given digest are true (Perl), they must
// be equal.
func assertFirewallDigest(current, given string) error {
	if pvegrammar.PerlTruthy(current) && pvegrammar.PerlTruthy(given) && current != given {
		// pve-common src/PVE/Tools.pm assert_if_modified
		return errorf("detected modified configuration - file changed by other user? Try again.")
	}
	return nil
}

// firewallObjectDigest is the digest of an options hash: SHA-1 over its
// defined values, keys sorted, "key:value\n" (pve-firewall
// src/PVE/Firewall.pm copy_opject_with_digest).
func firewallObjectDigest(obj map[string]string) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha1.New() //nolint:gosec // see the import
	for _, k := range keys {
		fmt.Fprintf(h, "%s:%s\n", k, obj[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// firewallScope names one firewall file: the cluster's cluster.fw, a node's
// host.fw or a guest's VMID.fw. kind is "cluster", "host", "vm" or "ct"
// (PVE's rule_env of the file's rules).
type firewallScope struct {
	kind string
	node string
	vmid int
}

// fileKind is the file a scope's configuration lives in.
func (s firewallScope) fileKind() firewallFileKind {
	switch s.kind {
	case "host":
		return hostFile
	case "vm", "ct":
		return guestFile
	}
	return clusterFile
}

// clusterFirewallConf is cluster.fw, which every other file's rules and
// aliases also resolve against.
func (cl *Cluster) clusterFirewallConf() *FirewallConf {
	return cl.firewallConfFor(firewallScope{kind: "cluster"})
}

// firewallScopeOf is the scope of a firewall API call of the given kind:
// the node for "host", the VMID for "vm" and "ct".
func firewallScopeOf(c *call, kind string) firewallScope {
	sc := firewallScope{kind: kind}
	switch kind {
	case "host":
		sc.node = c.str("node")
	case "vm", "ct":
		sc.node = c.str("node")
		sc.vmid = c.intParam("vmid", 0)
	}
	return sc
}

// firewallConfFor returns the parsed file of a scope, empty when the file
// does not exist yet: PVE's loaders read a missing file as an empty
// configuration (pve-firewall src/PVE/Firewall.pm generic_fw_config_parser).
// A guest's file is keyed by VMID alone (firewall/VMID.fw), whichever node
// the call names.
func (cl *Cluster) firewallConfFor(scope firewallScope) *FirewallConf {
	if cl.Firewall == nil {
		cl.Firewall = newFirewallState()
	}
	fw := cl.Firewall
	switch scope.kind {
	case "host":
		if fw.Hosts[scope.node] == nil {
			fw.Hosts[scope.node] = &FirewallConf{}
		}
		return fw.Hosts[scope.node]
	case "vm", "ct":
		if fw.Guests[scope.vmid] == nil {
			fw.Guests[scope.vmid] = &FirewallConf{}
		}
		return fw.Guests[scope.vmid]
	default:
		if fw.Cluster == nil {
			fw.Cluster = &FirewallConf{}
		}
		return fw.Cluster
	}
}
