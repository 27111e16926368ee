package firewall

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// rulesModel is pve_firewall_rules.
type rulesModel struct {
	ID            types.String `tfsdk:"id"`
	Node          types.String `tfsdk:"node"`
	VMID          types.Int64  `tfsdk:"vmid"`
	SecurityGroup types.String `tfsdk:"security_group"`
	Rules         types.List   `tfsdk:"rules"`
}

// ruleModel is one rule of the list.
type ruleModel struct {
	Type     types.String `tfsdk:"type"`
	Action   types.String `tfsdk:"action"`
	Macro    types.String `tfsdk:"macro"`
	Iface    types.String `tfsdk:"iface"`
	Source   types.String `tfsdk:"source"`
	Dest     types.String `tfsdk:"dest"`
	Proto    types.String `tfsdk:"proto"`
	Dport    types.String `tfsdk:"dport"`
	Sport    types.String `tfsdk:"sport"`
	ICMPType types.String `tfsdk:"icmp_type"`
	Log      types.String `tfsdk:"log"`
	Comment  types.String `tfsdk:"comment"`
	Enabled  types.Bool   `tfsdk:"enabled"`
}

// ruleStringFields pairs each optional string attribute with PVE's key.
var ruleStringFields = []struct {
	key string
	get func(*ruleModel) *types.String
}{
	{"macro", func(m *ruleModel) *types.String { return &m.Macro }},
	{"iface", func(m *ruleModel) *types.String { return &m.Iface }},
	{"source", func(m *ruleModel) *types.String { return &m.Source }},
	{"dest", func(m *ruleModel) *types.String { return &m.Dest }},
	{"proto", func(m *ruleModel) *types.String { return &m.Proto }},
	{"dport", func(m *ruleModel) *types.String { return &m.Dport }},
	{"sport", func(m *ruleModel) *types.String { return &m.Sport }},
	{"icmp-type", func(m *ruleModel) *types.String { return &m.ICMPType }},
	{"log", func(m *ruleModel) *types.String { return &m.Log }},
	{"comment", func(m *ruleModel) *types.String { return &m.Comment }},
}

var ruleAttrTypes = map[string]attr.Type{
	"type":      types.StringType,
	"action":    types.StringType,
	"macro":     types.StringType,
	"iface":     types.StringType,
	"source":    types.StringType,
	"dest":      types.StringType,
	"proto":     types.StringType,
	"dport":     types.StringType,
	"sport":     types.StringType,
	"icmp_type": types.StringType,
	"log":       types.StringType,
	"comment":   types.StringType,
	"enabled":   types.BoolType,
}

var ruleObjectType = types.ObjectType{AttrTypes: ruleAttrTypes}

// fields is the rule as PVE's parameters: every set attribute, and enable
// always (PVE disables a rule created without it).
func (m ruleModel) fields() map[string]string {
	out := map[string]string{
		"type":   m.Type.ValueString(),
		"action": m.Action.ValueString(),
		"enable": "1",
	}
	if !m.Enabled.IsNull() && !m.Enabled.IsUnknown() && !m.Enabled.ValueBool() {
		out["enable"] = "0"
	}
	for _, f := range ruleStringFields {
		if v := f.get(&m); !v.IsNull() && !v.IsUnknown() {
			out[f.key] = v.ValueString()
		}
	}
	return out
}

// ruleFromFields is a rule as PVE stores it; keys PVE adds on its own
// (ipversion) have no attribute.
func ruleFromFields(fields map[string]string) ruleModel {
	m := ruleModel{
		Type:    types.StringValue(fields["type"]),
		Action:  types.StringValue(fields["action"]),
		Enabled: types.BoolValue(fields["enable"] != "0"),
	}
	for _, f := range ruleStringFields {
		if v, ok := fields[f.key]; ok && v != "" {
			*f.get(&m) = types.StringValue(v)
		} else {
			*f.get(&m) = types.StringNull()
		}
	}
	return m
}

// ruleKey is what makes two rules the same rule to PVE: the stored form,
// with PVE's own normalisations undone (macro names match whatever their
// case, comments lose surrounding blanks, enable is 0 or 1). Keys PVE
// derives (ipversion) are left out.
func ruleKey(fields map[string]string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(fields["type"]))
	b.WriteByte('\x00')
	b.WriteString(fields["action"])
	b.WriteByte('\x00')
	if fields["enable"] == "0" {
		b.WriteString("0")
	} else {
		b.WriteString("1")
	}
	for _, f := range ruleStringFields {
		v := fields[f.key]
		switch f.key {
		case "macro":
			v = strings.ToLower(v)
		case "comment":
			v = strings.TrimSpace(v)
		}
		b.WriteByte('\x00')
		b.WriteString(v)
	}
	return b.String()
}

// ruleKeys is ruleKey of every rule.
func ruleKeys(list []map[string]string) []string {
	out := make([]string, len(list))
	for i, fields := range list {
		out[i] = ruleKey(fields)
	}
	return out
}

// rulesFromList decodes the rules attribute; ok is false when the list or
// one of its rules is not known yet.
func rulesFromList(ctx context.Context, list types.List, diags *diag.Diagnostics) (rules []ruleModel, ok bool) {
	if list.IsNull() || list.IsUnknown() {
		return nil, false
	}
	for _, elem := range list.Elements() {
		if elem.IsUnknown() {
			return nil, false
		}
	}
	diags.Append(list.ElementsAs(ctx, &rules, false)...)
	return rules, !diags.HasError()
}

// rulesList encodes rules for state.
func rulesList(ctx context.Context, rules []ruleModel, diags *diag.Diagnostics) types.List {
	if rules == nil {
		rules = []ruleModel{}
	}
	list, d := types.ListValueFrom(ctx, ruleObjectType, rules)
	diags.Append(d...)
	return list
}

// keepSpelling returns PVE's rules, each replaced by the configured one at
// the same position when the two are the same rule, so the configuration's
// spelling (a macro in lowercase, a comment with trailing blanks) never
// shows as a change.
func keepSpelling(live []map[string]string, configured []ruleModel) []ruleModel {
	out := make([]ruleModel, len(live))
	for i, fields := range live {
		out[i] = ruleFromFields(fields)
		if i < len(configured) && ruleKey(configured[i].fields()) == ruleKey(fields) {
			out[i] = configured[i]
		}
	}
	return out
}
