package wire

import (
	"fmt"
	"strings"
)

// FirewallRuleEnv is where a rule lives, PVE's rule_env: the cluster's
// rules, a node's, a VM's, a container's, or a security group's.
type FirewallRuleEnv string

const (
	FirewallEnvCluster FirewallRuleEnv = "cluster"
	FirewallEnvHost    FirewallRuleEnv = "host"
	FirewallEnvVM      FirewallRuleEnv = "vm"
	FirewallEnvCT      FirewallRuleEnv = "ct"
	FirewallEnvGroup   FirewallRuleEnv = "group"
)

// firewallRuleTypes are the rule types each env takes:
// $rule_env_direction_lookup in pve-firewall src/PVE/Firewall.pm.
var firewallRuleTypes = map[FirewallRuleEnv][]string{
	FirewallEnvCluster: {"in", "out", "forward", "group"},
	FirewallEnvHost:    {"in", "out", "forward", "group"},
	FirewallEnvVM:      {"in", "out", "group"},
	FirewallEnvCT:      {"in", "out", "group"},
	FirewallEnvGroup:   {"in", "out", "forward"},
}

// firewallLogLevels is the pve-fw-loglevel enum in pve-firewall
// src/PVE/Firewall.pm.
var firewallLogLevels = setOf("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", "nolog")

// Length limits of rule parameters ($rule_properties in pve-firewall
// src/PVE/Firewall.pm; iface is pve-common's pve-iface option).
const (
	maxFirewallAddressLength = 512
	maxFirewallMacroLength   = 128
	maxFirewallIfaceLength   = 20
)

var (
	// ifacePattern is pve-common's pve-iface format (src/PVE/JSONSchema.pm
	// pve_verify_iface).
	ifacePattern = lazyPattern(`^[a-zA-Z][a-zA-Z0-9_]{1,20}(?:[:.]\d+)?$`)
	// guestIfacePattern is what verify_rule demands of a guest rule's iface:
	// a network device key.
	guestIfacePattern = lazyPattern(`^net\d+$`)
)

// FirewallRuleFields are a rule's parameters as PVE names them, each empty
// when unset.
type FirewallRuleFields struct {
	Type, Action, Macro, Iface, Source, Dest, Proto, Dport, Sport, Log, ICMPType, Comment string
}

// FieldProblem is one thing wrong with a rule: Field is PVE's parameter name
// ("dport", "icmp-type"), Message says what to change.
type FieldProblem struct {
	Field   string
	Message string
}

// FirewallRuleProblems returns what PVE would refuse in rule r for env (W55), as
// far as that can be known without the cluster's state (pve-firewall
// src/PVE/Firewall.pm verify_rule and the parameter formats of
// $rule_properties), plus what PVE would accept but not keep. PVE reports
// only its first problem; this returns all, each on the parameter PVE
// names. Not checked here: whether a macro, a security group, an IP set, an
// alias, a protocol or a service exists, and what a macro's own ports and
// protocol make of the rule.
func FirewallRuleProblems(r FirewallRuleFields, env FirewallRuleEnv) []FieldProblem {
	var problems []FieldProblem
	add := func(field, format string, args ...any) {
		problems = append(problems, FieldProblem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	validTypes, knownEnv := firewallRuleTypes[env]
	if !knownEnv {
		add("type", "unknown firewall rule scope %q", string(env))
		return problems
	}

	switch {
	case r.Type == "":
		add("type", "a rule needs a type: one of %s", strings.Join(validTypes, ", "))
	case r.Type == "group" && env == FirewallEnvGroup:
		add("type", "a security group cannot contain group rules: only in, out and forward rules")
	case !containsString(validTypes, r.Type):
		add("type", "rule type %q is not allowed here: use one of %s", r.Type, strings.Join(validTypes, ", "))
	}

	switch r.Type {
	case "in", "out", "forward":
		switch r.Action {
		case "":
			add("action", "a rule needs an action: ACCEPT, DROP or REJECT")
		case "ACCEPT", "DROP":
		case "REJECT":
			if r.Type == "forward" {
				add("action", "a forward rule cannot REJECT: use DROP")
			}
		default:
			add("action", "unknown action %q: use ACCEPT, DROP or REJECT (in capitals)", r.Action)
		}
	case "group":
		if r.Action == "" {
			add("action", "a group rule needs the security group's name as its action")
		} else if err := ValidateFirewallName(FirewallGroupName, r.Action); err != nil {
			add("action", "%s", err)
		}
		// W56: the rule file's writer ($format_rules in pve-firewall
		// src/PVE/Firewall.pm) keeps only type, action, iface, enable and
		// comment of a group rule, and writes a macro as part of the action,
		// which the parser then reads back as an invalid group name. PVE
		// accepts these and loses them silently, so they are refused.
		for _, dropped := range []struct{ field, value string }{
			{"macro", r.Macro}, {"source", r.Source}, {"dest", r.Dest}, {"proto", r.Proto},
			{"dport", r.Dport}, {"sport", r.Sport}, {"log", r.Log}, {"icmp-type", r.ICMPType},
		} {
			if dropped.value != "" {
				add(dropped.field, "a group rule takes only the security group, an interface and a comment: PVE would drop %s from it", dropped.field)
			}
		}
	default:
		if r.Action == "" {
			add("action", "a rule needs an action: ACCEPT, DROP or REJECT, or a security group's name for a group rule")
		}
	}

	if r.Iface != "" {
		switch {
		case env == FirewallEnvGroup:
			// verify_rule reports this on "type" ("parameter -i not allowed
			// for this rule type"); the interface is what to change.
			add("iface", "a security group's rules cannot name an interface: set it on the group rule that uses the group")
		case len(r.Iface) < 2 || len(r.Iface) > maxFirewallIfaceLength || !ifacePattern().MatchString(r.Iface):
			add("iface", "invalid network interface name %q", r.Iface)
		case (env == FirewallEnvVM || env == FirewallEnvCT) && !guestIfacePattern().MatchString(r.Iface):
			add("iface", "a guest's rule names its interface by network device key (net0, net1, ...), not %q", r.Iface)
		}
	}

	if len(r.Macro) > maxFirewallMacroLength {
		add("macro", "macro name is longer than %d characters", maxFirewallMacroLength)
	}

	if r.Log != "" && !firewallLogLevels[r.Log] {
		add("log", "unknown log level %q: use one of emerg, alert, crit, err, warning, notice, info, debug, nolog", r.Log)
	}

	// W56: the file holds one rule per line.
	if strings.ContainsAny(r.Comment, "\r\n") {
		add("comment", "a rule's comment must be one line: PVE stores each rule as one line of its firewall file, and a line break would corrupt the file")
	}

	if r.Type == "group" {
		return problems
	}
	return append(problems, firewallMatchProblems(r)...)
}

// firewallMatchProblems checks what a rule matches on: protocol, ports,
// ICMP type and addresses, in verify_rule's order, which is also the order
// in which it fixes the rule's IP version (protocol, then source, then
// dest), so a mix is reported on the parameter where it shows.
func firewallMatchProblems(r FirewallRuleFields) []FieldProblem {
	var problems []FieldProblem
	add := func(field, format string, args ...any) {
		problems = append(problems, FieldProblem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	ipVersion := 0
	icmp := isICMPProtocol(r.Proto)
	switch {
	case r.Proto == "icmp":
		ipVersion = 4
	case icmp:
		ipVersion = 6
	case strings.ContainsAny(r.Proto, " \t\r\n,"):
		add("proto", "invalid protocol %q: give one protocol name or number from /etc/protocols", r.Proto)
	}

	if r.Dport != "" {
		if err := ValidateFirewallPorts(r.Dport, icmp); err != nil {
			add("dport", "%s", err)
		}
		switch {
		case r.Proto == "":
			add("proto", "a rule with dport needs a protocol (tcp, udp, udplite, dccp or sctp)")
		case !FirewallProtocolHasPorts(r.Proto) && !icmp:
			add("dport", "protocol %q has no ports: dport needs tcp, udp, udplite, dccp or sctp", r.Proto)
		}
	}

	if r.ICMPType != "" {
		if !icmp {
			add("proto", "icmp-type needs the protocol icmp, icmpv6 or ipv6-icmp")
		}
		if r.Dport != "" {
			add("icmp-type", "icmp-type cannot be given together with dport")
		}
		switch {
		case icmp && !FirewallICMPType(r.Proto, r.ICMPType):
			add("icmp-type", "invalid icmp-type %q for protocol %q", r.ICMPType, r.Proto)
		case !icmp && !icmpTypeNames[r.ICMPType] && !icmpv6TypeNames[r.ICMPType]:
			add("icmp-type", "invalid icmp-type %q", r.ICMPType)
		}
	}

	if r.Sport != "" {
		if err := ValidateFirewallPorts(r.Sport, false); err != nil {
			add("sport", "%s", err)
		}
		switch {
		case r.Proto == "":
			add("proto", "a rule with sport needs a protocol (tcp, udp, udplite, dccp or sctp)")
		case !FirewallProtocolHasPorts(r.Proto):
			add("sport", "protocol %q has no ports: sport needs tcp, udp, udplite, dccp or sctp", r.Proto)
		}
	}

	for _, address := range []struct{ field, value string }{{"source", r.Source}, {"dest", r.Dest}} {
		if address.value == "" {
			continue
		}
		if len(address.value) > maxFirewallAddressLength {
			add(address.field, "%s is longer than %d characters", address.field, maxFirewallAddressLength)
			continue
		}
		version, err := ValidateFirewallAddress(address.value)
		if err != nil {
			add(address.field, "%s", err)
			continue
		}
		if version != 0 && ipVersion != 0 && version != ipVersion {
			add(address.field, "%s is IPv%d but the rule is already IPv%d (%s): one rule cannot mix IPv4 and IPv6",
				address.field, version, ipVersion, ipVersionCause(r, address.field))
			continue
		}
		if version != 0 {
			ipVersion = version
		}
	}
	return problems
}

// ipVersionCause names what fixed a rule's IP version before field.
func ipVersionCause(r FirewallRuleFields, field string) string {
	if field == "dest" && r.Source != "" {
		if v, err := ValidateFirewallAddress(r.Source); err == nil && v != 0 {
			return "by its source"
		}
	}
	return fmt.Sprintf("by its protocol %s", r.Proto)
}

func containsString(list []string, s string) bool {
	for _, item := range list {
		if item == s {
			return true
		}
	}
	return false
}

// SameFirewallMacro reports whether two macro names name the same macro
// (W56).
// PVE matches a rule's macro case-insensitively and stores its own spelling
// ("ssh" becomes "SSH"): verify_rule looks the name up in
// $pve_fw_preferred_macro_names by lc and replaces it. Macro names are
// ASCII.
func SameFirewallMacro(a, b string) bool {
	return strings.EqualFold(a, b)
}
