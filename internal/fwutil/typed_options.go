package fwutil

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// OptionKind is the Terraform type of an option of a type table.
type OptionKind int

const (
	// OptionString is a string attribute, sent as written.
	OptionString OptionKind = iota
	// OptionBool is a boolean attribute, 1/0 on the wire.
	OptionBool
	// OptionInt is an integer attribute, decimal on the wire.
	OptionInt
	// OptionList is a set of strings, joined by Join on the wire and
	// split by Split.
	OptionList
)

// KindOf is the OptionKind of a family's wire kind k, given the family's
// boolean, integer and list kinds; any other kind is a string.
func KindOf[K comparable](k, boolKind, intKind, listKind K) OptionKind {
	switch k {
	case boolKind:
		return OptionBool
	case intKind:
		return OptionInt
	case listKind:
		return OptionList
	}
	return OptionString
}

// TypedOption is one option of a table-driven resource: PVE's key, the
// root attribute that holds it and its kind.
type TypedOption struct {
	Key       string
	Attribute string
	Kind      OptionKind
	// Join and Split turn an OptionList's items into the wire form and
	// back; other kinds leave them nil.
	Join  func(items []string) string
	Split func(value string) []string
}

// AttributeGetter is what plan, state and configuration have in common.
type AttributeGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// AttributeSetter is a state or plan.
type AttributeSetter interface {
	SetAttribute(ctx context.Context, p path.Path, val any) diag.Diagnostics
}

// ReadTypedOptions reads options from g in wire form: booleans 1/0,
// integers decimal, lists joined by the option's Join, strings as written.
// Null options are left out of values; unknown ones are left out of values
// and listed in unknown.
func ReadTypedOptions(ctx context.Context, g AttributeGetter, options []TypedOption, diags *diag.Diagnostics) (values map[string]string, unknown map[string]bool) {
	values, unknown = map[string]string{}, map[string]bool{}
	for _, o := range options {
		at := path.Root(o.Attribute)
		var v attr.Value
		switch o.Kind {
		case OptionBool:
			var b types.Bool
			diags.Append(g.GetAttribute(ctx, at, &b)...)
			if !b.IsNull() && !b.IsUnknown() {
				values[o.Key] = wire.Bool(b.ValueBool())
			}
			v = b
		case OptionInt:
			var n types.Int64
			diags.Append(g.GetAttribute(ctx, at, &n)...)
			if !n.IsNull() && !n.IsUnknown() {
				values[o.Key] = strconv.FormatInt(n.ValueInt64(), 10)
			}
			v = n
		case OptionList:
			var set types.Set
			diags.Append(g.GetAttribute(ctx, at, &set)...)
			if !set.IsNull() && !set.IsUnknown() {
				var items []string
				diags.Append(set.ElementsAs(ctx, &items, false)...)
				values[o.Key] = o.Join(items)
			}
			v = set
		default:
			var s types.String
			diags.Append(g.GetAttribute(ctx, at, &s)...)
			if !s.IsNull() && !s.IsUnknown() {
				values[o.Key] = s.ValueString()
			}
			v = s
		}
		if v.IsUnknown() {
			unknown[o.Key] = true
		}
	}
	return values, unknown
}

// SetTypedOptions writes values, in wire form, into s: an option values
// lacks is null, and so is an integer that does not parse. A boolean is
// true when its value is "1"; a list holds the items of the option's
// Split, as Split gives them.
func SetTypedOptions(ctx context.Context, s AttributeSetter, options []TypedOption, values map[string]string, diags *diag.Diagnostics) {
	for _, o := range options {
		v, ok := values[o.Key]
		var val attr.Value
		switch o.Kind {
		case OptionBool:
			b := types.BoolNull()
			if ok {
				b = types.BoolValue(v == "1")
			}
			val = b
		case OptionInt:
			n := types.Int64Null()
			if ok {
				if i, err := strconv.ParseInt(v, 10, 64); err == nil {
					n = types.Int64Value(i)
				}
			}
			val = n
		case OptionList:
			set := types.SetNull(types.StringType)
			if ok {
				elems := []attr.Value{}
				for _, item := range o.Split(v) {
					elems = append(elems, types.StringValue(item))
				}
				set = types.SetValueMust(types.StringType, elems)
			}
			val = set
		default:
			str := types.StringNull()
			if ok {
				str = types.StringValue(v)
			}
			val = str
		}
		diags.Append(s.SetAttribute(ctx, path.Root(o.Attribute), val)...)
	}
}

// TypedWireForm puts a value PVE answered for o in the form
// ReadTypedOptions gives: a boolean as wire.ParseBool reads it, 1/0 (left
// as it is when it does not parse), a list split and joined again; other
// kinds as they are.
func TypedWireForm(o TypedOption, v string) string {
	switch o.Kind {
	case OptionBool:
		if b, err := wire.ParseBool(v); err == nil {
			return wire.Bool(b)
		}
	case OptionList:
		return o.Join(o.Split(v))
	}
	return v
}
