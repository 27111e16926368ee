package ha

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func ruleStr(s string) *string { return &s }

func ruleSet(sids ...string) types.Set {
	m, _ := types.SetValueFrom(context.Background(), types.StringType, sids)
	return m
}

// PVE prints nodes sorted with priority 0 dropped, resources sorted, and
// keeps no false disable: none of that is a difference.
func TestRuleFromAPINormalisations(t *testing.T) {
	t.Parallel()
	m := ruleModel{Disable: types.BoolValue(false)}
	if d := m.fromAPI(&pveapi.HARule{Rule: "web", Type: "node-affinity", Resources: "ct:101,vm:100", Nodes: ruleStr("pve1:2,pve2")}); d.HasError() {
		t.Fatal(d)
	}
	if !m.Nodes.Equal(groupNodesValue(map[string]int64{"pve2": 0, "pve1": 2})) {
		t.Errorf("nodes = %v", m.Nodes)
	}
	if !m.Resources.Equal(ruleSet("vm:100", "ct:101")) {
		t.Errorf("resources = %v", m.Resources)
	}
	if m.Disable.IsNull() || m.Disable.ValueBool() {
		t.Errorf("a configured disable = false must stay false: %v", m.Disable)
	}
	if !m.Strict.IsNull() || !m.Affinity.IsNull() || !m.Comment.IsNull() {
		t.Errorf("absent options must be null: %+v", m)
	}
	var fresh ruleModel
	_ = fresh.fromAPI(&pveapi.HARule{Rule: "web", Type: "resource-affinity", Resources: "vm:1,vm:2", Affinity: ruleStr("negative")})
	if !fresh.Disable.IsNull() || !fresh.Nodes.IsNull() || fresh.Affinity.ValueString() != "negative" {
		t.Errorf("import = %+v", fresh)
	}
}

// PVE ignores disable=0 (pve-ha-manager src/PVE/API2/HA/Rules.pm
// update_rule), so enabling a rule deletes the option.
func TestRuleToUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	state := ruleModel{
		Rule: types.StringValue("web"), Type: types.StringValue("node-affinity"),
		Resources: ruleSet("vm:100"), Nodes: groupNodesValue(map[string]int64{"pve1": 1}),
		Strict: types.BoolValue(true), Affinity: types.StringNull(), Disable: types.BoolValue(true), Comment: types.StringNull(),
	}
	cfg, d := ruleToCreate(ctx, state)
	if d.HasError() || cfg.Type != "node-affinity" || cfg.Resources != "vm:100" || cfg.Nodes != "pve1:1" || !cfg.Disable || !*cfg.Strict {
		t.Fatalf("create = %+v", cfg)
	}
	if _, needed, _ := ruleToUpdate(ctx, state, state); needed {
		t.Error("no change must need no update")
	}
	plan := state
	plan.Disable = types.BoolNull()
	plan.Strict = types.BoolNull()
	plan.Resources = ruleSet("vm:100", "ct:101")
	plan.Comment = types.StringValue("c")
	cfg, needed, d := ruleToUpdate(ctx, state, plan)
	if d.HasError() || !needed {
		t.Fatal("update not needed")
	}
	if cfg.Type != "node-affinity" || cfg.Resources != "ct:101,vm:100" || cfg.Nodes != "" || cfg.Disable || *cfg.Comment != "c" ||
		!reflect.DeepEqual(cfg.Delete, []string{"disable", "strict"}) {
		t.Errorf("update = %+v", cfg)
	}
}
