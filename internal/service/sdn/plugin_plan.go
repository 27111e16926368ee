package sdn

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// pluginAttrValue reads an attribute of any kind the plugin schemas use.
func pluginAttrValue(ctx context.Context, g pluginGetter, name string, kind wire.SDNPluginOptionKind, diags *diag.Diagnostics) attr.Value {
	at := path.Root(name)
	switch kind {
	case wire.SDNPluginBool:
		var v types.Bool
		diags.Append(g.GetAttribute(ctx, at, &v)...)
		return v
	case wire.SDNPluginInt:
		var v types.Int64
		diags.Append(g.GetAttribute(ctx, at, &v)...)
		return v
	case wire.SDNPluginList:
		var v types.Set
		diags.Append(g.GetAttribute(ctx, at, &v)...)
		return v
	}
	var v types.String
	diags.Append(g.GetAttribute(ctx, at, &v)...)
	return v
}

// ValidateConfig refuses options the declared type does not take and
// requires the options it needs (the plugins' options(): PVE's
// check_config refuses both), and for an EVPN controller exactly one of
// peers and fabric (pve-network src/PVE/Network/SDN/Controllers/EvpnPlugin.pm
// on_update_hook).
func (r *pluginResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var typv types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(pluginAttrType), &typv)...)
	if resp.Diagnostics.HasError() || typv.IsNull() || typv.IsUnknown() {
		return
	}
	t, ok := r.fam.Type(typv.ValueString())
	if !ok {
		return // the type's OneOf validator says so
	}
	set := map[string]bool{}
	for _, o := range r.fam.Options() {
		names := []string{wire.SDNPluginAttributeName(o.Key)}
		kinds := []wire.SDNPluginOptionKind{o.Kind}
		if o.Sensitive {
			names = []string{pluginWOName(o), pluginWOVersionName(o)}
			kinds = []wire.SDNPluginOptionKind{wire.SDNPluginString, wire.SDNPluginInt}
		}
		to, taken := t.Option(o.Key)
		for i, name := range names {
			v := pluginAttrValue(ctx, req.Config, name, kinds[i], &resp.Diagnostics)
			switch {
			case !v.IsNull() && !taken:
				resp.Diagnostics.AddAttributeError(path.Root(name), "Option Not Taken By This Type", fmt.Sprintf(
					"An %s of type %s does not take %s; only %s do. Remove it.", r.text.noun, t.Name, name,
					strings.Join(r.fam.TypesTaking(o.Key), " and ")))
			case i == 0 && v.IsNull() && taken && to.Required:
				resp.Diagnostics.AddAttributeError(path.Root(name), "Missing Required Option", fmt.Sprintf(
					"An %s of type %s needs %s.", r.text.noun, t.Name, name))
			}
			if i == 0 && !v.IsNull() {
				set[o.Key] = !v.IsUnknown()
			}
		}
	}
	if r.fam.Kind == wire.SDNControllers.Kind && t.Name == "evpn" {
		peers, hasPeers := set["peers"]
		fabric, hasFabric := set["fabric"]
		switch {
		case hasPeers && hasFabric && peers && fabric:
			resp.Diagnostics.AddAttributeError(path.Root("peers"), "Peers And Fabric Both Set",
				"An EVPN controller takes either peers or fabric (PVE 9 and later), not both: PVE refuses it. Remove one of them.")
		case !hasPeers && !hasFabric:
			resp.Diagnostics.AddAttributeError(path.Root("peers"), "Missing Peers",
				"An EVPN controller needs peers (the BGP peers' addresses), or from PVE 9 on a fabric instead.")
		}
	}
}

// ModifyPlan sets the SDN id and the id from the configuration, and
// refuses options the cluster's PVE release lacks.
func (r *pluginResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var id types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(r.fam.IDKey), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	sdnID, plainID := types.StringUnknown(), types.StringUnknown()
	if !id.IsUnknown() {
		sdnID, plainID = types.StringValue(r.sdnID(id.ValueString())), id
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(pluginAttrSDNID), sdnID)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(pluginAttrID), plainID)...)
	if r.client == nil {
		return
	}
	plan := readPluginOptions(ctx, req.Plan, r.fam, &resp.Diagnostics)
	var newer []wire.SDNPluginOption
	for _, o := range r.fam.Options() {
		if _, set := plan.opts[o.Key]; set && o.Since9 {
			newer = append(newer, o)
		}
	}
	if len(newer) == 0 || resp.Diagnostics.HasError() {
		return
	}
	release, err := fwutil.PVERelease(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The PVE Release", err)
		return
	}
	if release.AtLeast(wire.PVE90) {
		return
	}
	for _, o := range newer {
		name := wire.SDNPluginAttributeName(o.Key)
		resp.Diagnostics.AddAttributeError(path.Root(name), "Option Needs PVE 9",
			fmt.Sprintf("%s exists from PVE 9.0 on; this cluster runs PVE %s. Remove %s.", name, release, name))
	}
}
