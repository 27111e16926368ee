package sdn

import (
	"context"
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// pluginListItemPattern is one item of a list option: PVE splits lists on
// commas, semicolons and white space (pve-common split_list).
var pluginListItemPattern = regexp.MustCompile(`^[^,;\s]+$`)

// pluginGetter is what plan, state and configuration have in common.
type pluginGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// pluginSetter is a state.
type pluginSetter interface {
	SetAttribute(ctx context.Context, p path.Path, val any) diag.Diagnostics
}

// pluginDeclared is the options a plan, state or configuration holds, in
// the form a write sends them; unknown ones are listed apart. Sensitive
// options are never read here.
type pluginDeclared struct {
	opts    map[string]string
	unknown map[string]bool
}

func readPluginOptions(ctx context.Context, g pluginGetter, f wire.SDNPluginFamily, diags *diag.Diagnostics) pluginDeclared {
	d := pluginDeclared{opts: map[string]string{}, unknown: map[string]bool{}}
	for _, o := range f.Options() {
		if o.Sensitive {
			continue
		}
		at := path.Root(wire.SDNPluginAttributeName(o.Key))
		var v attr.Value
		switch o.Kind {
		case wire.SDNPluginBool:
			var b types.Bool
			diags.Append(g.GetAttribute(ctx, at, &b)...)
			if !b.IsNull() && !b.IsUnknown() {
				d.opts[o.Key] = wire.Bool(b.ValueBool())
			}
			v = b
		case wire.SDNPluginInt:
			var n types.Int64
			diags.Append(g.GetAttribute(ctx, at, &n)...)
			if !n.IsNull() && !n.IsUnknown() {
				d.opts[o.Key] = strconv.FormatInt(n.ValueInt64(), 10)
			}
			v = n
		case wire.SDNPluginList:
			var set types.Set
			diags.Append(g.GetAttribute(ctx, at, &set)...)
			if !set.IsNull() && !set.IsUnknown() {
				var items []string
				diags.Append(set.ElementsAs(ctx, &items, false)...)
				d.opts[o.Key] = wire.JoinSDNList(items)
			}
			v = set
		default:
			var s types.String
			diags.Append(g.GetAttribute(ctx, at, &s)...)
			if !s.IsNull() && !s.IsUnknown() {
				d.opts[o.Key] = s.ValueString()
			}
			v = s
		}
		if v.IsUnknown() {
			d.unknown[o.Key] = true
		}
	}
	return d
}

// setPluginOptions writes PVE's options into state: an option PVE does not
// hold is null. opts come from wire.SDNPluginOptionsFromAPI.
func setPluginOptions(ctx context.Context, s pluginSetter, f wire.SDNPluginFamily, opts map[string]string, diags *diag.Diagnostics) {
	for _, o := range f.Options() {
		if o.Sensitive {
			continue
		}
		at := path.Root(wire.SDNPluginAttributeName(o.Key))
		v, ok := opts[o.Key]
		switch o.Kind {
		case wire.SDNPluginBool:
			b := types.BoolNull()
			if ok {
				b = types.BoolValue(v == "1")
			}
			diags.Append(s.SetAttribute(ctx, at, b)...)
		case wire.SDNPluginInt:
			n := types.Int64Null()
			if ok {
				if i, err := strconv.ParseInt(v, 10, 64); err == nil {
					n = types.Int64Value(i)
				}
			}
			diags.Append(s.SetAttribute(ctx, at, n)...)
		case wire.SDNPluginList:
			set := types.SetNull(types.StringType)
			if ok {
				elems := []attr.Value{}
				for _, item := range wire.SplitSDNList(v) {
					elems = append(elems, types.StringValue(item))
				}
				set = types.SetValueMust(types.StringType, elems)
			}
			diags.Append(s.SetAttribute(ctx, at, set)...)
		default:
			str := types.StringNull()
			if ok {
				str = types.StringValue(v)
			}
			diags.Append(s.SetAttribute(ctx, at, str)...)
		}
	}
}

// pluginDelta is the PUT that turns the state's options into the plan's:
// changed and new options set, removed ones deleted; unknown ones left
// alone.
func pluginDelta(f wire.SDNPluginFamily, state, plan pluginDeclared) *wire.ConfigDelta {
	delta := &wire.ConfigDelta{}
	for _, o := range f.Options() {
		if o.Sensitive || plan.unknown[o.Key] {
			continue
		}
		pv, inPlan := plan.opts[o.Key]
		sv, inState := state.opts[o.Key]
		switch {
		case inPlan && (!inState || pv != sv):
			delta.Set(o.Key, pv)
		case !inPlan && inState:
			delta.Delete(o.Key)
		}
	}
	return delta
}
