package sdn

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// pluginListItemPattern is one item of a list option: PVE splits lists on
// commas, semicolons and white space (pve-common split_list).
var pluginListItemPattern = regexp.MustCompile(`^[^,;\s]+$`)

// pluginGetter is what plan, state and configuration have in common.
type pluginGetter = fwutil.AttributeGetter

// pluginSetter is a state.
type pluginSetter = fwutil.AttributeSetter

// pluginDeclared is the options a plan, state or configuration holds, in
// the form a write sends them; unknown ones are listed apart. Sensitive
// options are never read here.
type pluginDeclared struct {
	opts    map[string]string
	unknown map[string]bool
}

// pluginTypedOptions is the family's options fwutil reads and writes:
// all but the sensitive ones (write-only).
func pluginTypedOptions(f wire.SDNPluginFamily) []fwutil.TypedOption {
	var out []fwutil.TypedOption
	for _, o := range f.Options() {
		if o.Sensitive {
			continue
		}
		out = append(out, fwutil.TypedOption{Key: o.Key, Attribute: wire.SDNPluginAttributeName(o.Key),
			Kind: fwutil.KindOf(o.Kind, wire.SDNPluginBool, wire.SDNPluginInt, wire.SDNPluginList), Join: wire.JoinSDNList, Split: wire.SplitSDNList})
	}
	return out
}

func readPluginOptions(ctx context.Context, g pluginGetter, f wire.SDNPluginFamily, diags *diag.Diagnostics) pluginDeclared {
	var d pluginDeclared
	d.opts, d.unknown = fwutil.ReadTypedOptions(ctx, g, pluginTypedOptions(f), diags)
	return d
}

// setPluginOptions writes PVE's options into state: an option PVE does not
// hold is null. opts come from wire.SDNPluginOptionsFromAPI.
func setPluginOptions(ctx context.Context, s pluginSetter, f wire.SDNPluginFamily, opts map[string]string, diags *diag.Diagnostics) {
	fwutil.SetTypedOptions(ctx, s, pluginTypedOptions(f), opts, diags)
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
