package pvesim

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"
)

func cidrsOf(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i], _ = e["cidr"].(string)
	}
	return out
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm BaseIPSetList: sets are
// created under the name given, read back lowercased, and looked up by the
// name exactly as given.
// Wire rules: W52.
func TestFirewallIPSetsCreateRenameDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	sets := "/cluster/firewall/ipset"
	runFirewallSteps(t, e, []fwStep{
		{name: "create", method: http.MethodPost, path: sets, form: form("name", "Web", "comment", " front ")},
		{name: "create other", method: http.MethodPost, path: sets, form: form("name", "db")},
		{name: "taken", method: http.MethodPost, path: sets, form: form("name", "web"), param: "name", text: "IPSet 'web' already exists"},
		{name: "bad name", method: http.MethodPost, path: sets, form: form("name", "1x"), param: "name", text: "value does not match the regex pattern"},
		{name: "entries by the name as created", method: http.MethodGet, path: sets + "/Web",
			status: http.StatusInternalServerError, text: "no such IPSet 'Web'"},
		{name: "add entry", method: http.MethodPost, path: sets + "/web", form: form("cidr", "10.0.0.1")},
	})
	digest := sha1Hex("name:db\ncomment:front\nname:web\n")
	want := []map[string]any{{"name": "db", "digest": digest}, {"name": "web", "comment": "front", "digest": digest}}
	if list := getList(t, e, sets); !reflect.DeepEqual(list, want) {
		t.Fatalf("list = %v\nwant %v", list, want)
	}

	runFirewallSteps(t, e, []fwStep{
		{name: "rename stale digest", method: http.MethodPost, path: sets, form: form("name", "front", "rename", "web", "digest", sha1Hex("x")),
			status: http.StatusInternalServerError, text: modified},
		{name: "rename missing", method: http.MethodPost, path: sets, form: form("name", "front", "rename", "Web"),
			param: "name", text: "IPSet 'Web' does not exist"},
		{name: "rename onto another", method: http.MethodPost, path: sets, form: form("name", "db", "rename", "web"),
			param: "name", text: "IPSet 'db' does already exist"},
		{name: "rename", method: http.MethodPost, path: sets, form: form("name", "Front", "rename", "web", "digest", digest)},
		// Same name in another case: a comment update.
		{name: "comment update", method: http.MethodPost, path: sets, form: form("name", "FRONT", "rename", "front", "comment", "public")},
		// Creating "DB" beside "db" replaces nothing: the writer puts "DB"
		// first, the parser's later "db" section wins, and the new comment
		// stays because "db" has none.
		{name: "create in another case", method: http.MethodPost, path: sets, form: form("name", "DB", "comment", "upper")},
		{name: "add to db", method: http.MethodPost, path: sets + "/db", form: form("cidr", "10.9.9.9")},
		{name: "create db again in another case", method: http.MethodPost, path: sets, form: form("name", "Db")},
	})
	list := getList(t, e, sets)
	if len(list) != 2 || list[0]["name"] != "db" || list[0]["comment"] != "upper" || list[1]["name"] != "front" || list[1]["comment"] != "public" {
		t.Fatalf("after renames = %v", list)
	}
	if got := cidrsOf(getList(t, e, sets+"/front")); !reflect.DeepEqual(got, []string{"10.0.0.1"}) {
		t.Fatalf("front entries = %v", got)
	}
	if got := cidrsOf(getList(t, e, sets+"/db")); !reflect.DeepEqual(got, []string{"10.9.9.9"}) {
		t.Fatalf("db entries = %v", got)
	}

	runFirewallSteps(t, e, []fwStep{
		{name: "delete not empty", method: http.MethodDelete, path: sets + "/front",
			status: http.StatusInternalServerError, text: "IPSet 'front' is not empty"},
		{name: "delete forced", method: http.MethodDelete, path: sets + "/front", form: form("force", "1")},
		{name: "delete missing", method: http.MethodDelete, path: sets + "/front",
			status: http.StatusInternalServerError, text: "no such IPSet 'front'"},
		{name: "recreated without the old comment", method: http.MethodPost, path: sets, form: form("name", "front")},
	})
	if list := getList(t, e, sets); len(list) != 2 || list[1]["comment"] != nil {
		t.Fatalf("after delete = %v", list)
	}
}

// pve-firewall src/PVE/API2/Firewall/IPSet.pm IPSetBase: entry
// normalisation, refusals, digests and the file order.
// Wire rules: W57.
func TestFirewallIPSetEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	set := "/cluster/firewall/ipset/web"
	runFirewallSteps(t, e, []fwStep{
		{name: "missing set", method: http.MethodPost, path: set, form: form("cidr", "10.0.0.1"),
			status: http.StatusInternalServerError, text: "no such IPSet 'web'"},
		{name: "create set", method: http.MethodPost, path: "/cluster/firewall/ipset", form: form("name", "web")},
		// clean_cidr clears host bits, parse_ip_or_cidr drops /32.
		{name: "host bits", method: http.MethodPost, path: set, form: form("cidr", "10.0.0.5/24", "comment", "lan")},
		{name: "host length", method: http.MethodPost, path: set, form: form("cidr", "192.168.1.1/32")},
		{name: "v6", method: http.MethodPost, path: set, form: form("cidr", "2001:DB8::1/64", "nomatch", "1")},
		{name: "repeat after cleaning", method: http.MethodPost, path: set, form: form("cidr", "10.0.0.0/24"),
			param: "cidr", text: "address '10.0.0.0/24' already exists"},
		{name: "repeat of the host", method: http.MethodPost, path: set, form: form("cidr", "192.168.1.1"),
			param: "cidr", text: "address '192.168.1.1' already exists"},
		{name: "zero prefix", method: http.MethodPost, path: set, form: form("cidr", "0.0.0.0/0"),
			param: "cidr", text: "a zero prefix is not allowed in ipset entries"},
		{name: "zero prefix after cleaning", method: http.MethodPost, path: set, form: form("cidr", "10.1.1.1/00"),
			param: "cidr", text: "a zero prefix is not allowed in ipset entries"},
		{name: "host bits with length 0", method: http.MethodPost, path: set, form: form("cidr", "10.0.0.1/0"),
			param: "cidr", text: "invalid format - Invalid prefix 00001010000000000000000000000001/0\n"},
		{name: "unknown alias", method: http.MethodPost, path: set, form: form("cidr", "Office"),
			status: http.StatusInternalServerError, text: "no such alias 'Office'"},
		{name: "alias", method: http.MethodPost, path: "/cluster/firewall/aliases", form: form("name", "office", "cidr", "10.5.0.0/16")},
		{name: "alias reference", method: http.MethodPost, path: set, form: form("cidr", "Office")},
		{name: "dc alias reference", method: http.MethodPost, path: set, form: form("cidr", "dc/office")},
		// The cluster's own IPSet API passes no local file to resolve_alias.
		{name: "guest alias at the cluster", method: http.MethodPost, path: set, form: form("cidr", "guest/office"),
			status: http.StatusInternalServerError, text: "no such alias 'office'"},
		{name: "same alias in another case", method: http.MethodPost, path: set, form: form("cidr", "OFFICE")},
	})
	list := getList(t, e, set)
	// The writer sorts by text: digits, then upper case, then lower case.
	wantOrder := []string{"10.0.0.0/24", "192.168.1.1", "2001:db8::/64", "OFFICE", "Office", "dc/office"}
	if got := cidrsOf(list); !reflect.DeepEqual(got, wantOrder) {
		t.Fatalf("order = %v, want %v", got, wantOrder)
	}
	digest := sha1Hex("cidr:10.0.0.0/24\ncomment:lan\ncidr:192.168.1.1\ncidr:2001:db8::/64\nnomatch:1\n" +
		"cidr:OFFICE\ncidr:Office\ncidr:dc/office\n")
	wantFirst := map[string]any{"cidr": "10.0.0.0/24", "comment": "lan", "digest": digest}
	if !reflect.DeepEqual(list[0], wantFirst) || list[2]["nomatch"] != 1.0 {
		t.Fatalf("entries = %v", list)
	}

	// {cidr} is the rest of the path, its '/' raw or encoded.
	for _, path := range []string{set + "/10.0.0.0/24", set + "/10.0.0.0%2F24", set + "/10.0.0.0%2f24/"} {
		if one := getOne(t, e, path); !reflect.DeepEqual(one, wantFirst) {
			t.Fatalf("GET %s = %v", path, one)
		}
	}
	runFirewallSteps(t, e, []fwStep{
		// The path's text is compared as it is, not cleaned.
		{name: "read uncleaned", method: http.MethodGet, path: set + "/10.0.0.5/24", param: "cidr", text: "no such IP/Network"},
		{name: "read bad address", method: http.MethodGet, path: set + "/10.0.0.0/33",
			param: "cidr", text: "invalid format - Prefix length 33 is longer than IP address (32)\n"},
		{name: "update stale digest", method: http.MethodPut, path: set + "/10.0.0.0/24", form: form("comment", "x", "digest", sha1Hex("x")),
			status: http.StatusInternalServerError, text: modified},
		{name: "update missing", method: http.MethodPut, path: set + "/10.0.0.9", form: form("comment", "x"),
			param: "cidr", text: "no such IP/Network"},
		// nomatch and comment are replaced together.
		{name: "update", method: http.MethodPut, path: set + "/2001:db8::%2F64", form: form("comment", "v6", "digest", digest)},
		{name: "update drops comment", method: http.MethodPut, path: set + "/10.0.0.0/24", form: form("nomatch", "1")},
		{name: "delete stale digest", method: http.MethodDelete, path: set + "/192.168.1.1", form: form("digest", digest),
			status: http.StatusInternalServerError, text: modified},
		{name: "delete", method: http.MethodDelete, path: set + "/192.168.1.1"},
		{name: "delete missing", method: http.MethodDelete, path: set + "/192.168.1.1"},
		{name: "delete the alias", method: http.MethodDelete, path: "/cluster/firewall/aliases/office"},
	})
	list = getList(t, e, set)
	if got := cidrsOf(list); !reflect.DeepEqual(got, []string{"10.0.0.0/24", "2001:db8::/64", "OFFICE", "Office", "dc/office"}) {
		t.Fatalf("after delete = %v", got)
	}
	if list[0]["comment"] != nil || list[0]["nomatch"] != 1.0 || list[1]["comment"] != "v6" || list[1]["nomatch"] != nil {
		t.Fatalf("after updates = %v", list)
	}
	// The parser notes each reference to the deleted alias; the digest
	// leaves errors out.
	for i, name := range map[int]string{2: "OFFICE", 3: "Office", 4: "office"} {
		if errs, _ := list[i]["errors"].(map[string]any); errs["cidr"] != "no such alias '"+name+"'" {
			t.Errorf("entry %v: errors = %v", list[i]["cidr"], list[i]["errors"])
		}
	}
	if one := getOne(t, e, set+"/dc/office"); one["errors"] == nil || one["digest"] != list[0]["digest"] {
		t.Errorf("read of a broken reference = %v", one)
	}
}

// Guest files resolve an unscoped alias locally, then in cluster.fw; dc/
// only in cluster.fw and guest/ only locally (pve-firewall
// src/PVE/Firewall.pm resolve_alias). The guest need not exist.
func TestFirewallIPSetGuestAliases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, guest := range []string{"/nodes/pve1/qemu/100/firewall", "/nodes/pve2/lxc/101/firewall"} {
		set := guest + "/ipset/local"
		runFirewallSteps(t, e, []fwStep{
			{name: "cluster alias", method: http.MethodPost, path: "/cluster/firewall/aliases", form: form("name", "dcnet", "cidr", "10.0.0.0/8")},
			{name: "guest alias", method: http.MethodPost, path: guest + "/aliases", form: form("name", "mine", "cidr", "10.1.0.0/16")},
			{name: "set", method: http.MethodPost, path: guest + "/ipset", form: form("name", "local")},
			{name: "unscoped cluster alias", method: http.MethodPost, path: set, form: form("cidr", "dcnet")},
			{name: "dc alias", method: http.MethodPost, path: set, form: form("cidr", "dc/dcnet")},
			{name: "guest alias", method: http.MethodPost, path: set, form: form("cidr", "guest/mine")},
			{name: "guest scope for a cluster alias", method: http.MethodPost, path: set, form: form("cidr", "guest/dcnet"),
				status: http.StatusInternalServerError, text: "no such alias 'dcnet'"},
			{name: "dc scope for a guest alias", method: http.MethodPost, path: set, form: form("cidr", "dc/mine"),
				status: http.StatusInternalServerError, text: "no such alias 'mine'"},
			{name: "drop the cluster alias", method: http.MethodDelete, path: "/cluster/firewall/aliases/dcnet"},
		})
		list := getList(t, e, set)
		if got := cidrsOf(list); !reflect.DeepEqual(got, []string{"dc/dcnet", "dcnet", "guest/mine"}) {
			t.Fatalf("%s entries = %v", guest, got)
		}
		if list[0]["errors"] == nil || list[1]["errors"] == nil || list[2]["errors"] != nil {
			t.Fatalf("%s errors = %v", guest, list)
		}
		if got := getList(t, e, "/cluster/firewall/ipset"); len(got) != 0 {
			t.Fatalf("guest set in the cluster list: %v", got)
		}
	}
}

// PVE's permissions: rules_audit_permissions and rules_modify_permissions
// of each rule_env (pve-firewall src/PVE/Firewall.pm), refs their own.
func TestFirewallSetPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit", "VM.Audit")
	forbidden := func(what string) string { return "Permission check failed (" + what + ")" }
	runFirewallSteps(t, e, []fwStep{
		{name: "cluster read", method: http.MethodGet, path: "/cluster/firewall/ipset"},
		{name: "cluster refs", method: http.MethodGet, path: "/cluster/firewall/refs"},
		{name: "guest read", method: http.MethodGet, path: "/nodes/pve1/qemu/100/firewall/aliases"},
		{name: "cluster write", method: http.MethodPost, path: "/cluster/firewall/aliases", form: form("name", "ab", "cidr", "10.0.0.1"),
			status: http.StatusForbidden, text: forbidden("/, Sys.Modify")},
		{name: "vm write", method: http.MethodPost, path: "/nodes/pve1/qemu/100/firewall/ipset", form: form("name", "ab"),
			status: http.StatusForbidden, text: forbidden("/vms/100, VM.Config.Network")},
		{name: "ct entry write", method: http.MethodDelete, path: "/nodes/pve1/lxc/101/firewall/ipset/ab/10.0.0.0/8",
			status: http.StatusForbidden, text: forbidden("/vms/101, VM.Config.Network")},
	})
	e.sim.SetPrivileges(testTokenUser, "Sys.Modify", "VM.Config.Network")
	runFirewallSteps(t, e, []fwStep{
		{name: "cluster refs", method: http.MethodGet, path: "/cluster/firewall/refs", status: http.StatusForbidden, text: forbidden("/, Sys.Audit")},
		{name: "guest refs", method: http.MethodGet, path: "/nodes/pve1/lxc/101/firewall/refs", status: http.StatusForbidden, text: forbidden("/vms/101, VM.Audit")},
		{name: "guest entry read", method: http.MethodGet, path: "/nodes/pve1/qemu/100/firewall/ipset/ab/10.0.0.0/8",
			status: http.StatusForbidden, text: forbidden("/vms/100, VM.Audit")},
	})
}

// pve-firewall src/PVE/API2/Firewall/Cluster.pm and VM.pm refs with
// src/PVE/Firewall/Helpers.pm collect_refs.
func TestFirewallRefs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	runFirewallSteps(t, e, []fwStep{
		{name: "cluster alias", method: http.MethodPost, path: "/cluster/firewall/aliases", form: form("name", "DcNet", "cidr", "10.0.0.0/8", "comment", "all")},
		{name: "cluster set", method: http.MethodPost, path: "/cluster/firewall/ipset", form: form("name", "Blocked", "comment", "bad")},
		{name: "guest alias", method: http.MethodPost, path: "/nodes/pve1/qemu/100/firewall/aliases", form: form("name", "mine", "cidr", "10.1.0.0/16")},
		{name: "guest set", method: http.MethodPost, path: "/nodes/pve1/qemu/100/firewall/ipset", form: form("name", "ipfilter-net0")},
	})
	dcSet := map[string]any{"type": "ipset", "name": "blocked", "ref": "+blocked", "scope": "dc", "comment": "bad"}
	dcAlias := map[string]any{"type": "alias", "name": "dcnet", "ref": "dcnet", "scope": "dc", "comment": "all"}
	guestSet := map[string]any{"type": "ipset", "name": "ipfilter-net0", "ref": "+ipfilter-net0", "scope": "guest"}
	guestAlias := map[string]any{"type": "alias", "name": "mine", "ref": "mine", "scope": "guest"}
	cases := []struct {
		path string
		want []map[string]any
	}{
		{"/cluster/firewall/refs", []map[string]any{dcSet, dcAlias}},
		{"/cluster/firewall/refs?type=alias", []map[string]any{dcAlias}},
		{"/nodes/pve1/qemu/100/firewall/refs", []map[string]any{dcSet, dcAlias, guestSet, guestAlias}},
		{"/nodes/pve1/qemu/100/firewall/refs?type=ipset", []map[string]any{dcSet, guestSet}},
		{"/nodes/pve1/lxc/100/firewall/refs?type=alias", []map[string]any{dcAlias, guestAlias}},
		{"/nodes/pve1/lxc/101/firewall/refs", []map[string]any{dcSet, dcAlias}},
		// No proxyto: the node is not resolved, VMID.fw is the same file.
		{"/nodes/ghost/qemu/100/firewall/refs?type=alias", []map[string]any{dcAlias, guestAlias}},
	}
	for _, tc := range cases {
		if got := getList(t, e, tc.path); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %v\nwant %v", tc.path, got, tc.want)
		}
	}
	e.call(t, http.MethodGet, "/cluster/firewall/refs", form("type", "group")).
		wantParamError(t, "type", "value 'group' does not have a value in the enumeration 'alias, ipset'")
}

// A set of 5000 entries: adding and removing one stays cheap, and the
// answer keeps the file order.
func TestFirewallIPSetLargeSet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/firewall/ipset", form("name", "big")).wantOK(t)
	e.sim.mu.Lock()
	conf := e.sim.cluster.firewallConfFor(firewallScope{kind: "cluster"})
	entries := make([]*FirewallIPSetEntry, 0, 5000)
	for i := 4999; i >= 0; i-- { // out of order: the simulator sorts as the writer does
		entries = append(entries, &FirewallIPSetEntry{CIDR: fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)})
	}
	conf.IPSets["big"] = entries
	e.sim.mu.Unlock()

	start := time.Now()
	for i := 0; i < 50; i++ {
		e.call(t, http.MethodPost, "/cluster/firewall/ipset/big", form("cidr", fmt.Sprintf("172.16.%d.0/24", i))).wantOK(t)
		e.call(t, http.MethodDelete, "/cluster/firewall/ipset/big/"+fmt.Sprintf("10.0.%d.0/24", i), nil).wantOK(t)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("100 changes of a 5000-entry set took %v", d)
	}
	list := getList(t, e, "/cluster/firewall/ipset/big")
	got := cidrsOf(list)
	if len(got) != 5000 || got[0] != "10.0.100.0/24" || got[len(got)-1] != "172.16.9.0/24" {
		t.Fatalf("big set: %d entries, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("not in file order at %d: %q, %q", i, got[i-1], got[i])
		}
	}
}
