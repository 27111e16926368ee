package sdn

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// PVE's answers in every form the pending view uses: booleans as 0/1
// numbers, integers as numbers or strings, node lists encoded and sorted
// (pve-network src/PVE/Network/SDN.pm encode_value) or as a hash when not
// encoded.
func TestOptionsFromAPI(t *testing.T) {
	t.Parallel()
	got := optionsFromAPI(wire.SDNZoneOptions(), map[string]any{
		"type": "vlan", "zone": "lab", "bridge": "vmbr0", "mtu": float64(1500), "nodes": "pve2,pve1",
		"bridge-disable-mac-learning": float64(1), "exitnodes": map[string]any{"pve3": 1, "pve1": 1}, "vxlan-port": "4790",
	})
	want := map[string]string{"bridge": "vmbr0", "mtu": "1500", "nodes": "pve1,pve2", "bridge-disable-mac-learning": "1",
		"exitnodes": "pve1,pve3", "vxlan-port": "4790"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// Only the options the zone's type takes reach state.
func TestZoneOptionsFromAPIKeepsTheTypes(t *testing.T) {
	t.Parallel()
	got := zoneOptionsFromAPI("simple", map[string]any{"type": "simple", "ipam": "pve", "bridge": "vmbr0"})
	if !reflect.DeepEqual(got, map[string]string{"ipam": "pve"}) {
		t.Errorf("got %v", got)
	}
}

// An update sends what changed and deletes what was removed, and nothing
// when nothing changed.
func TestUpdateForm(t *testing.T) {
	t.Parallel()
	state := declared{opts: map[string]string{"mtu": "1500", "bridge": "vmbr0", "ipam": "pve"}}
	plan := declared{opts: map[string]string{"mtu": "1400", "bridge": "vmbr0", "nodes": "pve1"}}
	f, changed := updateForm(wire.SDNZoneOptions(), state, plan)
	if !changed || f.Get("mtu") != "1400" || f.Get("nodes") != "pve1" || f.Get("delete") != "ipam" || f.Has("bridge") {
		t.Errorf("form %v", f)
	}
	if _, changed := updateForm(wire.SDNZoneOptions(), state, state); changed {
		t.Error("no change must send nothing")
	}
}

// dhcp-range comes as objects at top level and as property strings in
// the pending part (pve-network src/PVE/API2/Network/SDN/Subnets.pm
// api_sdn_subnets_config).
func TestRangesFromAPI(t *testing.T) {
	t.Parallel()
	want := []dhcpRange{{"10.0.0.10", "10.0.0.20"}}
	if got := rangesFromAPI([]any{map[string]any{"start-address": "10.0.0.10", "end-address": "10.0.0.20"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("objects: %v", got)
	}
	if got := rangesFromAPI([]any{"start-address=10.0.0.10,end-address=10.0.0.20"}); !reflect.DeepEqual(got, want) {
		t.Errorf("strings: %v", got)
	}
	if want[0].wire() != "start-address=10.0.0.10,end-address=10.0.0.20" {
		t.Error(want[0].wire())
	}
	if rangesFromAPI(nil) != nil {
		t.Error("none")
	}
	// PVE 8.4's pending form: the ranges sorted, joined by commas.
	two := []dhcpRange{{"10.0.0.30", "10.0.0.40"}, {"10.0.0.10", "10.0.0.20"}}
	got := rangesFromAPI("start-address=10.0.0.10,end-address=10.0.0.20,start-address=10.0.0.30,end-address=10.0.0.40")
	if !reflect.DeepEqual(got, []dhcpRange{two[1], two[0]}) {
		t.Errorf("8.4 string: %v", got)
	}
	if !reflect.DeepEqual(inPriorOrder(got, two), two) || !reflect.DeepEqual(inPriorOrder(got, two[:1]), got) {
		t.Error("the prior order is kept only for the same ranges")
	}
}

func object(sdnID attr.Value) types.Object {
	return types.ObjectValueMust(map[string]attr.Type{"sdn_id": types.StringType, "zone": types.StringType},
		map[string]attr.Value{"sdn_id": sdnID, "zone": types.StringValue("x")})
}

// The applier's objects: sdn_ids of whole resources, unknown while one is,
// and an error naming the element that is no SDN resource.
func TestObjectSDNIDs(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	tuple := types.TupleValueMust([]attr.Type{object(types.StringNull()).Type(context.Background()), object(types.StringNull()).Type(context.Background())},
		[]attr.Value{object(types.StringValue("zone/b")), object(types.StringValue("vnet/a"))})
	ids, known := objectSDNIDs(types.DynamicValue(tuple), &diags)
	if !known || diags.HasError() || !reflect.DeepEqual(ids, []string{"vnet/a", "zone/b"}) {
		t.Errorf("ids %v known %v diags %v", ids, known, diags)
	}
	unknown := types.TupleValueMust([]attr.Type{object(types.StringNull()).Type(context.Background())}, []attr.Value{object(types.StringUnknown())})
	if _, known := objectSDNIDs(types.DynamicValue(unknown), &diags); known {
		t.Error("an unknown sdn_id must leave the ids unknown")
	}
	bad := types.TupleValueMust([]attr.Type{types.StringType}, []attr.Value{types.StringValue("zone/x")})
	objectSDNIDs(types.DynamicValue(bad), &diags)
	if !diags.HasError() || diags[0].Summary() != BadObjectSummary {
		t.Errorf("want %s, got %v", BadObjectSummary, diags)
	}
}
