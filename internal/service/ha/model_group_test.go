package ha

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func groupBool(b bool) *pveapi.Bool01 { v := pveapi.Bool01(b); return &v }

// PVE prints a group's node entries in no particular order; the map does
// not care, and a node without priority reads as priority 0.
func TestGroupFromAPINodeOrder(t *testing.T) {
	t.Parallel()
	var a, b groupModel
	if d := a.fromAPI(&pveapi.HAGroup{Group: "web", Nodes: "pve2:1,pve1:2,pve3"}); d.HasError() {
		t.Fatal(d)
	}
	if d := b.fromAPI(&pveapi.HAGroup{Group: "web", Nodes: "pve3:0,pve1:2,pve2:1", Restricted: groupBool(false)}); d.HasError() {
		t.Fatal(d)
	}
	if !a.Nodes.Equal(b.Nodes) {
		t.Errorf("nodes differ: %v vs %v", a.Nodes, b.Nodes)
	}
	if !a.Restricted.IsNull() || a.Comment.IsNull() == false {
		t.Errorf("absent options must be null: %+v", a)
	}
	if b.Restricted.IsNull() || b.Restricted.ValueBool() {
		t.Errorf("restricted=0 must read false: %v", b.Restricted)
	}
}

func TestGroupToCreateAndUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	state := groupModel{
		Group:      types.StringValue("web"),
		Nodes:      groupNodesValue(map[string]int64{"pve1": 2, "pve2": 0}),
		Restricted: types.BoolValue(true),
		NoFailback: types.BoolNull(),
		Comment:    types.StringValue("old"),
	}
	cfg, d := groupToCreate(ctx, state)
	if d.HasError() || cfg.Nodes != "pve1:2,pve2" || *cfg.Restricted != true || cfg.NoFailback != nil || *cfg.Comment != "old" {
		t.Fatalf("create = %+v %v", cfg, d)
	}
	if _, needed, _ := groupToUpdate(ctx, state, state); needed {
		t.Error("no change must need no update")
	}
	plan := state
	plan.Nodes = groupNodesValue(map[string]int64{"pve3": 1})
	plan.Restricted = types.BoolNull()
	plan.NoFailback = types.BoolValue(false)
	plan.Comment = types.StringNull()
	cfg, needed, d := groupToUpdate(ctx, state, plan)
	if d.HasError() || !needed {
		t.Fatalf("update not needed: %v", d)
	}
	if cfg.Nodes != "pve3:1" || cfg.NoFailback == nil || *cfg.NoFailback || cfg.Restricted != nil || cfg.Comment != nil ||
		!reflect.DeepEqual(cfg.Delete, []string{"comment", "restricted"}) {
		t.Errorf("update = %+v", cfg)
	}
}
