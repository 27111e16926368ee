package pvesim

import (
	"strconv"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Firewall options of the cluster, a node and a guest (pve-firewall
// src/PVE/API2/Firewall/Cluster.pm, Host.pm and VM.pm get_options and
// set_options). The values are what the file's option parser reads back;
// an option it cannot read (a negative synflood rate) is lost.

// firewallOptionNames are the options each scope's API sets and deletes
// (pve-firewall src/PVE/Firewall.pm $cluster_option_properties,
// $host_option_properties, $vm_option_properties).
var firewallOptionNames = map[string][]string{
	"cluster": {"enable", "ebtables", "policy_in", "policy_out", "policy_forward", "log_ratelimit"},
	"host": {"enable", "log_level_in", "log_level_out", "log_level_forward", "tcp_flags_log_level",
		"smurf_log_level", "nosmurfs", "tcpflags", "nf_conntrack_max", "nf_conntrack_tcp_timeout_established",
		"nf_conntrack_tcp_timeout_syn_recv", "ndp", "nf_conntrack_allow_invalid", "nf_conntrack_helpers",
		"protection_synflood", "protection_synflood_rate", "protection_synflood_burst", "log_nf_conntrack",
		"nftables"},
	"vm": {"enable", "macfilter", "dhcp", "ndp", "radv", "ipfilter", "policy_in", "policy_out",
		"log_level_in", "log_level_out"},
}

// firewallOptionSet is the entry of firewallOptionNames a scope's API
// uses: a container's options are a VM's.
func firewallOptionSet(kind string) string {
	if kind == "ct" {
		return "vm"
	}
	return kind
}

// loadFirewallOptions reads a scope's options as a fresh load does.
func loadFirewallOptions(c *call, kind string) (*FirewallConf, firewallFileKind, map[string]string) {
	scope := firewallScopeOf(c, kind)
	conf := c.cluster.firewallConfFor(scope)
	return conf, scope.fileKind(), roundTripOptions(scope.fileKind(), conf.Options, c.sim.now().Unix())
}

// firewallOptionsAnswer is copy_opject_with_digest: the options with their
// digest; the parser's int() values are numbers.
func firewallOptionsAnswer(opts map[string]string) (map[string]any, string) {
	digest := firewallObjectDigest(opts)
	out := make(map[string]any, len(opts)+1)
	for k, v := range opts {
		out[k] = v
		if firewallOptionInts[k] {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[k] = n
			}
		}
	}
	out["digest"] = digest
	return out, digest
}

func getFirewallOptions(kind string) handlerFunc {
	// pve-firewall src/PVE/API2/Firewall/Cluster.pm, Host.pm, VM.pm get_options
	return func(c *call) (any, error) {
		_, _, opts := loadFirewallOptions(c, kind)
		out, _ := firewallOptionsAnswer(opts)
		return out, nil
	}
}

// setFirewallOptions checks the digest, deletes, then sets. The cluster's
// enable above 1 stores the current time (the anti-lockout double call:
// the parser reads it as 0 once a minute has passed); a node's and a
// guest's enable is stored as 0 or 1 (pve-firewall
// src/PVE/API2/Firewall/Cluster.pm, Host.pm, VM.pm set_options).
func setFirewallOptions(kind string) handlerFunc {
	return func(c *call) (any, error) {
		conf, fileKind, opts := loadFirewallOptions(c, kind)
		_, digest := firewallOptionsAnswer(opts)
		if err := assertFirewallDigest(digest, c.str("digest")); err != nil {
			return nil, err
		}
		scope := firewallOptionSet(kind)
		names := firewallOptionNames[scope]
		known := map[string]bool{}
		for _, n := range names {
			known[n] = true
		}
		if del := c.str("delete"); pvegrammar.PerlTruthy(del) {
			for _, opt := range splitList(del) {
				if !known[opt] {
					// pve-firewall src/PVE/API2/Firewall/Cluster.pm set_options
					return nil, paramError(map[string]string{"delete": "no such option '" + opt + "'"})
				}
				delete(opts, opt)
			}
		}
		if v, ok := c.param("enable"); ok {
			switch {
			case scope == "cluster":
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 1 {
					c.params["enable"] = strconv.FormatInt(c.sim.now().Unix(), 10)
				}
			case pvegrammar.PerlTruthy(v):
				c.params["enable"] = "1"
			default:
				c.params["enable"] = "0"
			}
		}
		for _, n := range names {
			if v, ok := c.param(n); ok {
				opts[n] = v
			}
		}
		if err := firewallFileWritable(conf, fileKind, ""); err != nil {
			return nil, err
		}
		conf.Options = roundTripOptions(fileKind, opts, c.sim.now().Unix())
		return nil, nil
	}
}

// The directory indexes (pve-firewall src/PVE/API2/Firewall/Cluster.pm,
// Host.pm and VM.pm index).
func firewallIndex(names ...string) handlerFunc {
	return func(*call) (any, error) {
		out := make([]map[string]any, len(names))
		for i, n := range names {
			out[i] = map[string]any{"name": n}
		}
		return out, nil
	}
}
