package mapping

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// model is a mapping resource's values; Mdev and LiveMigrationCapable are
// PCI's (null for the other kinds, which have no such attributes).
type model struct {
	ID                   types.String
	Description          types.String
	Map                  types.Map
	Mdev                 types.Bool
	LiveMigrationCapable types.Bool
}

// attributeGetter is tfsdk.Plan, tfsdk.State and tfsdk.Config.
type attributeGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

type attributeSetter interface {
	SetAttribute(ctx context.Context, p path.Path, val any) diag.Diagnostics
}

func (k *kindSpec) get(ctx context.Context, from attributeGetter, diags *diag.Diagnostics) model {
	var m model
	diags.Append(from.GetAttribute(ctx, path.Root("id"), &m.ID)...)
	diags.Append(from.GetAttribute(ctx, path.Root("description"), &m.Description)...)
	diags.Append(from.GetAttribute(ctx, path.Root("map"), &m.Map)...)
	m.Mdev, m.LiveMigrationCapable = types.BoolNull(), types.BoolNull()
	if k.pci {
		diags.Append(from.GetAttribute(ctx, path.Root("mdev"), &m.Mdev)...)
		diags.Append(from.GetAttribute(ctx, path.Root("live_migration_capable"), &m.LiveMigrationCapable)...)
	}
	return m
}

func (k *kindSpec) set(ctx context.Context, to attributeSetter, m model, diags *diag.Diagnostics) {
	diags.Append(to.SetAttribute(ctx, path.Root("id"), m.ID)...)
	diags.Append(to.SetAttribute(ctx, path.Root("description"), m.Description)...)
	diags.Append(to.SetAttribute(ctx, path.Root("map"), m.Map)...)
	if k.pci {
		diags.Append(to.SetAttribute(ctx, path.Root("mdev"), m.Mdev)...)
		diags.Append(to.SetAttribute(ctx, path.Root("live_migration_capable"), m.LiveMigrationCapable)...)
	}
}

// entries are the model's per-node entries as PVE's property strings,
// ordered by node name.
func (k *kindSpec) entries(m model) []string {
	elems := m.Map.Elements()
	nodes := make([]string, 0, len(elems))
	for n := range elems {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		obj, ok := elems[n].(types.Object)
		if !ok {
			continue
		}
		keys := map[string]string{"node": n}
		attrs := obj.Attributes()
		for _, f := range k.fields {
			switch v := attrs[f.attr].(type) {
			case types.String:
				if !v.IsNull() && !v.IsUnknown() {
					keys[f.key] = v.ValueString()
				}
			case types.Int64:
				if !v.IsNull() && !v.IsUnknown() {
					keys[f.key] = strconv.FormatInt(v.ValueInt64(), 10)
				}
			}
		}
		out = append(out, k.wire.FormatMappingEntry(keys))
	}
	return out
}

// fromAPI sets the model from PVE's mapping. An entry that does not parse,
// or a second entry for one node, is an error: the map holds one entry
// per node.
func (k *kindSpec) fromAPI(m *model, api *pveapi.Mapping) error {
	elems := map[string]attr.Value{}
	for _, line := range api.Map {
		keys, err := k.wire.ParseMappingEntry(line)
		if err != nil {
			return fmt.Errorf("entry %q: %w", line, err)
		}
		node := keys["node"]
		if _, dup := elems[node]; dup {
			return fmt.Errorf("the mapping has more than one entry for node %s; this resource holds one entry per node "+
				"(a PCI entry's path can list several addresses separated by ';')", node)
		}
		attrs := map[string]attr.Value{}
		for _, f := range k.fields {
			v, ok := keys[f.key]
			switch {
			case f.integer && ok:
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return fmt.Errorf("entry %q: %s is not an integer", line, f.key)
				}
				attrs[f.attr] = types.Int64Value(n)
			case f.integer:
				attrs[f.attr] = types.Int64Null()
			case ok:
				attrs[f.attr] = types.StringValue(v)
			default:
				attrs[f.attr] = types.StringNull()
			}
		}
		obj, d := types.ObjectValue(k.entryAttrTypes(), attrs)
		if d.HasError() {
			return fmt.Errorf("entry %q does not fit the schema", line)
		}
		elems[node] = obj
	}
	mp, d := types.MapValue(k.entryType(), elems)
	if d.HasError() {
		return fmt.Errorf("the entries do not fit the schema")
	}
	m.Map = mp
	m.Description = types.StringNull()
	if api.Description != "" {
		m.Description = types.StringValue(api.Description)
	}
	m.Mdev, m.LiveMigrationCapable = types.BoolNull(), types.BoolNull()
	if k.pci {
		if api.Mdev != nil {
			m.Mdev = types.BoolValue(bool(*api.Mdev))
		}
		if api.LiveMigrationCapable != nil {
			m.LiveMigrationCapable = types.BoolValue(bool(*api.LiveMigrationCapable))
		}
	}
	return nil
}

// createParams are the create's options and entries.
func (k *kindSpec) createParams(m model) url.Values {
	params := url.Values{"map": k.entries(m)}
	if v := m.Description; !v.IsNull() && !v.IsUnknown() {
		params.Set("description", v.ValueString())
	}
	if k.pci {
		if v := m.Mdev; !v.IsNull() && !v.IsUnknown() {
			params.Set("mdev", pveapi.FormBool(v.ValueBool()))
		}
		if v := m.LiveMigrationCapable; !v.IsNull() && !v.IsUnknown() {
			params.Set("live-migration-capable", pveapi.FormBool(v.ValueBool()))
		}
	}
	return params
}

// updateParams is the update from prior to plan: PVE needs the entries on
// every update; options no longer declared are deleted.
func (k *kindSpec) updateParams(prior, plan model) (url.Values, []string) {
	params := k.createParams(plan)
	var del []string
	if plan.Description.IsNull() && !prior.Description.IsNull() {
		del = append(del, "description")
	}
	if k.pci {
		if plan.Mdev.IsNull() && !prior.Mdev.IsNull() {
			del = append(del, "mdev")
		}
		if plan.LiveMigrationCapable.IsNull() && !prior.LiveMigrationCapable.IsNull() {
			del = append(del, "live-migration-capable")
		}
	}
	return params, del
}
