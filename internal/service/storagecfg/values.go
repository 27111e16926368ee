package storagecfg

import (
	"context"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// attrGetter is what plan, state and configuration have in common.
type attrGetter = fwutil.AttributeGetter

// attrSetter is a state.
type attrSetter = fwutil.AttributeSetter

// declared is the options a plan, state or configuration holds, in the
// form a write sends them (lists sorted); unknown values are listed apart
// and left out. Sensitive options are never read here.
type declared struct {
	opts    map[string]string
	unknown map[string]bool
}

// typedOptions is the type's options fwutil reads and writes: all but the
// sensitive ones and the retention (an object, see readOptions).
func typedOptions(st wire.StorageType) []fwutil.TypedOption {
	var out []fwutil.TypedOption
	for _, o := range st.Options {
		if o.Sensitive || o.Kind == wire.StoragePrune {
			continue
		}
		out = append(out, fwutil.TypedOption{Key: o.Key, Attribute: wire.StorageAttributeName(o.Key),
			Kind: fwutil.KindOf(o.Kind, wire.StorageBool, wire.StorageInt, wire.StorageList), Join: joinList, Split: wire.SplitStorageList})
	}
	return out
}

// hasRetention tells whether the type takes prune-backups.
func hasRetention(st wire.StorageType) bool {
	for _, o := range st.Options {
		if o.Kind == wire.StoragePrune && !o.Sensitive {
			return true
		}
	}
	return false
}

// readOptions reads the type's options from g: the plain ones through
// fwutil, the retention as its object.
func readOptions(ctx context.Context, g attrGetter, st wire.StorageType, diags *diag.Diagnostics) declared {
	var d declared
	d.opts, d.unknown = fwutil.ReadTypedOptions(ctx, g, typedOptions(st), diags)
	if !hasRetention(st) {
		return d
	}
	at := path.Root(wire.StorageAttributeName(wire.StorageKeyPrune))
	var obj types.Object
	diags.Append(g.GetAttribute(ctx, at, &obj)...)
	if obj.IsUnknown() {
		d.unknown[wire.StorageKeyPrune] = true
		return d
	}
	var r *fwutil.Retention
	diags.Append(g.GetAttribute(ctx, at, &r)...)
	if s := r.PropertyString(); s != "" {
		d.opts[wire.StorageKeyPrune] = s
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
	for _, o := range typedOptions(st) {
		if v, ok := opts[o.Key]; ok {
			out[o.Key] = fwutil.TypedWireForm(o, v)
		}
	}
	if v, ok := opts[wire.StorageKeyPrune]; ok && hasRetention(st) {
		out[wire.StorageKeyPrune] = v
	}
	return out
}

// setOptions writes PVE's options into state: an option PVE does not hold
// is null.
func setOptions(ctx context.Context, s attrSetter, st wire.StorageType, opts map[string]string, diags *diag.Diagnostics) {
	opts = normalizeOptions(st, opts)
	fwutil.SetTypedOptions(ctx, s, typedOptions(st), opts, diags)
	if hasRetention(st) {
		at := path.Root(wire.StorageAttributeName(wire.StorageKeyPrune))
		diags.Append(s.SetAttribute(ctx, at, fwutil.RetentionFromOption(opts[wire.StorageKeyPrune]))...)
	}
}
