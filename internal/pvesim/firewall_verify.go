package pvesim

import (
	"regexp"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// A rule is checked the same way when the API changes it and when the
// parser reads it back from the file (pve-firewall src/PVE/Firewall.pm
// verify_rule): the API stops at the first problem with a 400 naming the
// parameter, the parser records every problem in the rule's errors and
// keeps the rule.

// firewallRuleKinds are the rule types each rule_env takes
// (pve-firewall src/PVE/Firewall.pm $rule_env_direction_lookup).
var firewallRuleKinds = map[string][]string{
	"ct":      {"in", "out", "group"},
	"vm":      {"in", "out", "group"},
	"group":   {"in", "out", "forward"},
	"cluster": {"in", "out", "forward", "group"},
	"host":    {"in", "out", "forward", "group"},
}

// firewallEnvAllowsIface tells which rule_envs take an interface
// (pve-firewall src/PVE/Firewall.pm $rule_env_iface_lookup).
var firewallEnvAllowsIface = map[string]bool{"ct": true, "vm": true, "group": false, "cluster": true, "host": true}

// firewallProtocolsWithPorts are the protocols whose rules may name ports
// (pve-firewall src/PVE/Firewall.pm $PROTOCOLS_WITH_PORTS).
var firewallProtocolsWithPorts = map[string]bool{
	"udp": true, "17": true, "udplite": true, "136": true, "tcp": true, "6": true,
	"dccp": true, "33": true, "sctp": true, "132": true,
}

var (
	firewallVerdict      = regexp.MustCompile(`^(ACCEPT|DROP|REJECT)$`)
	firewallGroupName    = regexp.MustCompile(`^` + pvegrammar.FirewallNamePattern + `$`)
	firewallIPSetRefName = regexp.MustCompile(`^\+(guest/|dc/|sdn/)?(` + pvegrammar.FirewallNamePattern + `)$`)
	// pve-common src/PVE/JSONSchema.pm pve_verify_iface
	firewallIfaceName = regexp.MustCompile(`^(?i)[a-z][a-z0-9_]{1,20}([:.]\d+)?$`)
	firewallGuestNIC  = regexp.MustCompile(`^net(\d+)$`)
)

func isICMPProto(proto string) bool {
	return proto == "icmp" || proto == "icmpv6" || proto == "ipv6-icmp"
}

// ruleVerifier is one run of verify_rule.
type ruleVerifier struct {
	rule    map[string]string
	cluster *FirewallConf // nil where PVE passes no cluster config
	fw      *FirewallConf // nil where PVE passes no file config
	noerr   bool
	errors  map[string]string
	// raised is the API's first problem (raise_param_exc).
	raised    error
	ipversion int
}

// add is verify_rule's $add_error: the API raises at once, the parser
// keeps the first text per parameter.
func (v *ruleVerifier) add(param, msg string) {
	msg = strings.TrimSuffix(msg, "\n")
	if !v.noerr {
		if v.raised == nil {
			v.raised = paramError(map[string]string{param: msg}) // pve-firewall src/PVE/Firewall.pm verify_rule
		}
		return
	}
	if _, ok := v.errors[param]; !ok {
		v.errors[param] = msg
	}
}

// setIPVersion is verify_rule's $set_ip_version; a second, different
// version is a plain die.
func (v *ruleVerifier) setIPVersion(version int) error {
	if version == 0 {
		return nil
	}
	if v.ipversion != 0 && v.ipversion != version {
		// pve-firewall src/PVE/Firewall.pm verify_rule $set_ip_version
		return errorf("detected mixed ipv4/ipv6 addresses in rule")
	}
	v.ipversion = version
	return nil
}

// verifyFirewallRule is pve-firewall src/PVE/Firewall.pm verify_rule. It
// canonicalises the macro name and sets ipversion in rule. With noerr (the
// parser) it returns the problems found; without (the API) the first
// problem is returned as a 400. The one plain die, an alias whose IP
// version contradicts the rule's, is returned as a 500 either way (the
// parser then drops the rule).
func verifyFirewallRule(rule map[string]string, cluster, fw *FirewallConf, env string, noerr bool) (map[string]string, error) {
	v := &ruleVerifier{rule: rule, cluster: cluster, fw: fw, noerr: noerr, errors: map[string]string{}}
	if err := v.run(env); err != nil {
		return nil, err
	}
	if v.raised != nil {
		return nil, v.raised
	}
	if v.ipversion != 0 {
		rule["ipversion"] = itoa(v.ipversion)
	}
	if len(v.errors) == 0 {
		return nil, nil
	}
	return v.errors, nil
}

func (v *ruleVerifier) failed() bool { return v.raised != nil }

func (v *ruleVerifier) run(env string) error {
	rule := v.rule
	truthy := func(k string) bool { return pvegrammar.PerlTruthy(rule[k]) }
	typ, action := rule["type"], rule["action"]

	if !truthy("type") {
		v.add("type", "missing property")
	}
	if !truthy("action") {
		v.add("action", "missing property")
	}
	if truthy("type") {
		valid := false
		for _, k := range firewallRuleKinds[env] {
			valid = valid || k == typ
		}
		if !valid {
			v.add("type", "invalid rule type '"+typ+"' for rule_env '"+env+"'")
		}
		switch typ {
		case "in", "out", "forward":
			if typ == "forward" && action == "REJECT" {
				v.add("action", "cannot define REJECT rules on forward chain")
			}
			if truthy("action") && !firewallVerdict.MatchString(action) {
				v.add("action", "unknown action '"+action+"'")
			}
		case "group":
			if env == "group" {
				v.add("type", "security groups not allowed")
			}
			if truthy("action") && !firewallGroupName.MatchString(action) {
				v.add("action", "invalid characters in security group name")
			}
		default:
			v.add("type", "unknown rule type '"+typ+"'")
		}
	}
	if v.failed() {
		return nil
	}

	if truthy("iface") {
		iface := rule["iface"]
		if !firewallEnvAllowsIface[env] {
			v.add("type", "parameter -i not allowed for this rule type")
		}
		if !firewallIfaceName.MatchString(iface) {
			v.add("iface", "invalid network interface name '"+iface+"'")
		}
		if (env == "vm" || env == "ct") && !firewallGuestNIC.MatchString(iface) {
			v.add("iface", `value does not match the regex pattern 'net\d+'`)
		}
	}
	if truthy("macro") {
		if m := firewallMacroByName[strings.ToLower(rule["macro"])]; m != nil {
			rule["macro"] = m.name
		} else {
			v.add("macro", "unknown macro '"+rule["macro"]+"'")
		}
	}
	if v.failed() {
		return nil
	}

	proto := rule["proto"]
	isICMP := false
	if truthy("proto") {
		if !pvegrammar.FirewallProtocolKnown(proto) {
			v.add("proto", "unknown protocol '"+proto+"'")
		}
		switch proto {
		case "icmp":
			_ = v.setIPVersion(4)
		case "icmpv6", "ipv6-icmp":
			_ = v.setIPVersion(6)
		}
		isICMP = isICMPProto(proto)
	}
	if truthy("dport") {
		if msg := pvegrammar.FirewallPortList(rule["dport"], isICMP); msg != "" {
			v.add("dport", msg)
		}
		if !truthy("proto") {
			v.add("proto", "missing property - 'dport' requires this property")
		}
		if !firewallProtocolsWithPorts[proto] && !isICMP {
			v.add("dport", "protocol '"+proto+"' does not support ports")
		}
	}
	if icmpType := rule["icmp-type"]; pvegrammar.PerlTruthy(icmpType) {
		if !isICMP {
			v.add("proto", "missing property - 'icmp-type' requires this property")
		}
		if truthy("dport") {
			v.add("icmp-type", "'icmp-type' cannot be specified together with 'dport'")
		}
		switch {
		case proto == "icmp" && !pvegrammar.ICMPTypes[icmpType]:
			v.add("icmp-type", "invalid icmp-type '"+icmpType+"' for proto 'icmp'")
		case (proto == "icmpv6" || proto == "ipv6-icmp") && !pvegrammar.ICMPv6Types[icmpType]:
			v.add("icmp-type", "invalid icmp-type '"+icmpType+"' for proto '"+proto+"'")
		}
	}
	if truthy("sport") {
		if msg := pvegrammar.FirewallPortList(rule["sport"], false); msg != "" {
			v.add("sport", msg)
		}
		if !truthy("proto") {
			v.add("proto", "missing property - 'sport' requires this property")
		}
		if !firewallProtocolsWithPorts[proto] {
			v.add("sport", "protocol '"+proto+"' does not support ports")
		}
	}
	if v.failed() {
		return nil
	}

	for _, field := range []string{"source", "dest"} {
		if !truthy(field) {
			continue
		}
		version, msg := pvegrammar.FirewallAddressList(rule[field])
		if msg == "" {
			if err := v.setIPVersion(version); err != nil {
				msg = "detected mixed ipv4/ipv6 addresses in rule"
			}
		}
		if msg != "" {
			v.add(field, msg)
		}
		if v.failed() {
			return nil
		}
		if err := v.checkReference(field); err != nil || v.failed() {
			return err
		}
	}

	if truthy("macro") && len(v.errors) == 0 {
		if param, msg := applyFirewallMacro(rule, v.ipversion); msg != "" {
			v.add(param, msg)
		}
	}
	return nil
}

// checkReference is verify_rule's $check_ipset_or_alias_property: an ipset
// must exist in the cluster's or the file's config, an alias in either; the
// alias's IP version joins the rule's, from the file's config unless "dc/"
// and the cluster's unless "guest/" (resolve_alias's choice). Both are
// looked up as the IPSet and alias API stores them (hasIPSet, alias).
func (v *ruleVerifier) checkReference(field string) error {
	value := v.rule[field]
	if strings.HasPrefix(value, "+") {
		m := firewallIPSetRefName.FindStringSubmatch(value)
		if m == nil {
			v.add(field, "invalid ipset name '"+value+"'")
			return nil
		}
		name := m[2]
		if !v.cluster.hasIPSet(name) && !v.fw.hasIPSet(name) {
			// pve-firewall src/PVE/Firewall.pm verify_rule
			// $check_ipset_or_alias_property. not simulated: SDN, whose
			// ipsets ("+sdn/NAME") PVE looks up too; such a reference
			// fails here as an unknown ipset.
			v.add(field, "no such ipset '"+name+"'")
		}
		return nil
	}
	scope, name, ok := pvegrammar.AliasReference(value)
	if !ok {
		return nil
	}
	if v.cluster.alias(name) == nil && v.fw.alias(name) == nil {
		// pve-firewall src/PVE/Firewall.pm verify_rule
		// $check_ipset_or_alias_property
		v.add(field, "no such alias '"+value+"'")
	}
	if e := resolveFirewallAlias(v.fw, v.cluster, scope, name); e != nil {
		return v.setIPVersion(e.IPVersion)
	}
	return nil
}

// applyFirewallMacro is the check part of pve-firewall
// src/PVE/Firewall.pm $apply_macro: a rule field the macro's template also
// sets must have the template's value. It returns the first conflict
// (template by template; within one, dport, proto, sport: PVE walks a hash
// in random order). Macros of the other IP version are not checked.
func applyFirewallMacro(rule map[string]string, ipversion int) (string, string) {
	m := firewallMacroByName[strings.ToLower(rule["macro"])]
	if m == nil {
		return "macro", "unknown macro '" + rule["macro"] + "'"
	}
	templates := m.rules
	if ipversion == 6 && m.v6rules != nil {
		templates = m.v6rules
	}
	if ipversion != 0 && m.ipversion != 0 && ipversion != m.ipversion {
		return "", ""
	}
	for _, t := range templates {
		for _, kv := range [][2]string{{"dport", t.dport}, {"proto", t.proto}, {"sport", t.sport}} {
			given, ok := rule[kv[0]]
			if kv[1] == "" || !ok {
				continue
			}
			if given != kv[1] {
				return kv[0], "parameter '" + kv[0] + "' already define in macro (value = '" + kv[1] + "')"
			}
		}
	}
	return "", ""
}
