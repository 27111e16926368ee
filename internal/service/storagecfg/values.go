package storagecfg

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// attrGetter is what plan, state and configuration have in common.
type attrGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// attrSetter is a state.
type attrSetter interface {
	SetAttribute(ctx context.Context, p path.Path, val any) diag.Diagnostics
}

// declared is the options a plan, state or configuration holds, in the
// form a write sends them (lists sorted); unknown values are listed apart
// and left out. Sensitive options are never read here.
type declared struct {
	opts    map[string]string
	unknown map[string]bool
}

func readOptions(ctx context.Context, g attrGetter, st wire.StorageType, diags *diag.Diagnostics) declared {
	d := declared{opts: map[string]string{}, unknown: map[string]bool{}}
	for _, o := range st.Options {
		if o.Sensitive {
			continue
		}
		at := path.Root(wire.StorageAttributeName(o.Key))
		var v attr.Value
		switch o.Kind {
		case wire.StorageBool:
			var b types.Bool
			diags.Append(g.GetAttribute(ctx, at, &b)...)
			if !b.IsNull() && !b.IsUnknown() {
				d.opts[o.Key] = wire.Bool(b.ValueBool())
			}
			v = b
		case wire.StorageInt:
			var n types.Int64
			diags.Append(g.GetAttribute(ctx, at, &n)...)
			if !n.IsNull() && !n.IsUnknown() {
				d.opts[o.Key] = strconv.FormatInt(n.ValueInt64(), 10)
			}
			v = n
		case wire.StorageList:
			var set types.Set
			diags.Append(g.GetAttribute(ctx, at, &set)...)
			if !set.IsNull() && !set.IsUnknown() {
				var items []string
				diags.Append(set.ElementsAs(ctx, &items, false)...)
				d.opts[o.Key] = joinList(items)
			}
			v = set
		case wire.StoragePrune:
			var r *fwutil.Retention
			var obj types.Object
			diags.Append(g.GetAttribute(ctx, at, &obj)...)
			if obj.IsUnknown() {
				d.unknown[o.Key] = true
				continue
			}
			diags.Append(g.GetAttribute(ctx, at, &r)...)
			if s := r.PropertyString(); s != "" {
				d.opts[o.Key] = s
			}
			continue
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

func joinList(items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	return strings.Join(items, ",")
}

// normalizeOptions puts PVE's answer in the form readOptions gives: only
// the type's options (GET also answers shared=1 for network types and the
// type's default content), lists sorted, booleans 1/0.
func normalizeOptions(st wire.StorageType, opts map[string]string) map[string]string {
	out := map[string]string{}
	for _, o := range st.Options {
		v, ok := opts[o.Key]
		if !ok || o.Sensitive {
			continue
		}
		switch o.Kind {
		case wire.StorageList:
			v = joinList(wire.SplitStorageList(v))
		case wire.StorageBool:
			if b, err := wire.ParseBool(v); err == nil {
				v = wire.Bool(b)
			}
		}
		out[o.Key] = v
	}
	return out
}

// setOptions writes PVE's options into state: an option PVE does not hold
// is null.
func setOptions(ctx context.Context, s attrSetter, st wire.StorageType, opts map[string]string, diags *diag.Diagnostics) {
	opts = normalizeOptions(st, opts)
	for _, o := range st.Options {
		if o.Sensitive {
			continue
		}
		at := path.Root(wire.StorageAttributeName(o.Key))
		v, ok := opts[o.Key]
		switch o.Kind {
		case wire.StorageBool:
			b := types.BoolNull()
			if ok {
				b = types.BoolValue(v == "1")
			}
			diags.Append(s.SetAttribute(ctx, at, b)...)
		case wire.StorageInt:
			n := types.Int64Null()
			if ok {
				if i, err := strconv.ParseInt(v, 10, 64); err == nil {
					n = types.Int64Value(i)
				}
			}
			diags.Append(s.SetAttribute(ctx, at, n)...)
		case wire.StorageList:
			set := types.SetNull(types.StringType)
			if ok {
				var elems []attr.Value
				for _, item := range wire.SplitStorageList(v) {
					elems = append(elems, types.StringValue(item))
				}
				set = types.SetValueMust(types.StringType, elems)
			}
			diags.Append(s.SetAttribute(ctx, at, set)...)
		case wire.StoragePrune:
			diags.Append(s.SetAttribute(ctx, at, fwutil.RetentionFromOption(v))...)
		default:
			str := types.StringNull()
			if ok {
				str = types.StringValue(v)
			}
			diags.Append(s.SetAttribute(ctx, at, str)...)
		}
	}
}
