package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// fwRules reads a rule list.
func (e *env) fwRules(t *testing.T, base string) []map[string]any {
	t.Helper()
	var list []map[string]any
	a := e.call(t, http.MethodGet, base, nil)
	a.wantOK(t)
	a.decode(t, &list)
	return list
}

// fwActions is a rule list as "ACTION:comment" (comment only when set).
func fwActions(list []map[string]any) string {
	parts := make([]string, len(list))
	for i, r := range list {
		parts[i], _ = r["action"].(string)
		if c, ok := r["comment"].(string); ok {
			parts[i] += ":" + c
		}
	}
	return strings.Join(parts, " ")
}

// A new rule goes to the top, is disabled unless enable is given, and the
// answer of a list carries the position and the list digest
// (pve-firewall src/PVE/API2/Firewall/Rules.pm register_create_rule,
// register_get_rules).
// Wire rules: W50.
func TestFirewallRuleCreateAtTopDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := "/cluster/firewall/rules"
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "comment", "first")).wantNull(t)
	e.call(t, http.MethodPost, base, form("type", "out", "action", "DROP", "comment", "second", "enable", "1")).wantNull(t)
	list := e.fwRules(t, base)
	if fwActions(list) != "DROP:second ACCEPT:first" {
		t.Fatalf("rules = %v", list)
	}
	if list[0]["pos"] != float64(0) || list[1]["pos"] != float64(1) || list[0]["enable"] != float64(1) || list[1]["enable"] != float64(0) {
		t.Fatalf("pos/enable = %v", list)
	}
	if list[0]["digest"] == "" || list[0]["digest"] != list[1]["digest"] {
		t.Fatalf("digests = %v %v", list[0]["digest"], list[1]["digest"])
	}
	var one map[string]any
	e.call(t, http.MethodGet, base+"/1", nil).decode(t, &one)
	if one["comment"] != "first" || one["pos"] != "1" || one["digest"] != list[0]["digest"] || one["type"] != "in" {
		t.Fatalf("rule 1 = %v", one)
	}
	e.call(t, http.MethodGet, base+"/2", nil).wantStatus(t, http.StatusInternalServerError, "no rule at position 2")
	// create has no digest check: a stale digest is ignored, and pos does
	// not place the rule
	e.call(t, http.MethodPost, base, form("type", "in", "action", "REJECT", "digest", "0000", "pos", "2")).wantNull(t)
	if got := fwActions(e.fwRules(t, base)); got != "REJECT DROP:second ACCEPT:first" {
		t.Fatalf("rules = %s", got)
	}
}

// Every load reads the file again: a rule whose alias is gone carries the
// parser's errors (which the digest leaves out), and a rule whose alias
// now contradicts its IP version is dropped (verify_rule dies inside
// parse_fw_rule).
func TestFirewallRuleReparsedOnLoad(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	setAlias := func(cidr string, version int) {
		t.Helper()
		if err := e.sim.Update(func(cl *Cluster) error {
			fw := cl.clusterFirewallConf()
			fw.Aliases = map[string]*FirewallAlias{}
			if cidr != "" {
				fw.Aliases["office"] = &FirewallAlias{Name: "office", CIDR: cidr, IPVersion: version}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	setAlias("10.1.0.0/16", 4)
	base := "/nodes/pve1/qemu/100/firewall/rules"
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "source", "10.2.0.1", "dest", "office", "comment", "B")).wantNull(t)
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "source", "office", "dest", "10.2.0.1", "comment", "A")).wantNull(t)
	before := e.fwRules(t, base)
	setAlias("", 0)
	after := e.fwRules(t, base)
	if jsonText(after[0]["errors"]) != `{"source":"no such alias 'office'"}` || after[0]["digest"] != before[0]["digest"] {
		t.Fatalf("before %v, after %v", before, after)
	}
	// The alias's version is set outside verify_rule's eval for the
	// address (dest of B: the parser drops the rule), inside it for a
	// literal address (dest of A: an error).
	setAlias("fd00::/64", 6)
	list := e.fwRules(t, base)
	if len(list) != 1 || list[0]["comment"] != "A" || jsonText(list[0]["errors"]) != `{"dest":"detected mixed ipv4/ipv6 addresses in rule"}` {
		t.Fatalf("rules = %v", list)
	}
}

// copy_list_with_digest: SHA-1 over each rule's sorted "key:value" lines,
// the keys the parser keeps (ipversion too).
// Wire rules: W51.
func TestFirewallRuleDigestValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/firewall/rules",
		form("type", "in", "action", "ACCEPT", "source", "10.0.0.0/8", "enable", "1")).wantNull(t)
	list := e.fwRules(t, "/cluster/firewall/rules")
	want := firewallListDigest([]map[string]any{{
		"action": "ACCEPT", "enable": 1, "ipversion": 4, "source": "10.0.0.0/8", "type": "in",
	}})
	if list[0]["digest"] != want || list[0]["ipversion"] != float64(4) {
		t.Fatalf("rule = %v, want digest %s", list[0], want)
	}
}

// register_update_rule and register_delete_rule check the digest
// (assert_if_modified) before the position.
// Wire rules: W51.
func TestFirewallRuleDigestRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := "/nodes/pve1/firewall/rules"
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT")).wantNull(t)
	digest := e.fwRules(t, base)[0]["digest"].(string)
	const modified = "detected modified configuration - file changed by other user? Try again."
	e.call(t, http.MethodPut, base+"/0", form("comment", "x", "digest", strings.Repeat("0", 40))).
		wantStatus(t, http.StatusInternalServerError, modified)
	e.call(t, http.MethodDelete, base+"/5", form("digest", strings.Repeat("0", 40))).
		wantStatus(t, http.StatusInternalServerError, modified)
	e.call(t, http.MethodPut, base+"/5", form("digest", digest)).
		wantStatus(t, http.StatusInternalServerError, "no rule at position 5")
	e.call(t, http.MethodPut, base+"/0", form("comment", "x", "digest", digest)).wantNull(t)
	// A digest Perl takes as false ("0") is no digest.
	e.call(t, http.MethodPut, base+"/0", form("comment", "y", "digest", "0")).wantNull(t)
	e.call(t, http.MethodDelete, base+"/0", form("digest", digest)).
		wantStatus(t, http.StatusInternalServerError, modified)
	e.call(t, http.MethodDelete, base+"/0", nil).wantNull(t)
	if list := e.fwRules(t, base); len(list) != 0 {
		t.Fatalf("rules = %v", list)
	}
}

// moveto places the rule before the one that was at moveto, at the end
// when moveto is past the last rule, and ignores the other arguments
// (register_update_rule).
// Wire rules: W50.
func TestFirewallRuleMoveto(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pos, moveto, want string
	}{
		{"0", "2", "B A C D"}, // before the rule that was at 2: one place down
		{"0", "3", "B C A D"},
		{"0", "4", "B C D A"},
		{"0", "9", "B C D A"},
		{"3", "0", "D A B C"},
		{"2", "1", "A C B D"},
		{"1", "1", "A B C D"}, // moveto = pos edits in place
	} {
		e := newEnv(t, Options{})
		base := "/cluster/firewall/groups/web"
		e.call(t, http.MethodPost, "/cluster/firewall/groups", form("group", "web")).wantNull(t)
		for _, c := range []string{"D", "C", "B", "A"} {
			e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "comment", c)).wantNull(t)
		}
		e.call(t, http.MethodPut, base+"/"+tc.pos, form("moveto", tc.moveto, "comment", "ignored")).wantNull(t)
		var got []string
		for _, r := range e.fwRules(t, base) {
			got = append(got, r["comment"].(string))
		}
		want := tc.want
		if tc.pos == tc.moveto {
			want = "A ignored C D"
		}
		if strings.Join(got, " ") != want {
			t.Errorf("pos %s moveto %s: %v, want %s", tc.pos, tc.moveto, got, want)
		}
	}
}

// What the file round trip keeps of a rule (pve-firewall
// src/PVE/Firewall.pm $format_rules and parse_fw_rule).
// Wire rules: W56.
func TestFirewallRuleRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	cases := []struct {
		base string
		kv   []string
		want map[string]any // the stored rule without digest and pos
	}{
		{"/cluster/firewall/rules", []string{"type", "in", "action", "ACCEPT", "macro", "ssh", "comment", "  padded  "},
			map[string]any{"type": "in", "action": "ACCEPT", "macro": "SSH", "comment": "padded", "enable": float64(0)}},
		{"/cluster/firewall/rules", []string{"type", "out", "action", "DROP", "comment", "   ", "enable", "1"},
			map[string]any{"type": "out", "action": "DROP", "enable": float64(1)}},
		{"/cluster/firewall/rules", []string{"type", "in", "action", "ACCEPT", "proto", "icmp", "icmp-type", "echo-request",
			"log", "info", "iface", "eth0", "enable", "5"},
			map[string]any{"type": "in", "action": "ACCEPT", "proto": "icmp", "icmp-type": "echo-request", "log": "info",
				"iface": "eth0", "enable": float64(1), "ipversion": float64(4)}},
		// A group rule keeps only action, iface, enable and comment.
		{"/cluster/firewall/rules", []string{"type", "group", "action", "web", "iface", "vmbr0", "log", "info", "enable", "1", "comment", "g"},
			map[string]any{"type": "group", "action": "web", "iface": "vmbr0", "enable": float64(1), "comment": "g"}},
		// '-' or '' removes a key (copy_rule_data).
		{"/nodes/pve1/qemu/100/firewall/rules", []string{"type", "in", "action", "ACCEPT", "iface", "net0", "comment", "-", "dport", ""},
			map[string]any{"type": "in", "action": "ACCEPT", "iface": "net0", "enable": float64(0)}},
		// Comment text: bytes 0xA0 at the line's end are trimmed as white
		// space, which breaks a trailing "à".
		{"/nodes/pve1/lxc/200/firewall/rules", []string{"type", "in", "action", "ACCEPT", "comment", "voilà"},
			map[string]any{"type": "in", "action": "ACCEPT", "comment": "voil\uFFFD", "enable": float64(0)}},
		{"/nodes/pve1/lxc/200/firewall/rules", []string{"type", "in", "action", "ACCEPT", "comment", "grüße"},
			map[string]any{"type": "in", "action": "ACCEPT", "comment": "grüße", "enable": float64(0)}},
	}
	for _, tc := range cases {
		e.call(t, http.MethodPost, tc.base, form(tc.kv...)).wantNull(t)
		got := e.fwRules(t, tc.base)[0]
		delete(got, "digest")
		delete(got, "pos")
		if jsonText(got) != jsonText(tc.want) {
			t.Errorf("%v: stored %v, want %v", tc.kv, got, tc.want)
		}
	}
}

// A newline in a comment ends the rule's line in the file; the parser
// reads what follows as further lines of the section: a rule line becomes
// a rule of its own (enabled), other text is skipped
// (generic_fw_config_parser, parse_fw_rule).
// Wire rules: W56.
func TestFirewallRuleCommentNewline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := "/nodes/pve1/firewall/rules"
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "comment", "one\nOUT DROP -p tcp -dport 22\njust words here\n# note")).wantNull(t)
	list := e.fwRules(t, base)
	if len(list) != 2 || list[0]["comment"] != "one" || list[1]["type"] != "out" || list[1]["dport"] != "22" || list[1]["enable"] != float64(1) {
		t.Fatalf("rules = %v", list)
	}
	// A line the writer cannot format afterwards ("foo bar" is read as a
	// rule of type foo, with errors) fails every later save of the file.
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "comment", "x\nfoo bar")).wantNull(t)
	list = e.fwRules(t, base)
	if len(list) != 4 || list[1]["type"] != "foo" || list[1]["errors"] == nil {
		t.Fatalf("rules = %v", list)
	}
	e.call(t, http.MethodPost, base, form("type", "in", "action", "DROP")).
		wantStatus(t, http.StatusInternalServerError, "unknown rule type 'foo'")
	e.call(t, http.MethodPut, "/nodes/pve1/firewall/options", form("enable", "1")).
		wantStatus(t, http.StatusInternalServerError, "unknown rule type 'foo'")
	e.call(t, http.MethodDelete, base+"/1", nil).wantNull(t)
	e.call(t, http.MethodPost, base, form("type", "in", "action", "DROP")).wantNull(t)
	// A line that would start a section is not simulated.
	e.call(t, http.MethodPost, base, form("type", "in", "action", "ACCEPT", "comment", "x\n[OPTIONS]")).
		wantStatus(t, http.StatusInternalServerError, "a comment line that starts a firewall config section ('[OPTIONS]') is not supported by the simulator")
}
