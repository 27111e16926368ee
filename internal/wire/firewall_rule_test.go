package wire

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func problemFields(problems []FieldProblem) []string {
	fields := make([]string, len(problems))
	for i, p := range problems {
		fields[i] = p.Field
	}
	return fields
}

func TestFirewallRuleProblemsW55(t *testing.T) {
	t.Parallel()
	ssh := FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "tcp", Dport: "22", Source: "10.0.0.0/24",
		Log: "info", Comment: "ssh from the office"}
	with := func(change func(*FirewallRuleFields)) FirewallRuleFields {
		r := ssh
		change(&r)
		return r
	}
	tests := []struct {
		name string
		rule FirewallRuleFields
		env  FirewallRuleEnv
		want []string
	}{
		{"valid in rule", ssh, FirewallEnvCluster, nil},
		{"valid guest rule", with(func(r *FirewallRuleFields) { r.Iface = "net0" }), FirewallEnvVM, nil},
		{"valid container rule", with(func(r *FirewallRuleFields) { r.Type = "out" }), FirewallEnvCT, nil},
		{"valid host forward rule", with(func(r *FirewallRuleFields) { r.Type = "forward"; r.Iface = "vmbr0.100" }), FirewallEnvHost, nil},
		{"valid rule in a group", with(func(r *FirewallRuleFields) { r.Type = "forward"; r.Action = "DROP" }), FirewallEnvGroup, nil},
		{"macro only", FirewallRuleFields{Type: "in", Action: "ACCEPT", Macro: "SSH"}, FirewallEnvHost, nil},
		{"no type, no action", FirewallRuleFields{}, FirewallEnvCluster, []string{"type", "action"}},
		{"unknown scope", ssh, FirewallRuleEnv("vnet"), []string{"type"}},
		{"type in capitals", with(func(r *FirewallRuleFields) { r.Type = "IN" }), FirewallEnvCluster, []string{"type"}},
		{"forward on a guest", with(func(r *FirewallRuleFields) { r.Type = "forward" }), FirewallEnvVM, []string{"type"}},
		{"forward REJECT", with(func(r *FirewallRuleFields) { r.Type = "forward"; r.Action = "REJECT" }), FirewallEnvCluster, []string{"action"}},
		{"action in lowercase", with(func(r *FirewallRuleFields) { r.Action = "accept" }), FirewallEnvCluster, []string{"action"}},
		{"no action", with(func(r *FirewallRuleFields) { r.Action = "" }), FirewallEnvCluster, []string{"action"}},
		{"group rule", FirewallRuleFields{Type: "group", Action: "webservers", Iface: "net1", Comment: "web"}, FirewallEnvVM, nil},
		{"group rule in a group", FirewallRuleFields{Type: "group", Action: "webservers"}, FirewallEnvGroup, []string{"type"}},
		{"group rule with a bad name", FirewallRuleFields{Type: "group", Action: "1web"}, FirewallEnvCluster, []string{"action"}},
		{"group rule with a long name", FirewallRuleFields{Type: "group", Action: strings.Repeat("a", 19)}, FirewallEnvCluster, []string{"action"}},
		{"group rule without a name", FirewallRuleFields{Type: "group"}, FirewallEnvCluster, []string{"action"}},
		{"group rule keeps nothing else", FirewallRuleFields{Type: "group", Action: "webservers", Macro: "SSH", Source: "10.0.0.1",
			Dest: "10.0.0.2", Proto: "tcp", Dport: "22", Sport: "1024:65535", Log: "info", ICMPType: "any"}, FirewallEnvHost,
			[]string{"macro", "source", "dest", "proto", "dport", "sport", "log", "icmp-type"}},
		{"interface in a group", with(func(r *FirewallRuleFields) { r.Iface = "net0" }), FirewallEnvGroup, []string{"iface"}},
		{"guest interface not netN", with(func(r *FirewallRuleFields) { r.Iface = "eth0" }), FirewallEnvCT, []string{"iface"}},
		{"host interface", with(func(r *FirewallRuleFields) { r.Iface = "eth0" }), FirewallEnvHost, nil},
		{"interface too short", with(func(r *FirewallRuleFields) { r.Iface = "e" }), FirewallEnvHost, []string{"iface"}},
		{"interface with a space", with(func(r *FirewallRuleFields) { r.Iface = "eth 0" }), FirewallEnvHost, []string{"iface"}},
		{"dport without protocol", with(func(r *FirewallRuleFields) { r.Proto = "" }), FirewallEnvCluster, []string{"proto"}},
		{"sport without protocol", FirewallRuleFields{Type: "in", Action: "DROP", Sport: "53"}, FirewallEnvCluster, []string{"proto"}},
		{"dport on a protocol without ports", with(func(r *FirewallRuleFields) { r.Proto = "gre" }), FirewallEnvCluster, []string{"dport"}},
		{"bad dport", with(func(r *FirewallRuleFields) { r.Dport = "80:70" }), FirewallEnvCluster, []string{"dport"}},
		{"ICMP type in dport", with(func(r *FirewallRuleFields) { r.Proto = "icmp"; r.Dport = "echo-request" }), FirewallEnvCluster, nil},
		{"sport on icmp", with(func(r *FirewallRuleFields) { r.Proto = "icmp"; r.Dport = ""; r.Sport = "1" }), FirewallEnvCluster, []string{"sport"}},
		{"icmp-type", FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "icmp", ICMPType: "echo-request"}, FirewallEnvCluster, nil},
		{"icmpv6 type", FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "ipv6-icmp", ICMPType: "neighbour-solicitation",
			Source: "fe80::/10"}, FirewallEnvCluster, nil},
		{"icmp-type on tcp", with(func(r *FirewallRuleFields) { r.Dport = ""; r.ICMPType = "echo-request" }), FirewallEnvCluster, []string{"proto"}},
		{"icmp-type with dport", with(func(r *FirewallRuleFields) { r.Proto = "icmp"; r.Dport = "8"; r.ICMPType = "echo-request" }),
			FirewallEnvCluster, []string{"icmp-type"}},
		{"ICMPv6 type on icmp", FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "icmp", ICMPType: "neighbor-solicitation"},
			FirewallEnvCluster, []string{"icmp-type"}},
		{"unknown icmp-type without protocol", FirewallRuleFields{Type: "in", Action: "ACCEPT", ICMPType: "bogus"},
			FirewallEnvCluster, []string{"proto", "icmp-type"}},
		{"icmp with an IPv6 source", FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "icmp", Source: "2001:db8::1"},
			FirewallEnvCluster, []string{"source"}},
		{"icmpv6 with an IPv4 dest", FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "icmpv6", Dest: "10.0.0.1"},
			FirewallEnvCluster, []string{"dest"}},
		{"IPv4 source, IPv6 dest", with(func(r *FirewallRuleFields) { r.Dest = "2001:db8::1" }), FirewallEnvCluster, []string{"dest"}},
		{"alias source, IPv6 dest on icmp", FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "icmp", Source: "dc/office",
			Dest: "2001:db8::1"}, FirewallEnvCluster, []string{"dest"}},
		{"IP set and alias", with(func(r *FirewallRuleFields) { r.Source = "+dc/office"; r.Dest = "guest/web" }), FirewallEnvVM, nil},
		{"bad source", with(func(r *FirewallRuleFields) { r.Source = "10.0.0.1/24" }), FirewallEnvCluster, []string{"source"}},
		{"too long a source", with(func(r *FirewallRuleFields) {
			r.Source = strings.TrimSuffix(strings.Repeat("10.0.0.1,", 60), ",")
		}), FirewallEnvCluster, []string{"source"}},
		{"unknown log level", with(func(r *FirewallRuleFields) { r.Log = "verbose" }), FirewallEnvCluster, []string{"log"}},
		{"comment with a line break", with(func(r *FirewallRuleFields) { r.Comment = "one\ntwo" }), FirewallEnvCluster, []string{"comment"}},
		{"comment with a carriage return", with(func(r *FirewallRuleFields) { r.Comment = "one\rtwo" }), FirewallEnvCluster, []string{"comment"}},
		{"comment with a hash", with(func(r *FirewallRuleFields) { r.Comment = "see #42" }), FirewallEnvCluster, nil},
		{"protocol with a space", with(func(r *FirewallRuleFields) { r.Proto = "tcp udp"; r.Dport = "" }), FirewallEnvCluster, []string{"proto"}},
		{"long macro", FirewallRuleFields{Type: "in", Action: "ACCEPT", Macro: strings.Repeat("M", 129)}, FirewallEnvCluster, []string{"macro"}},
	}
	for _, tt := range tests {
		got := FirewallRuleProblems(tt.rule, tt.env)
		if !slices.Equal(problemFields(got), tt.want) {
			t.Errorf("%s: problems %+v, want fields %q", tt.name, got, tt.want)
		}
	}
}

// The texts name what to change, in words a user reads: no rule ids, and
// the reasons PVE gives.
func TestFirewallRuleProblemTextsW56(t *testing.T) {
	t.Parallel()
	ruleID := regexp.MustCompile(`\bW[0-9]+\b`)
	cases := []struct {
		rule FirewallRuleFields
		env  FirewallRuleEnv
		want string
	}{
		{FirewallRuleFields{Type: "in", Action: "ACCEPT", Comment: "a\nb"}, FirewallEnvCluster, "line break would corrupt"},
		{FirewallRuleFields{Type: "group", Action: "web", Dport: "22"}, FirewallEnvCluster, "PVE would drop dport"},
		{FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "tcp", Dport: "90:80"}, FirewallEnvCluster, "did you mean '80:90'?"},
		{FirewallRuleFields{Type: "forward", Action: "REJECT"}, FirewallEnvHost, "use DROP"},
		{FirewallRuleFields{Type: "in", Action: "ACCEPT", Iface: "eth0"}, FirewallEnvVM, "net0"},
		{FirewallRuleFields{Type: "in", Action: "ACCEPT", Proto: "icmp", Dest: "::1"}, FirewallEnvVM, "by its protocol icmp"},
		{FirewallRuleFields{Type: "in", Action: "ACCEPT", Source: "::1", Dest: "10.0.0.1"}, FirewallEnvVM, "by its source"},
	}
	for _, c := range cases {
		problems := FirewallRuleProblems(c.rule, c.env)
		var texts []string
		for _, p := range problems {
			texts = append(texts, p.Message)
			if ruleID.MatchString(p.Message) {
				t.Errorf("problem text carries a rule id: %q", p.Message)
			}
		}
		if joined := strings.Join(texts, " | "); !strings.Contains(joined, c.want) {
			t.Errorf("%+v: %q, want a text with %q", c.rule, joined, c.want)
		}
	}
}

func TestSameFirewallMacroW56(t *testing.T) {
	t.Parallel()
	if !SameFirewallMacro("ssh", "SSH") || !SameFirewallMacro("HTTPS", "https") || !SameFirewallMacro("Ping", "Ping") {
		t.Error("macros differing in case are the same macro")
	}
	if SameFirewallMacro("SSH", "SSHs") || SameFirewallMacro("", "SSH") {
		t.Error("different macros are the same")
	}
}
