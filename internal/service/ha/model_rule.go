package ha

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ruleModel is pve_ha_rule's Terraform model.
type ruleModel struct {
	ID        types.String `tfsdk:"id"`
	Rule      types.String `tfsdk:"rule"`
	Type      types.String `tfsdk:"type"`
	Resources types.Set    `tfsdk:"resources"`
	Nodes     types.Map    `tfsdk:"nodes"`
	Strict    types.Bool   `tfsdk:"strict"`
	Affinity  types.String `tfsdk:"affinity"`
	Disable   types.Bool   `tfsdk:"disable"`
	Comment   types.String `tfsdk:"comment"`
}

// ruleResourcesValue is the set of HA resource ids of PVE's list.
func ruleResourcesValue(list string) types.Set {
	var elems []attr.Value
	for _, sid := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
		elems = append(elems, types.StringValue(sid))
	}
	return types.SetValueMust(types.StringType, elems)
}

// ruleResourcesList is PVE's list of the set: sorted, comma-separated.
func ruleResourcesList(ctx context.Context, s types.Set) (string, diag.Diagnostics) {
	var sids []string
	diags := s.ElementsAs(ctx, &sids, false)
	slices.Sort(sids)
	return strings.Join(sids, ","), diags
}

// fromAPI fills the model from what PVE answers. PVE prints only the
// options it stores; it drops a false disable, so a configured false is
// kept when PVE shows none.
func (m *ruleModel) fromAPI(r *pveapi.HARule) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.StringValue(r.Rule)
	m.Rule = types.StringValue(r.Rule)
	m.Type = types.StringValue(r.Type)
	m.Resources = ruleResourcesValue(r.Resources)
	m.Nodes = types.MapNull(types.Int64Type)
	if r.Nodes != nil {
		nodes, err := wire.ParseHANodeList(*r.Nodes)
		if err != nil {
			diags.AddError("Unexpected HA Rule Nodes", "PVE answered nodes \""+*r.Nodes+"\" for HA rule "+r.Rule+": "+err.Error()+".")
			return diags
		}
		m.Nodes = groupNodesValue(nodes)
	}
	m.Strict = groupBoolValue(r.Strict)
	m.Affinity = types.StringPointerValue(r.Affinity)
	switch {
	case r.Disable != nil:
		m.Disable = types.BoolValue(bool(*r.Disable))
	case !m.Disable.IsNull() && !m.Disable.IsUnknown() && !m.Disable.ValueBool():
		// disable = false: PVE keeps nothing, which is the same.
	default:
		m.Disable = types.BoolNull()
	}
	m.Comment = types.StringPointerValue(r.Comment)
	return diags
}

// ruleToCreate is the create request of plan.
func ruleToCreate(ctx context.Context, plan ruleModel) (pveapi.HARuleConfig, diag.Diagnostics) {
	resources, diags := ruleResourcesList(ctx, plan.Resources)
	cfg := pveapi.HARuleConfig{
		Type:      plan.Type.ValueString(),
		Resources: resources,
		Strict:    groupBoolPtr(plan.Strict),
		Affinity:  plan.Affinity.ValueString(),
		Disable:   plan.Disable.ValueBool(),
		Comment:   plan.Comment.ValueStringPointer(),
	}
	if nodes, ok, d := groupNodesFrom(ctx, plan.Nodes); ok {
		cfg.Nodes = wire.FormatHANodeList(nodes)
	} else {
		diags.Append(d...)
	}
	return cfg, diags
}

// ruleToUpdate is the update from state to plan; needed is false when
// nothing changes. PVE ignores disable=0, so enabling deletes disable.
func ruleToUpdate(ctx context.Context, state, plan ruleModel) (cfg pveapi.HARuleConfig, needed bool, diags diag.Diagnostics) {
	cfg.Type = plan.Type.ValueString()
	if !plan.Resources.Equal(state.Resources) {
		cfg.Resources, diags = ruleResourcesList(ctx, plan.Resources)
	}
	if !plan.Nodes.Equal(state.Nodes) {
		if nodes, ok, d := groupNodesFrom(ctx, plan.Nodes); ok {
			cfg.Nodes = wire.FormatHANodeList(nodes)
		} else {
			diags.Append(d...)
		}
	}
	if !plan.Affinity.Equal(state.Affinity) {
		cfg.Affinity = plan.Affinity.ValueString()
	}
	switch {
	case plan.Strict.Equal(state.Strict):
	case plan.Strict.IsNull():
		cfg.Delete = append(cfg.Delete, "strict")
	default:
		cfg.Strict = groupBoolPtr(plan.Strict)
	}
	switch {
	case plan.Disable.ValueBool() == state.Disable.ValueBool():
	case plan.Disable.ValueBool():
		cfg.Disable = true
	default:
		cfg.Delete = append(cfg.Delete, "disable")
	}
	switch {
	case plan.Comment.Equal(state.Comment):
	case plan.Comment.IsNull():
		cfg.Delete = append(cfg.Delete, "comment")
	default:
		cfg.Comment = plan.Comment.ValueStringPointer()
	}
	slices.Sort(cfg.Delete)
	needed = cfg.Resources != "" || cfg.Nodes != "" || cfg.Affinity != "" || cfg.Strict != nil ||
		cfg.Disable || cfg.Comment != nil || len(cfg.Delete) > 0
	return cfg, needed, diags
}

// ruleSameAsState tells whether what PVE has now is what the state
// recorded.
func ruleSameAsState(live, state ruleModel) bool {
	return live.Resources.Equal(state.Resources) && live.Nodes.Equal(state.Nodes) && live.Strict.Equal(state.Strict) &&
		live.Affinity.Equal(state.Affinity) && live.Disable.ValueBool() == state.Disable.ValueBool() && live.Comment.Equal(state.Comment)
}

// ruleErrorsText is PVE's reasons for ignoring a rule, one line each.
func ruleErrorsText(errs map[string][]string) string {
	var lines []string
	for _, opt := range slices.Sorted(maps.Keys(errs)) {
		for _, msg := range errs[opt] {
			lines = append(lines, "- "+opt+": "+msg)
		}
	}
	return strings.Join(lines, "\n")
}
