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
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// attrGetter is what plan, state and configuration have in common.
type attrGetter = fwutil.AttributeGetter

// attrSetter is a state or plan.
type attrSetter = fwutil.AttributeSetter

// declared is the options a plan, state or configuration holds, in wire
// form (lists sorted, booleans 1/0); unknown values are listed apart.
type declared struct {
	opts    map[string]string
	unknown map[string]bool
}

// typedOptions is the table as fwutil reads and writes it.
func typedOptions(options []wire.SDNOption) []fwutil.TypedOption {
	out := make([]fwutil.TypedOption, 0, len(options))
	for _, o := range options {
		out = append(out, typedOption(o))
	}
	return out
}

// typedOption is one option as fwutil reads and writes it.
func typedOption(o wire.SDNOption) fwutil.TypedOption {
	return fwutil.TypedOption{Key: o.Key, Attribute: wire.SDNAttributeName(o.Key),
		Kind: fwutil.KindOf(o.Kind, wire.SDNBool, wire.SDNInt, wire.SDNNodeList), Join: wire.JoinSDNList, Split: wire.SplitSDNNodeList}
}

// readOptions reads the table's options from g.
func readOptions(ctx context.Context, g attrGetter, options []wire.SDNOption, diags *diag.Diagnostics) declared {
	var d declared
	d.opts, d.unknown = fwutil.ReadTypedOptions(ctx, g, typedOptions(options), diags)
	return d
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
	t := typedOption(o)
	s = fwutil.TypedWireForm(t, s)
	if t.Kind == fwutil.OptionList && s == "" {
		return "", false
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
	fwutil.SetTypedOptions(ctx, s, typedOptions(options), opts, diags)
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
