package ha

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// groupModel is pve_ha_group's Terraform model.
type groupModel struct {
	ID         types.String `tfsdk:"id"`
	Group      types.String `tfsdk:"group"`
	Nodes      types.Map    `tfsdk:"nodes"`
	Restricted types.Bool   `tfsdk:"restricted"`
	NoFailback types.Bool   `tfsdk:"nofailback"`
	Comment    types.String `tfsdk:"comment"`
}

// groupNodesValue is a node -> priority map value.
func groupNodesValue(nodes map[string]int64) types.Map {
	elems := make(map[string]attr.Value, len(nodes))
	for n, p := range nodes {
		elems[n] = types.Int64Value(p)
	}
	return types.MapValueMust(types.Int64Type, elems)
}

// groupNodesFrom reads a known node map; ok is false while it is unknown.
func groupNodesFrom(ctx context.Context, m types.Map) (map[string]int64, bool, diag.Diagnostics) {
	if m.IsNull() || m.IsUnknown() {
		return nil, false, nil
	}
	out := map[string]int64{}
	diags := m.ElementsAs(ctx, &out, false)
	return out, !diags.HasError(), diags
}

// fromAPI fills the model from what PVE answers. Options PVE does not
// print are null; PVE prints the booleans it was sent, false included.
func (m *groupModel) fromAPI(g *pveapi.HAGroup) diag.Diagnostics {
	var diags diag.Diagnostics
	nodes, err := wire.ParseHANodeList(g.Nodes)
	if err != nil {
		diags.AddError("Unexpected HA Group Nodes", "PVE answered nodes \""+g.Nodes+"\" for HA group "+g.Group+": "+err.Error()+".")
		return diags
	}
	m.ID = types.StringValue(g.Group)
	m.Group = types.StringValue(g.Group)
	m.Nodes = groupNodesValue(nodes)
	m.Restricted = groupBoolValue(g.Restricted)
	m.NoFailback = groupBoolValue(g.NoFailback)
	m.Comment = types.StringPointerValue(g.Comment)
	return diags
}

func groupBoolValue(b *pveapi.Bool01) types.Bool {
	if b == nil {
		return types.BoolNull()
	}
	return types.BoolValue(bool(*b))
}

func groupBoolPtr(v types.Bool) *bool {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	b := v.ValueBool()
	return &b
}

// groupToCreate is the create request of plan.
func groupToCreate(ctx context.Context, plan groupModel) (pveapi.HAGroupConfig, diag.Diagnostics) {
	nodes, _, diags := groupNodesFrom(ctx, plan.Nodes)
	return pveapi.HAGroupConfig{
		Nodes:      wire.FormatHANodeList(nodes),
		Restricted: groupBoolPtr(plan.Restricted),
		NoFailback: groupBoolPtr(plan.NoFailback),
		Comment:    plan.Comment.ValueStringPointer(),
	}, diags
}

// groupToUpdate is the update from state to plan: changed options set,
// options removed from the configuration deleted; needed is false when
// nothing changes.
func groupToUpdate(ctx context.Context, state, plan groupModel) (cfg pveapi.HAGroupConfig, needed bool, diags diag.Diagnostics) {
	if !plan.Nodes.Equal(state.Nodes) {
		nodes, _, d := groupNodesFrom(ctx, plan.Nodes)
		diags.Append(d...)
		cfg.Nodes = wire.FormatHANodeList(nodes)
	}
	setBool := func(key string, from, to types.Bool, dst **bool) {
		switch {
		case to.Equal(from):
		case to.IsNull():
			cfg.Delete = append(cfg.Delete, key)
		default:
			*dst = groupBoolPtr(to)
		}
	}
	setBool("restricted", state.Restricted, plan.Restricted, &cfg.Restricted)
	setBool("nofailback", state.NoFailback, plan.NoFailback, &cfg.NoFailback)
	switch {
	case plan.Comment.Equal(state.Comment):
	case plan.Comment.IsNull():
		cfg.Delete = append(cfg.Delete, "comment")
	default:
		cfg.Comment = plan.Comment.ValueStringPointer()
	}
	slices.Sort(cfg.Delete)
	needed = cfg.Nodes != "" || cfg.Restricted != nil || cfg.NoFailback != nil || cfg.Comment != nil || len(cfg.Delete) > 0
	return cfg, needed, diags
}

// groupSameAsState tells whether what PVE has now is what the state
// recorded, for the settings the configuration manages.
func groupSameAsState(live, state groupModel) bool {
	return live.Nodes.Equal(state.Nodes) && live.Restricted.Equal(state.Restricted) &&
		live.NoFailback.Equal(state.NoFailback) && live.Comment.Equal(state.Comment)
}
