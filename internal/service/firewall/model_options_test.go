package firewall

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// The options each firewall has, as pve-firewall's property tables list
// them (src/PVE/Firewall.pm $cluster_option_properties,
// $host_option_properties, $vm_option_properties); PVE 8.4's and 9.1's API
// schemas list the same names for the three set_options calls.
var pveOptionNames = map[scopeKind][]string{
	clusterScope: {"ebtables", "enable", "log_ratelimit", "policy_forward", "policy_in", "policy_out"},
	nodeScope: {"enable", "log_level_forward", "log_level_in", "log_level_out", "log_nf_conntrack", "ndp",
		"nf_conntrack_allow_invalid", "nf_conntrack_helpers", "nf_conntrack_max", "nf_conntrack_tcp_timeout_established",
		"nf_conntrack_tcp_timeout_syn_recv", "nftables", "nosmurfs", "protection_synflood", "protection_synflood_burst",
		"protection_synflood_rate", "smurf_log_level", "tcp_flags_log_level", "tcpflags"},
	guestScope: {"dhcp", "enable", "ipfilter", "log_level_in", "log_level_out", "macfilter", "ndp", "policy_in", "policy_out", "radv"},
}

func TestOptionsCoverEachFirewall(t *testing.T) {
	for kind, want := range pveOptionNames {
		var got []string
		for _, spec := range specsFor(kind) {
			got = append(got, spec.key)
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("options of %s (-want +got):\n%s", scopeRef{}.withKind(kind).describe(), diff)
		}
	}
	seen := map[string]bool{}
	for _, spec := range optionSpecs {
		if seen[spec.attr] {
			t.Errorf("attribute %s is listed twice", spec.attr)
		}
		seen[spec.attr] = true
		if strings.Contains(spec.attr, "enable") && spec.attr != "enabled" {
			t.Errorf("attribute %s: booleans are named for what they are, not enable_*", spec.attr)
		}
	}
}

// withKind is a scope of the kind, for messages.
func (s scopeRef) withKind(kind scopeKind) scopeRef {
	switch kind {
	case nodeScope:
		return scopeRef{Node: "pve1"}
	case guestScope:
		return scopeRef{VMID: 100}
	}
	return scopeRef{}
}

func model(scope scopeRef, values map[string]attr.Value) optionsModel {
	m := optionsModel{ID: types.StringNull(), Node: types.StringNull(), VMID: types.Int64Null(), Values: values}
	if scope.Node != "" {
		m.Node = types.StringValue(scope.Node)
	}
	if scope.VMID != 0 {
		m.VMID = types.Int64Value(int64(scope.VMID))
	}
	return m
}

// set lists the non-null option values of a model by attribute.
func set(m optionsModel) map[string]string {
	out := map[string]string{}
	for _, spec := range optionSpecs {
		v := m.value(spec)
		switch {
		case v.IsNull():
		case spec.kind == helperListOption:
			// A set's elements have no order: compare its one PVE form.
			out[spec.attr], _ = renderOption(spec, v)
		default:
			out[spec.attr] = v.String()
		}
	}
	return out
}

func TestOptionsFromAPIReadsOnlyDeclared(t *testing.T) {
	pve := map[string]string{"enable": "1", "policy_in": "DROP", "policy_out": "ACCEPT", "ebtables": "0",
		"log_ratelimit": "enable=1,rate=10/minute,burst=20"}

	m := model(scopeRef{}, map[string]attr.Value{
		"enabled":   types.BoolValue(false),
		"policy_in": types.StringValue("ACCEPT"),
		// Declared, but PVE no longer has it: null, so the plan shows it.
		"policy_forward": types.StringValue("DROP"),
	})
	m.fromAPI(pve, false)
	want := map[string]string{"enabled": "true", "policy_in": `"DROP"`}
	if diff := cmp.Diff(want, set(m)); diff != "" {
		t.Errorf("declared options (-want +got):\n%s", diff)
	}
	if m.ID.ValueString() != "cluster" {
		t.Errorf("id = %s, want cluster", m.ID)
	}

	// Import adopts everything PVE has set.
	m = model(scopeRef{}, nil)
	m.fromAPI(pve, true)
	want = map[string]string{"enabled": "true", "policy_in": `"DROP"`, "policy_out": `"ACCEPT"`, "ebtables": "false",
		"log_ratelimit": `{"burst":20,"enabled":true,"rate":"10/minute"}`}
	if diff := cmp.Diff(want, set(m)); diff != "" {
		t.Errorf("adopted options (-want +got):\n%s", diff)
	}
}

func TestOptionsFromAPIKeepsToTheScope(t *testing.T) {
	// A guest's firewall answers only guest options; an attribute of
	// another firewall never gets a value, even on import.
	m := model(scopeRef{VMID: 100}, nil)
	m.fromAPI(map[string]string{"enable": "1", "macfilter": "0", "radv": "1", "ipfilter": "1", "log_level_in": "info", "nftables": "1"}, true)
	want := map[string]string{"enabled": "true", "mac_filter": "false", "router_advertisement": "true", "ip_filter": "true", "log_level_in": `"info"`}
	if diff := cmp.Diff(want, set(m)); diff != "" {
		t.Errorf("guest options (-want +got):\n%s", diff)
	}
	if m.ID.ValueString() != "guest/100" {
		t.Errorf("id = %s", m.ID)
	}

	m = model(scopeRef{Node: "pve1"}, nil)
	m.fromAPI(map[string]string{"nosmurfs": "1", "tcpflags": "0", "nf_conntrack_helpers": "sip,ftp", "nf_conntrack_max": "65536",
		"smurf_log_level": "", "policy_in": "DROP"}, true)
	want = map[string]string{"smurf_filter": "true", "tcp_flags_filter": "false", "nf_conntrack_helpers": "ftp,sip",
		"nf_conntrack_max": "65536"}
	if diff := cmp.Diff(want, set(m)); diff != "" {
		t.Errorf("node options (-want +got):\n%s", diff)
	}
}

func TestOptionsClusterEnable(t *testing.T) {
	spec := optionSpecByAttr("enabled")
	for text, want := range map[string]attr.Value{
		"1": types.BoolValue(true),
		"0": types.BoolValue(false),
		// The lock-out protection's timestamp: PVE turns it off itself.
		"1764660000": types.BoolValue(false),
		"x":          types.BoolNull(),
	} {
		if got := parseOption(spec, text); !got.Equal(want) {
			t.Errorf("enable %q read as %s, want %s", text, got, want)
		}
	}
}

func TestOptionsRateLimitForms(t *testing.T) {
	spec := optionSpecByAttr("log_ratelimit")
	for _, tc := range []struct {
		pve, canonical string
	}{
		{"enable=1,rate=10/minute,burst=20", "enable=1,rate=10/minute,burst=20"},
		// enable is the default key; PVE's own printer writes it bare.
		{"0,burst=5,rate=1/second", "enable=0,rate=1/second,burst=5"},
		{"burst=3,enable=0", "enable=0,burst=3"},
	} {
		v := parseOption(spec, tc.pve)
		got, ok := renderOption(spec, v)
		if !ok || got != tc.canonical {
			t.Errorf("%q read and written again = %q, %v; want %q", tc.pve, got, ok, tc.canonical)
		}
	}
	empty := types.ObjectValueMust(rateLimitTypes, map[string]attr.Value{
		"enabled": types.BoolNull(), "rate": types.StringNull(), "burst": types.Int64Null(),
	})
	if got, ok := renderOption(spec, empty); ok {
		t.Errorf("an empty log_ratelimit rendered as %q", got)
	}
}

func TestOptionsWrite(t *testing.T) {
	node := scopeRef{Node: "pve1"}
	helpers := func(h ...string) attr.Value {
		var elems []attr.Value
		for _, s := range h {
			elems = append(elems, types.StringValue(s))
		}
		return types.SetValueMust(types.StringType, elems)
	}
	state := model(node, map[string]attr.Value{
		"enabled":              types.BoolValue(true),
		"nf_conntrack_helpers": helpers("sip", "ftp"),
		"nf_conntrack_max":     types.Int64Value(65536),
		"log_level_in":         types.StringValue("info"),
	})

	// Create: every declared option, whatever PVE has.
	create := toWrite(model(node, nil), state)
	if diff := cmp.Diff(optionWrite{Set: map[string]string{"enable": "1", "nf_conntrack_helpers": "ftp,sip",
		"nf_conntrack_max": "65536", "log_level_in": "info"}}, create); diff != "" {
		t.Errorf("create (-want +got):\n%s", diff)
	}

	// Update: changed options are set, dropped ones deleted, the rest
	// left out.
	plan := model(node, map[string]attr.Value{
		"enabled":              types.BoolValue(true),
		"nf_conntrack_helpers": helpers("ftp", "sip", "tftp"),
		"tcp_flags_filter":     types.BoolValue(true),
		"log_level_in":         types.StringValue("info"),
	})
	update := toWrite(state, plan)
	if diff := cmp.Diff(optionWrite{Set: map[string]string{"nf_conntrack_helpers": "ftp,sip,tftp", "tcpflags": "1"},
		Delete: []string{"nf_conntrack_max"}}, update); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	if !toWrite(state, state).empty() {
		t.Error("no change wrote something")
	}

	if diff := cmp.Diff([]string{"enable", "log_level_in", "nf_conntrack_helpers", "nf_conntrack_max"}, state.managedKeys()); diff != "" {
		t.Errorf("managed keys (-want +got):\n%s", diff)
	}
}

func TestOptionsOutOfScope(t *testing.T) {
	m := model(scopeRef{VMID: 100}, map[string]attr.Value{
		"enabled":        types.BoolValue(true),
		"policy_forward": types.StringValue("DROP"),
		"nftables":       types.BoolUnknown(),
		"mac_filter":     types.BoolValue(false),
	})
	var got []string
	for _, spec := range m.outOfScope() {
		got = append(got, spec.attr)
	}
	if diff := cmp.Diff([]string{"policy_forward", "nftables"}, got); diff != "" {
		t.Errorf("out of scope (-want +got):\n%s", diff)
	}
	// A vmid taken from a guest not made yet is unknown, and still a guest's
	// firewall.
	pending := model(scopeRef{}, map[string]attr.Value{"mac_filter": types.BoolValue(true), "ebtables": types.BoolValue(true)})
	pending.VMID = types.Int64Unknown()
	if out := pending.outOfScope(); len(out) != 1 || out[0].attr != "ebtables" {
		t.Errorf("out of scope with an unknown vmid: %+v", out)
	}
	if got := optionSpecByAttr("policy_in").scopes.describe(); got != "the cluster's and guests' firewalls" {
		t.Errorf("policy_in's firewalls: %q", got)
	}
}

func TestOptionsObjectRoundTrip(t *testing.T) {
	m := model(scopeRef{Node: "pve2"}, map[string]attr.Value{"nftables": types.BoolValue(true)})
	m.ID = types.StringValue("node/pve2")
	back := optionsFromObject(m.object())
	if diff := cmp.Diff(set(m), set(back)); diff != "" || !back.Node.Equal(m.Node) || !back.ID.Equal(m.ID) || !back.VMID.IsNull() {
		t.Errorf("round trip changed the model: %+v\n%s", back, diff)
	}
}

func TestOptionsLockoutWarning(t *testing.T) {
	cluster := func(enabled attr.Value, policy attr.Value) optionsModel {
		return model(scopeRef{}, map[string]attr.Value{"enabled": enabled, "policy_in": policy})
	}
	on, off := types.BoolValue(true), types.BoolValue(false)
	drop, accept, unset := types.StringValue("DROP"), types.StringValue("ACCEPT"), types.StringNull()
	for _, tc := range []struct {
		name  string
		plan  optionsModel
		state *optionsModel
		warn  bool
	}{
		{"create enabled with DROP", cluster(on, drop), nil, true},
		{"create enabled with PVE's policy", cluster(on, unset), nil, true},
		{"create enabled with ACCEPT", cluster(on, accept), nil, false},
		{"create disabled", cluster(off, drop), nil, false},
		{"turn on", cluster(on, drop), ptr(cluster(off, drop)), true},
		{"tighten while on", cluster(on, types.StringValue("REJECT")), ptr(cluster(on, accept)), true},
		{"unchanged", cluster(on, drop), ptr(cluster(on, drop)), false},
		{"node firewall", model(scopeRef{Node: "pve1"}, map[string]attr.Value{"enabled": on}), nil, false},
		{"unknown enabled", cluster(types.BoolUnknown(), drop), nil, false},
	} {
		detail, warn := lockoutWarning(tc.plan, tc.state)
		if warn != tc.warn {
			t.Errorf("%s: warn = %v, want %v", tc.name, warn, tc.warn)
		}
		if warn && (!strings.Contains(detail, "8006") || !strings.Contains(detail, "management") || !strings.Contains(detail, "local_network")) {
			t.Errorf("%s: the warning does not name what PVE keeps open: %s", tc.name, detail)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestMacrosSorted(t *testing.T) {
	m := macrosFromAPI([]pveapi.FirewallMacro{{Macro: "SSH", Description: "Secure shell traffic"}, {Macro: "HTTP", Description: "Hypertext Transfer Protocol (WWW)"}})
	if diff := cmp.Diff([]string{"HTTP", "SSH"}, m.Names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if m.Macros[0].Description.ValueString() != "Hypertext Transfer Protocol (WWW)" {
		t.Errorf("first macro: %+v", m.Macros[0])
	}
}

func TestRefsOrder(t *testing.T) {
	got := refsFromAPI([]pveapi.FirewallRef{
		{Type: "alias", Name: "web", Ref: "web", Scope: "guest"},
		{Type: "ipset", Name: "office", Ref: "+office", Scope: "dc", Comment: "HQ"},
		{Type: "alias", Name: "gw", Ref: "gw", Scope: "dc"},
		{Type: "alias", Name: "db", Ref: "db", Scope: "dc"},
	})
	var refs []string
	for _, r := range got {
		refs = append(refs, r.Scope.ValueString()+":"+r.Ref.ValueString())
	}
	if diff := cmp.Diff([]string{"dc:db", "dc:gw", "dc:+office", "guest:web"}, refs); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if !got[0].Comment.IsNull() || got[2].Comment.ValueString() != "HQ" {
		t.Errorf("comments: %+v", got)
	}
}
