package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's digest is SHA-1
	"encoding/hex"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// fwStep is one request and the answer PVE gives it: OK, a parameter
// error (param and its text), or another status with its reason phrase.
type fwStep struct {
	name         string
	method, path string
	form         url.Values
	param, text  string
	status       int
}

func runFirewallSteps(t *testing.T, e *env, steps []fwStep) {
	t.Helper()
	for _, st := range steps {
		a := e.call(t, st.method, st.path, st.form)
		switch {
		case st.param != "":
			if a.status != http.StatusBadRequest || a.errors[st.param] != st.text {
				t.Fatalf("%s: got %d %q %v, want 400 %s: %q", st.name, a.status, a.reason, a.errors, st.param, st.text)
			}
		case st.status != 0:
			if a.status != st.status || a.reason != st.text {
				t.Fatalf("%s: got %d %q (%s), want %d %q", st.name, a.status, a.reason, a.body, st.status, st.text)
			}
		default:
			if a.status != http.StatusOK {
				t.Fatalf("%s: got %d %q (%s)", st.name, a.status, a.reason, a.body)
			}
		}
	}
}

// sha1Hex is copy_list_with_digest's digest of the given "key:value\n"
// lines, computed here by hand.
func sha1Hex(lines string) string {
	sum := sha1.Sum([]byte(lines)) //nolint:gosec // PVE's digest is SHA-1
	return hex.EncodeToString(sum[:])
}

func getList(t *testing.T, e *env, path string) []map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, path, nil)
	a.wantOK(t)
	var list []map[string]any
	a.decode(t, &list)
	return list
}

func getOne(t *testing.T, e *env, path string) map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, path, nil)
	a.wantOK(t)
	var one map[string]any
	a.decode(t, &one)
	return one
}

const modified = "detected modified configuration - file changed by other user? Try again."

// pve-firewall src/PVE/API2/Firewall/Aliases.pm: what each method stores
// and refuses, for the cluster and a guest that does not exist (PVE reads a
// missing VMID.fw as empty and does not look for the guest).
// Wire rules: W52, W57.
func TestFirewallAliases(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"/cluster/firewall", "/nodes/pve1/qemu/100/firewall", "/nodes/pve1/lxc/4242/firewall"} {
		t.Run(prefix, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{})
			aliases := prefix + "/aliases"
			runFirewallSteps(t, e, []fwStep{
				{name: "create", method: http.MethodPost, path: aliases, form: form("name", "MyNet", "cidr", "10.0.0.5/32", "comment", "  office  ")},
				{name: "taken in another case", method: http.MethodPost, path: aliases, form: form("name", "mynet", "cidr", "10.0.0.6"),
					param: "name", text: "alias 'mynet' already exists"},
				{name: "bad address", method: http.MethodPost, path: aliases, form: form("name", "other", "cidr", "10.0.0.0/33"),
					param: "cidr", text: "invalid format - Prefix length 33 is longer than IP address (32)\n"},
				{name: "alias is no address", method: http.MethodPost, path: aliases, form: form("name", "other", "cidr", "mynet"),
					param: "cidr", text: "invalid format - value does not look like a valid IP address or CIDR network\n"},
				{name: "host bits kept", method: http.MethodPost, path: aliases, form: form("name", "Other", "cidr", "10.1.2.3/16", "comment", "0")},
			})
			list := getList(t, e, aliases)
			digest := sha1Hex("cidr:10.0.0.5\ncomment:office\nipversion:4\nname:MyNet\n" +
				"cidr:10.1.2.3/16\nipversion:4\nname:Other\n")
			want := []map[string]any{
				{"name": "MyNet", "cidr": "10.0.0.5", "ipversion": 4.0, "comment": "office", "digest": digest},
				{"name": "Other", "cidr": "10.1.2.3/16", "ipversion": 4.0, "digest": digest},
			}
			if !reflect.DeepEqual(list, want) {
				t.Fatalf("list = %v\nwant %v", list, want)
			}
			one := getOne(t, e, aliases+"/MYNET")
			if !reflect.DeepEqual(one, map[string]any{"name": "MyNet", "cidr": "10.0.0.5", "ipversion": 4.0, "comment": "office"}) {
				t.Fatalf("read = %v", one)
			}

			runFirewallSteps(t, e, []fwStep{
				{name: "read missing", method: http.MethodGet, path: aliases + "/nope", param: "name", text: "no such alias"},
				{name: "update stale digest", method: http.MethodPut, path: aliases + "/mynet", form: form("cidr", "10.0.0.7", "digest", sha1Hex("x")),
					status: http.StatusInternalServerError, text: modified},
				{name: "update missing", method: http.MethodPut, path: aliases + "/nope", form: form("cidr", "10.0.0.7"), param: "name", text: "no such alias"},
				{name: "rename onto another", method: http.MethodPut, path: aliases + "/mynet", form: form("cidr", "10.0.0.7", "rename", "OTHER"),
					param: "name", text: "alias 'OTHER' already exists"},
				// The path's case becomes the name; the comment not given is dropped.
				{name: "update", method: http.MethodPut, path: aliases + "/MYNET", form: form("cidr", "FE80::1/128", "digest", digest)},
			})
			one = getOne(t, e, aliases+"/mynet")
			if !reflect.DeepEqual(one, map[string]any{"name": "MYNET", "cidr": "FE80::1", "ipversion": 6.0}) {
				t.Fatalf("after update = %v", one)
			}

			runFirewallSteps(t, e, []fwStep{
				{name: "rename", method: http.MethodPut, path: aliases + "/mynet", form: form("cidr", "fe80::/64", "rename", "Office", "comment", "first\nsecond")},
				{name: "old name gone", method: http.MethodGet, path: aliases + "/mynet", param: "name", text: "no such alias"},
				// Only the case differs: no rename, the path's case stays.
				{name: "case-only rename", method: http.MethodPut, path: aliases + "/office", form: form("cidr", "fe80::/64", "rename", "OFFICE", "comment", "first")},
			})
			one = getOne(t, e, aliases+"/Office")
			if !reflect.DeepEqual(one, map[string]any{"name": "office", "cidr": "fe80::/64", "ipversion": 6.0, "comment": "first"}) {
				t.Fatalf("after rename = %v", one)
			}

			runFirewallSteps(t, e, []fwStep{
				{name: "delete stale digest", method: http.MethodDelete, path: aliases + "/office", form: form("digest", digest),
					status: http.StatusInternalServerError, text: modified},
				{name: "delete", method: http.MethodDelete, path: aliases + "/office"},
				{name: "delete missing", method: http.MethodDelete, path: aliases + "/office"},
			})
			if list := getList(t, e, aliases); len(list) != 1 || list[0]["name"] != "Other" {
				t.Fatalf("after delete = %v", list)
			}
		})
	}
}

// What a comment keeps after the file round trip (pve-firewall
// src/PVE/Firewall.pm $format_aliases, parse_alias).
func TestFirewallFileComment(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":              "",
		"0":             "",
		" 0 ":           "",
		"   ":           "",
		"\u00a0":        "",
		" web # front ": "web # front",
		"a\nb":          "a",
		"\nb":           "",
		"ümlaut":        "ümlaut",
	} {
		if got := fileComment(in); got != want {
			t.Errorf("fileComment(%q) = %q, want %q", in, got, want)
		}
	}
}

// An alias or IPSet save writes the whole file (pve-firewall
// src/PVE/Firewall.pm save_clusterfw_conf, save_vmfw_conf): once the file
// holds a rule the writer cannot format ("foo bar" after a comment's line
// break reads back as a rule of type foo), every alias and IPSet change of
// that file fails with $format_rules' error and changes nothing.
func TestFirewallSetSavesNeedAWritableFile(t *testing.T) {
	t.Parallel()
	const unknownType = "unknown rule type 'foo'"
	for _, tc := range []struct{ prefix, rules string }{
		{"/cluster/firewall", "/cluster/firewall/rules"},
		{"/cluster/firewall", "/cluster/firewall/groups/web"},
		{"/nodes/pve1/qemu/100/firewall", "/nodes/pve1/qemu/100/firewall/rules"},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{})
			aliases, set := tc.prefix+"/aliases", tc.prefix+"/ipset/office"
			runFirewallSteps(t, e, []fwStep{
				{name: "group", method: http.MethodPost, path: "/cluster/firewall/groups", form: form("group", "web")},
				{name: "alias", method: http.MethodPost, path: aliases, form: form("name", "net", "cidr", "10.0.0.0/8")},
				{name: "set", method: http.MethodPost, path: tc.prefix + "/ipset", form: form("name", "office")},
				{name: "entry", method: http.MethodPost, path: set, form: form("cidr", "10.0.0.1")},
				{name: "stray rule", method: http.MethodPost, path: tc.rules, form: form("type", "in", "action", "ACCEPT", "comment", "x\nfoo bar")},
			})
			if list := e.fwRules(t, tc.rules); len(list) != 2 || list[1]["type"] != "foo" {
				t.Fatalf("rules = %v", list)
			}
			refused := func(name, method, path string, f url.Values) fwStep {
				return fwStep{name: name, method: method, path: path, form: f, status: http.StatusInternalServerError, text: unknownType}
			}
			runFirewallSteps(t, e, []fwStep{
				refused("create alias", http.MethodPost, aliases, form("name", "other", "cidr", "10.1.0.0/16")),
				refused("update alias", http.MethodPut, aliases+"/net", form("cidr", "10.2.0.0/16")),
				refused("rename alias", http.MethodPut, aliases+"/net", form("cidr", "10.0.0.0/8", "rename", "lan")),
				refused("delete alias", http.MethodDelete, aliases+"/net", nil),
				refused("delete missing alias", http.MethodDelete, aliases+"/nope", nil),
				refused("create set", http.MethodPost, tc.prefix+"/ipset", form("name", "other")),
				refused("rename set", http.MethodPost, tc.prefix+"/ipset", form("name", "lan", "rename", "office")),
				refused("add entry", http.MethodPost, set, form("cidr", "10.0.0.2")),
				refused("update entry", http.MethodPut, set+"/10.0.0.1", form("comment", "gw")),
				refused("delete entry", http.MethodDelete, set+"/10.0.0.1", nil),
				refused("delete set", http.MethodDelete, set, form("force", "1")),
				// The API's own refusals come before the save.
				{name: "taken alias", method: http.MethodPost, path: aliases, form: form("name", "NET", "cidr", "10.1.0.0/16"),
					param: "name", text: "alias 'NET' already exists"},
				{name: "taken set", method: http.MethodPost, path: tc.prefix + "/ipset", form: form("name", "office"),
					param: "name", text: "IPSet 'office' already exists"},
			})
			if a := getOne(t, e, aliases+"/net"); a["cidr"] != "10.0.0.0/8" {
				t.Fatalf("alias = %v", a)
			}
			if got := cidrsOf(getList(t, e, set)); !reflect.DeepEqual(got, []string{"10.0.0.1"}) {
				t.Fatalf("entries = %v", got)
			}
			if got := getList(t, e, tc.prefix+"/ipset"); len(got) != 1 || got[0]["comment"] != nil {
				t.Fatalf("sets = %v", got)
			}
			// Deleting the stray rule makes the file writable again.
			e.call(t, http.MethodDelete, tc.rules+"/1", nil).wantNull(t)
			runFirewallSteps(t, e, []fwStep{
				{name: "create alias", method: http.MethodPost, path: aliases, form: form("name", "other", "cidr", "10.1.0.0/16")},
				{name: "add entry", method: http.MethodPost, path: set, form: form("cidr", "10.0.0.2")},
			})
		})
	}
}
