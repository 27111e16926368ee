package firewall

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestScopeIDsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want scopeRef
		rest string
	}{
		{"cluster", scopeRef{}, ""},
		{"cluster/office", scopeRef{}, "office"},
		{"node/pve1", scopeRef{Node: "pve1"}, ""},
		{"guest/100", scopeRef{VMID: 100}, ""},
		{"guest/100/web", scopeRef{VMID: 100}, "web"},
	} {
		got, rest, err := parseScope(tc.id)
		if err != nil || got != tc.want || rest != tc.rest {
			t.Errorf("parseScope(%q) = %+v, %q, %v; want %+v, %q", tc.id, got, rest, err, tc.want, tc.rest)
		}
		if tc.rest == "" && got.String() != tc.id {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.id)
		}
	}
	for _, bad := range []string{"", "node", "node/", "guest/abc", "guest/99", "vm/100"} {
		if _, _, err := parseScope(bad); err == nil {
			t.Errorf("parseScope(%q) accepted", bad)
		}
	}
}

func TestScopeKindAndDescription(t *testing.T) {
	for _, tc := range []struct {
		ref  scopeRef
		kind scopeKind
		text string
	}{
		{scopeFromModel(types.StringNull(), types.Int64Null()), clusterScope, "the cluster's firewall"},
		{scopeFromModel(types.StringValue("pve2"), types.Int64Null()), nodeScope, "node pve2's firewall"},
		{scopeFromModel(types.StringNull(), types.Int64Value(101)), guestScope, "guest 101's firewall"},
	} {
		if tc.ref.kind() != tc.kind || tc.ref.describe() != tc.text {
			t.Errorf("%+v: kind %v %q, want %v %q", tc.ref, tc.ref.kind(), tc.ref.describe(), tc.kind, tc.text)
		}
	}
	if _, _, conflict := conflictingScope(types.StringValue("pve1"), types.Int64Value(100)); !conflict {
		t.Error("node and vmid together were not reported")
	}
	if _, _, conflict := conflictingScope(types.StringValue("pve1"), types.Int64Null()); conflict {
		t.Error("node alone was reported")
	}
}
