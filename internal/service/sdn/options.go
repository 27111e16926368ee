// Package sdn holds the SDN resources and data sources: zones, vnets and
// subnets, which stage their changes in PVE, and pve_sdn_applier, which
// applies all staged changes of a run at once (under PVE 9's SDN lock,
// taken by the provider's SDN session for the whole run).
package sdn

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// attrGetter is what plan, state and configuration have in common.
type attrGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// attrSetter is a state or plan.
type attrSetter interface {
	SetAttribute(ctx context.Context, p path.Path, val any) diag.Diagnostics
}

// declared is the options a plan, state or configuration holds, in wire
// form (lists sorted, booleans 1/0); unknown values are listed apart.
type declared struct {
	opts    map[string]string
	unknown map[string]bool
}

// readOptions reads the table's options from g.
func readOptions(ctx context.Context, g attrGetter, options []wire.SDNOption, diags *diag.Diagnostics) declared {
	d := declared{opts: map[string]string{}, unknown: map[string]bool{}}
	for _, o := range options {
		at := path.Root(wire.SDNAttributeName(o.Key))
		var v attr.Value
		switch o.Kind {
		case wire.SDNBool:
			var b types.Bool
			diags.Append(g.GetAttribute(ctx, at, &b)...)
			if !b.IsNull() && !b.IsUnknown() {
				d.opts[o.Key] = wire.Bool(b.ValueBool())
			}
			v = b
		case wire.SDNInt:
			var n types.Int64
			diags.Append(g.GetAttribute(ctx, at, &n)...)
			if !n.IsNull() && !n.IsUnknown() {
				d.opts[o.Key] = strconv.FormatInt(n.ValueInt64(), 10)
			}
			v = n
		case wire.SDNNodeList:
			var set types.Set
			diags.Append(g.GetAttribute(ctx, at, &set)...)
			if !set.IsNull() && !set.IsUnknown() {
				var items []string
				diags.Append(set.ElementsAs(ctx, &items, false)...)
				d.opts[o.Key] = joinSorted(items)
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
		if v != nil && v.IsUnknown() {
			d.unknown[o.Key] = true
		}
	}
	return d
}

func joinSorted(items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	return strings.Join(items, ",")
}

// wireValue turns a value of PVE's JSON answer into the wire form
// readOptions gives: booleans 1/0, numbers as integers, lists sorted.
func wireValue(o wire.SDNOption, v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		s = x
	case bool:
		s = wire.Bool(x)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case map[string]any:
		// A node list not yet encoded by PVE: its keys are the nodes.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		s = strings.Join(keys, ",")
	default:
		s = fmt.Sprint(x)
	}
	switch o.Kind {
	case wire.SDNBool:
		if b, err := wire.ParseBool(s); err == nil {
			s = wire.Bool(b)
		}
	case wire.SDNNodeList:
		s = joinSorted(wire.SplitSDNNodeList(s))
		if s == "" {
			return "", false
		}
	}
	return s, true
}

// optionsFromAPI keeps the table's options of PVE's values, in wire form.
func optionsFromAPI(options []wire.SDNOption, values map[string]any) map[string]string {
	out := map[string]string{}
	for _, o := range options {
		if s, ok := wireValue(o, values[o.Key]); ok {
			out[o.Key] = s
		}
	}
	return out
}

// setOptions writes opts into s: an option PVE does not hold is null.
func setOptions(ctx context.Context, s attrSetter, options []wire.SDNOption, opts map[string]string, diags *diag.Diagnostics) {
	for _, o := range options {
		at := path.Root(wire.SDNAttributeName(o.Key))
		v, ok := opts[o.Key]
		switch o.Kind {
		case wire.SDNBool:
			b := types.BoolNull()
			if ok {
				b = types.BoolValue(v == "1")
			}
			diags.Append(s.SetAttribute(ctx, at, b)...)
		case wire.SDNInt:
			n := types.Int64Null()
			if ok {
				if i, err := strconv.ParseInt(v, 10, 64); err == nil {
					n = types.Int64Value(i)
				}
			}
			diags.Append(s.SetAttribute(ctx, at, n)...)
		case wire.SDNNodeList:
			set := types.SetNull(types.StringType)
			if ok {
				var elems []attr.Value
				for _, item := range wire.SplitSDNNodeList(v) {
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

// createForm is the form of a create: every declared option.
func createForm(d declared) url.Values {
	f := url.Values{}
	for k, v := range d.opts {
		f.Set(k, v)
	}
	return f
}

// updateForm is the form of an update from state to plan: changed options
// set, removed ones in delete. changed is false when nothing differs.
func updateForm(options []wire.SDNOption, state, plan declared) (f url.Values, changed bool) {
	f = url.Values{}
	var del []string
	for _, o := range options {
		pv, inPlan := plan.opts[o.Key]
		sv, inState := state.opts[o.Key]
		switch {
		case inPlan && (!inState || pv != sv):
			f.Set(o.Key, pv)
		case !inPlan && inState:
			del = append(del, o.Key)
		}
	}
	if len(del) > 0 {
		sort.Strings(del)
		f.Set("delete", strings.Join(del, ","))
	}
	return f, len(f) > 0
}

// optionAttribute is the schema attribute of an option.
func optionAttribute(o wire.SDNOption, desc string) schema.Attribute {
	if o.Since9 {
		desc += " Needs PVE 9."
	}
	switch o.Kind {
	case wire.SDNBool:
		return schema.BoolAttribute{MarkdownDescription: desc, Optional: true}
	case wire.SDNInt:
		a := schema.Int64Attribute{MarkdownDescription: desc, Optional: true}
		if o.HasMin {
			a.Validators = append(a.Validators, int64validator.AtLeast(o.Min))
		}
		if o.HasMax {
			a.Validators = append(a.Validators, int64validator.AtMost(o.Max))
		}
		return a
	case wire.SDNNodeList:
		return schema.SetAttribute{MarkdownDescription: desc, Optional: true, ElementType: types.StringType,
			Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))}}
	}
	a := schema.StringAttribute{MarkdownDescription: desc, Optional: true,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	if o.FilledByPVE {
		a.Computed = true
		a.PlanModifiers = []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	}
	if len(o.Enum) > 0 {
		a.Validators = append(a.Validators, stringvalidator.OneOf(o.Enum...))
	}
	return a
}

// sdnIDAttribute is the sdn_id attribute every SDN object has: what
// pve_sdn_applier's objects are matched by.
func sdnIDAttribute(format string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The object's SDN id, `" + format + "`: how `pve_sdn_applier` recognises the object among PVE's pending changes. " +
			"Known at plan time.",
		Computed: true,
	}
}
