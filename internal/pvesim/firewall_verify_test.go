package pvesim

import (
	"net/http"
	"testing"
)

// verify_rule's refusals through the API: a 400 naming the first problem
// (pve-firewall src/PVE/Firewall.pm verify_rule, $apply_macro).
// Wire rules: W53, W54, W55.
func TestFirewallRuleVerifyRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.Update(func(cl *Cluster) error {
		fw := cl.clusterFirewallConf()
		fw.Aliases = map[string]*FirewallAlias{
			"office": {Name: "Office", CIDR: "10.1.0.0/16", IPVersion: 4},
			"lab6":   {Name: "lab6", CIDR: "fd00::/64", IPVersion: 6},
		}
		fw.IPSets = map[string][]*FirewallIPSetEntry{"admins": {}}
		fw.Groups = map[string][]FirewallRule{"web": {}}
		guest := cl.firewallConfFor(firewallScope{kind: "vm", vmid: 100})
		guest.Aliases = map[string]*FirewallAlias{"gw": {Name: "gw", CIDR: "fd00::1", IPVersion: 6}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	const (
		cluster = "/cluster/firewall/rules"
		vm      = "/nodes/pve1/qemu/100/firewall/rules"
		group   = "/cluster/firewall/groups/web"
	)
	for _, tc := range []struct {
		base  string
		kv    []string
		param string
		text  string
	}{
		{cluster, []string{"type", "in", "action", "accept"}, "action", "unknown action 'accept'"},
		{cluster, []string{"type", "forward", "action", "REJECT"}, "action", "cannot define REJECT rules on forward chain"},
		{vm, []string{"type", "forward", "action", "ACCEPT"}, "type", "invalid rule type 'forward' for rule_env 'vm'"},
		{group, []string{"type", "group", "action", "web"}, "type", "invalid rule type 'group' for rule_env 'group'"},
		{group, []string{"type", "in", "action", "ACCEPT", "iface", "eth0"}, "type", "parameter -i not allowed for this rule type"},
		{vm, []string{"type", "in", "action", "ACCEPT", "iface", "eth0"}, "iface", `value does not match the regex pattern 'net\d+'`},
		{cluster, []string{"type", "in", "action", "ACCEPT", "macro", "nosuch"}, "macro", "unknown macro 'nosuch'"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "macro", "SSH", "proto", "tcp", "dport", "23"},
			"dport", "parameter 'dport' already define in macro (value = '22')"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "macro", "DNS", "proto", "tcp"},
			"proto", "parameter 'proto' already define in macro (value = 'udp')"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "dport", "22"}, "proto", "missing property - 'dport' requires this property"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "47", "dport", "22"}, "dport", "protocol '47' does not support ports"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "icmp-type", "echo-request"}, "proto", "missing property - 'icmp-type' requires this property"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "icmp-type", "neighbor-solicitation"},
			"icmp-type", "invalid icmp-type 'neighbor-solicitation' for proto 'icmp'"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "icmp-type", "echo-request", "dport", "echo-reply"},
			"icmp-type", "'icmp-type' cannot be specified together with 'dport'"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "sport", "53"}, "sport", "protocol 'icmp' does not support ports"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "10.0.0.1", "dest", "fd00::1"}, "dest", "detected mixed ipv4/ipv6 addresses in rule"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "source", "fd00::1"}, "source", "detected mixed ipv4/ipv6 addresses in rule"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "+nosuch"}, "source", "no such ipset 'nosuch'"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "+Admins"}, "source", "no such ipset 'Admins'"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "nosuch"}, "source", "no such alias 'nosuch'"},
		{vm, []string{"type", "in", "action", "ACCEPT", "dest", "guest/office"}, "", ""},
		// The schema's formats (src/PVE/Firewall.pm pve_fw_verify_*).
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "tcp", "dport", "70000"}, "dport", "invalid format - invalid port '70000'\n"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "foo"}, "proto", "invalid format - unknown protocol 'foo'\n"},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "10.0.0.1/8"}, "source",
			"invalid format - invalid IP address: Invalid prefix 00001010000000000000000000000001/8\n"},
		// Accepted forms.
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "dport", "echo-request"}, "", ""},
		{cluster, []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "dport", "22"}, "", ""},
		{cluster, []string{"type", "in", "action", "ACCEPT", "macro", "ping", "source", "fd00::1"}, "", ""},
		{cluster, []string{"type", "in", "action", "ACCEPT", "macro", "DHCPv6", "source", "10.0.0.1", "proto", "tcp", "dport", "1"}, "", ""},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "OFFICE", "dest", "10.2.0.0/16"}, "", ""},
		{cluster, []string{"type", "in", "action", "ACCEPT", "source", "+admins", "dest", "dc/lab6"}, "", ""},
		{cluster, []string{"type", "group", "action", "nosuchgroup"}, "", ""},
		{vm, []string{"type", "group", "action", "web", "iface", "net0"}, "", ""},
	} {
		a := e.call(t, http.MethodPost, tc.base, form(tc.kv...))
		if tc.param == "" {
			if a.status != http.StatusOK {
				t.Errorf("%v: %d %s", tc.kv, a.status, a.body)
			}
			continue
		}
		if a.status != http.StatusBadRequest || a.errors[tc.param] != tc.text {
			t.Errorf("%v: %d %q, want 400 %s: %q", tc.kv, a.status, a.errors, tc.param, tc.text)
		}
	}
	// An alias's IP version that contradicts the rule's is a plain die.
	e.call(t, http.MethodPost, cluster, form("type", "in", "action", "ACCEPT", "source", "10.0.0.1", "dest", "lab6")).
		wantStatus(t, http.StatusInternalServerError, "detected mixed ipv4/ipv6 addresses in rule")
	e.call(t, http.MethodPost, vm, form("type", "in", "action", "ACCEPT", "source", "10.0.0.1", "dest", "gw")).
		wantStatus(t, http.StatusInternalServerError, "detected mixed ipv4/ipv6 addresses in rule")
	// The alias's version counts in the stored rule.
	list := e.fwRules(t, cluster)
	if list[2]["ipversion"] != float64(4) || list[2]["source"] != "OFFICE" || list[1]["ipversion"] != float64(6) {
		t.Errorf("alias rules = %v", list)
	}
}

// update_rule's delete list (pve-firewall src/PVE/Firewall.pm
// delete_rule_properties) and its verification of the changed rule.
func TestFirewallRuleUpdateDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := "/nodes/pve1/lxc/200/firewall/rules"
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "proto", "tcp", "dport", "22", "comment", "ssh")).wantNull(t)
	e.call(t, http.MethodPut, base+"/0", form("delete", "foo")).wantParamError(t, "delete", "no such property ('foo')")
	e.call(t, http.MethodPut, base+"/0", form("delete", "action")).wantParamError(t, "delete", "unable to delete required property 'action'")
	e.call(t, http.MethodPut, base+"/0", form("delete", "proto")).wantParamError(t, "proto", "missing property - 'dport' requires this property")
	e.call(t, http.MethodPut, base+"/0", form("delete", "proto,dport", "comment", "none", "enable", "1")).wantNull(t)
	r := e.fwRules(t, base)[0]
	if _, ok := r["proto"]; ok || r["comment"] != "none" || r["enable"] != float64(1) {
		t.Fatalf("rule = %v", r)
	}
	e.call(t, http.MethodPut, base+"/0", form("comment", "x", "delete", "comment")).wantNull(t)
	if r := e.fwRules(t, base)[0]; r["comment"] != nil {
		t.Fatalf("comment kept: %v", r)
	}
	e.call(t, http.MethodPut, base+"/0", form("macro", "http")).wantNull(t)
	if r := e.fwRules(t, base)[0]; r["macro"] != "HTTP" {
		t.Fatalf("macro = %v", r["macro"])
	}
}

// A rule sees the aliases and IPSets the API created as PVE's verify_rule
// sees them in the loaded file (pve-firewall src/PVE/Firewall.pm
// verify_rule $check_ipset_or_alias_property): an alias by its name in any
// case, an IPSet by the name as written, which after the file round trip
// is the lowercased one.
func TestFirewallRuleReferencesAPISets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	const (
		dc      = "/cluster/firewall"
		guest   = "/nodes/pve1/qemu/100/firewall"
		cluster = dc + "/rules"
		vm      = guest + "/rules"
	)
	runFirewallSteps(t, e, []fwStep{
		{name: "cluster alias", method: http.MethodPost, path: dc + "/aliases", form: form("name", "Office", "cidr", "10.1.0.5/32")},
		{name: "cluster set", method: http.MethodPost, path: dc + "/ipset", form: form("name", "Admins")},
		{name: "guest alias", method: http.MethodPost, path: guest + "/aliases", form: form("name", "gw", "cidr", "fd00::1")},
		{name: "guest set", method: http.MethodPost, path: guest + "/ipset", form: form("name", "local")},
	})
	for _, tc := range []struct {
		base  string
		kv    []string
		param string
		text  string
	}{
		{cluster, []string{"source", "Office"}, "", ""},
		{cluster, []string{"source", "OFFICE", "dest", "dc/office"}, "", ""},
		{cluster, []string{"source", "+admins"}, "", ""},
		{cluster, []string{"source", "+dc/admins"}, "", ""},
		{cluster, []string{"source", "+Admins"}, "source", "no such ipset 'Admins'"},
		{cluster, []string{"source", "+nosuch"}, "source", "no such ipset 'nosuch'"},
		{cluster, []string{"dest", "nosuch"}, "dest", "no such alias 'nosuch'"},
		{cluster, []string{"source", "dc/NoSuch"}, "source", "no such alias 'dc/NoSuch'"},
		{cluster, []string{"source", "gw"}, "source", "no such alias 'gw'"},
		{cluster, []string{"source", "+local"}, "source", "no such ipset 'local'"},
		// The alias's IP version is the rule's.
		{cluster, []string{"source", "office", "dest", "fd00::2"}, "dest", "detected mixed ipv4/ipv6 addresses in rule"},
		{vm, []string{"source", "gw", "dest", "+local"}, "", ""},
		{vm, []string{"source", "guest/GW", "dest", "+admins"}, "", ""},
		{vm, []string{"source", "dc/office"}, "", ""},
		{vm, []string{"source", "+Local"}, "source", "no such ipset 'Local'"},
		{vm, []string{"dest", "guest/nosuch"}, "dest", "no such alias 'guest/nosuch'"},
	} {
		kv := append([]string{"type", "in", "action", "ACCEPT"}, tc.kv...)
		a := e.call(t, http.MethodPost, tc.base, form(kv...))
		if tc.param == "" {
			if a.status != http.StatusOK {
				t.Errorf("%s %v: %d %s", tc.base, tc.kv, a.status, a.body)
			}
			continue
		}
		if a.status != http.StatusBadRequest || a.errors[tc.param] != tc.text {
			t.Errorf("%s %v: %d %q, want 400 %s: %q", tc.base, tc.kv, a.status, a.errors, tc.param, tc.text)
		}
	}
	// The stored rules carry the aliases' IP versions.
	list := e.fwRules(t, vm)
	if len(list) != 3 || list[0]["ipversion"] != float64(4) || list[2]["ipversion"] != float64(6) {
		t.Fatalf("guest rules = %v", list)
	}
	// A rule already stored notes an alias deleted since when the file is
	// read again.
	e.call(t, http.MethodDelete, guest+"/aliases/gw", nil).wantNull(t)
	r := e.fwRules(t, vm)[2]
	if errs, _ := r["errors"].(map[string]any); errs["source"] != "no such alias 'gw'" {
		t.Fatalf("rule with a deleted alias = %v", r)
	}
}
