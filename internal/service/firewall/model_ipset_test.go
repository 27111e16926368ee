package firewall

import (
	"crypto/sha1" //nolint:gosec // PVE's digest is SHA-1
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestNormalizeIPSetCIDR(t *testing.T) {
	for in, want := range map[string]string{
		"10.0.0.5":           "10.0.0.5",
		"10.0.0.5/32":        "10.0.0.5",
		"10.0.0.5/24":        "10.0.0.0/24",
		"192.168.1.155/25":   "192.168.1.128/25",
		"2001:db8::1/128":    "2001:db8::1",
		"2001:db8::5/64":     "2001:db8::/64",
		"2001:DB8:0:0::7/64": "2001:db8::/64",
		"office":             "office",
		"dc/Office":          "dc/Office",
		"guest/web-1":        "guest/web-1",
	} {
		got, err := normalizeIPSetCIDR(in)
		if err != nil || got != want {
			t.Errorf("normalizeIPSetCIDR(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "10.0.0.0/0", "::/0", "10.0.0.1/33", "host/web", "1office", "10.0.0", "10.0.0.0/24,10.1.0.0/24"} {
		if got, err := normalizeIPSetCIDR(bad); err == nil {
			t.Errorf("normalizeIPSetCIDR(%q) = %q, want an error", bad, got)
		}
	}
}

func TestValidateIPSetName(t *testing.T) {
	if err := validateIPSetName("web-servers"); err != nil {
		t.Errorf("a lowercase name was refused: %v", err)
	}
	err := validateIPSetName("WebServers")
	if err == nil || !strings.Contains(err.Error(), `PVE would store the IP set as "webservers"`) {
		t.Errorf("a name with capitals: %v", err)
	}
	if validateIPSetName("x") == nil {
		t.Error("a one-letter name was accepted")
	}
	if _, _, err := parseIPSetID("guest/100/Web"); err == nil {
		t.Error("an import id with capitals was accepted")
	}
	if _, _, err := parseIPSetID("node/pve1/web"); err == nil {
		t.Error("an import id of a node's firewall was accepted")
	}
	if scope, name, err := parseIPSetID("guest/100/web"); err != nil || scope.VMID != 100 || name != "web" {
		t.Errorf("parseIPSetID(guest/100/web) = %+v, %q, %v", scope, name, err)
	}
}

func entryModel(nomatch bool, comment string) ipsetEntryModel {
	c := types.StringNull()
	if comment != "" {
		c = types.StringValue(comment)
	}
	return ipsetEntryModel{NoMatch: types.BoolValue(nomatch), Comment: c}
}

func TestStoredEntries(t *testing.T) {
	entries, spelling, err := storedEntries(map[string]ipsetEntryModel{
		"10.0.0.5/32": entryModel(false, ""),
		"10.1.0.9/16": entryModel(true, "not this one"),
		"dc/office":   entryModel(false, "office"),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantEntries := entryMap{
		"10.0.0.5":    {CIDR: "10.0.0.5"},
		"10.1.0.0/16": {CIDR: "10.1.0.0/16", NoMatch: true, Comment: "not this one"},
		"dc/office":   {CIDR: "dc/office", Comment: "office"},
	}
	if diff := cmp.Diff(wantEntries, entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"10.0.0.5": "10.0.0.5/32", "10.1.0.0/16": "10.1.0.9/16"}, spelling); diff != "" {
		t.Errorf("spelling (-want +got):\n%s", diff)
	}

	_, _, err = storedEntries(map[string]ipsetEntryModel{"10.0.0.5": entryModel(false, ""), "10.0.0.5/32": entryModel(true, "")})
	if err == nil || !strings.Contains(err.Error(), `"10.0.0.5" and "10.0.0.5/32" are the same address to PVE`) {
		t.Errorf("two spellings of one address: %v", err)
	}
	_, _, err = storedEntries(map[string]ipsetEntryModel{"10.0.0.1/24": entryModel(false, ""), "10.0.0.0/24": entryModel(false, "")})
	if err == nil || !strings.Contains(err.Error(), `stores both as "10.0.0.0/24"`) {
		t.Errorf("two spellings of one network: %v", err)
	}
}

// The digest PVE gives a set is SHA-1 over its entries in file order
// (sorted as strings), each key sorted, "key:value\n"; nomatch and comment
// only where set.
func TestEntryDigestIsPVEs(t *testing.T) {
	entries := entryMap{
		"10.0.0.9":    {CIDR: "10.0.0.9"},
		"10.0.0.10":   {CIDR: "10.0.0.10", Comment: "ten"},
		"10.2.0.0/16": {CIDR: "10.2.0.0/16", NoMatch: true},
	}
	file := "cidr:10.0.0.10\ncomment:ten\n" + "cidr:10.0.0.9\n" + "cidr:10.2.0.0/16\nnomatch:1\n"
	sum := sha1.Sum([]byte(file)) //nolint:gosec // PVE's digest
	if got, want := entries.digest(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
	if got := (entryMap{}).digest(); got != "da39a3ee5e6b4b0d3255bfef95601890afd80709" {
		t.Errorf("empty set's digest %s", got)
	}
}

func bigSet(n int) entryMap {
	m := make(entryMap, n)
	for i := range n {
		cidr := fmt.Sprintf("10.%d.%d.1", i/256, i%256)
		m[cidr] = ipsetEntry{CIDR: cidr}
	}
	return m
}

// Adding one address to a large set is one POST: nothing is sent for the
// unchanged entries.
func TestPlanEntryChanges(t *testing.T) {
	current := bigSet(5000)
	desired := bigSet(5000)
	desired["192.0.2.1"] = ipsetEntry{CIDR: "192.0.2.1"}
	if diff := cmp.Diff(entryChanges{Adds: []ipsetEntry{{CIDR: "192.0.2.1"}}}, planEntryChanges(current, desired)); diff != "" {
		t.Errorf("one added (-want +got):\n%s", diff)
	}

	current = entryMap{
		"10.0.0.1": {CIDR: "10.0.0.1"},
		"10.0.0.2": {CIDR: "10.0.0.2", Comment: "old"},
		"10.0.0.3": {CIDR: "10.0.0.3"},
	}
	desired = entryMap{
		"10.0.0.2": {CIDR: "10.0.0.2", Comment: "new"},
		"10.0.0.3": {CIDR: "10.0.0.3"},
		"10.0.0.4": {CIDR: "10.0.0.4", NoMatch: true},
	}
	want := entryChanges{
		Removes: []string{"10.0.0.1"},
		Updates: []ipsetEntry{{CIDR: "10.0.0.2", Comment: "new"}},
		Adds:    []ipsetEntry{{CIDR: "10.0.0.4", NoMatch: true}},
	}
	got := planEntryChanges(current, desired)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mixed (-want +got):\n%s", diff)
	}
	if got.count() != 3 {
		t.Errorf("count %d, want 3", got.count())
	}
}

func TestFirstDifference(t *testing.T) {
	want := entryMap{"10.0.0.1": {CIDR: "10.0.0.1"}, "10.0.0.2": {CIDR: "10.0.0.2"}}
	for got, text := range map[string]string{
		"":                               "",
		"10.0.0.1 gone":                  "10.0.0.1 is no longer in the set",
		"10.0.0.2 commented":             `10.0.0.2 now has nomatch false and comment "x"`,
		"10.0.0.3 added by someone else": "10.0.0.3 was added",
	} {
		live := entryMap{"10.0.0.1": {CIDR: "10.0.0.1"}, "10.0.0.2": {CIDR: "10.0.0.2"}}
		switch got {
		case "10.0.0.1 gone":
			delete(live, "10.0.0.1")
		case "10.0.0.2 commented":
			live["10.0.0.2"] = ipsetEntry{CIDR: "10.0.0.2", Comment: "x"}
		case "10.0.0.3 added by someone else":
			live["10.0.0.3"] = ipsetEntry{CIDR: "10.0.0.3"}
		}
		if d := firstDifference(want, live); d != text {
			t.Errorf("%s: %q, want %q", got, d, text)
		}
	}
}

// A refresh keeps the configured spelling of an address PVE stores the
// same, shows PVE's spelling for the rest, and leaves unconfigured entries
// null while PVE has none.
func TestIPSetFromAPIKeepsSpelling(t *testing.T) {
	prior, diags := entriesValue(entryMap{
		"10.0.0.5":    {CIDR: "10.0.0.5"},
		"10.1.0.0/16": {CIDR: "10.1.0.0/16"},
	}, map[string]string{"10.0.0.5": "10.0.0.5/32", "10.1.0.0/16": "10.1.2.3/16"}, false)
	if diags.HasError() {
		t.Fatal(diags)
	}
	m := ipsetModel{VMID: types.Int64Value(100), Name: types.StringValue("web"), Entries: prior}
	live := entryMap{
		"10.0.0.5":    {CIDR: "10.0.0.5"},
		"10.1.0.0/16": {CIDR: "10.1.0.0/16", NoMatch: true},
		"10.9.0.1":    {CIDR: "10.9.0.1", Comment: "added outside"},
	}
	if diags := m.fromAPI(scopeRef{VMID: 100}, pveapi.IPSet{Name: "web", Comment: "servers"}, live); diags.HasError() {
		t.Fatal(diags)
	}
	got, _, diags := configuredEntries(m.Entries)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if diff := cmp.Diff(live, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	var keys []string
	for k := range m.Entries.Elements() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if diff := cmp.Diff([]string{"10.0.0.5/32", "10.1.2.3/16", "10.9.0.1"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if m.ID.ValueString() != "guest/100/web" || m.Comment.ValueString() != "servers" {
		t.Errorf("id %s comment %s", m.ID, m.Comment)
	}

	empty := ipsetModel{Name: types.StringValue("web"), VMID: types.Int64Null(), Entries: types.MapNull(ipsetEntryType)}
	if diags := empty.fromAPI(scopeRef{}, pveapi.IPSet{Name: "web"}, entryMap{}); diags.HasError() || !empty.Entries.IsNull() {
		t.Errorf("unconfigured entries of an empty set: %v %v", empty.Entries, diags)
	}
}
