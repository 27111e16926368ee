package sdn

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*zoneResource)(nil)
	_ resource.ResourceWithConfigure      = (*zoneResource)(nil)
	_ resource.ResourceWithImportState    = (*zoneResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*zoneResource)(nil)
	_ resource.ResourceWithValidateConfig = (*zoneResource)(nil)
)

// Diagnostic summaries, for tests.
const (
	OptionNotForTypeSummary = "Attribute Not For This Zone Type"
	MissingForTypeSummary   = "Missing Attribute For This Zone Type"
	NeedsPVE9Summary        = "Option Needs PVE 9"
)

const (
	attrZone = "zone"
	attrType = "type"
)

// NewZoneResource is the pve_sdn_zone constructor registered with the
// provider.
func NewZoneResource() resource.Resource {
	return fwutil.WithIdentity(&zoneResource{}, zoneIdentity)
}

type zoneResource struct{ base }

func (r *zoneResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_zone"
}

func (r *zoneResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		attrID: schema.StringAttribute{
			MarkdownDescription: "The zone's id, equal to `zone`.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		attrZone: schema.StringAttribute{
			MarkdownDescription: "The zone's id: " + wire.SDNIDRule + ". Changing it replaces the zone.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{fwutil.Format(wire.IsSDNZoneID, "must be "+wire.SDNIDRule)},
		},
		attrType: schema.StringAttribute{
			MarkdownDescription: "The zone type: `simple` (an isolated bridge on each node, optionally routed and NATed), " +
				"`vlan` (VLANs on a node bridge), `qinq` (stacked VLANs), `vxlan` (a layer-2 overlay between the nodes) or " +
				"`evpn` (a routed VXLAN overlay with an EVPN controller). Each type takes its own options, listed per attribute. " +
				"Changing it replaces the zone.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{stringvalidator.OneOf(wire.SDNZoneTypeNames()...)},
		},
		attrSDNID: sdnIDAttribute("zone/ZONE"),
	}
	for _, o := range wire.SDNZoneOptions() {
		attrs[wire.SDNAttributeName(o.Key)] = optionAttribute(o, o.Description+" "+zoneTypesText(o.Key))
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An SDN zone (Datacenter → SDN → Zones): the kind of network its vnets are. " +
			"Changes are staged in PVE; list the zone in a `pve_sdn_applier`'s `objects` so the run applies them " +
			"(once, for all SDN changes of the run). Needs `SDN.Allocate` on `/sdn/zones`." +
			"\n\n**Changes that replace the zone:** `zone`, `type`.",
		Attributes: attrs,
	}
}

// zoneTypesText says which types take the option and which require it.
func zoneTypesText(key string) string {
	types := wire.SDNZoneTypesTaking(key)
	var req []string
	for _, name := range types {
		zt, _ := wire.SDNZoneTypeByName(name)
		if o, _ := zt.Option(key); o.Required {
			req = append(req, "`"+name+"`")
		}
	}
	if len(types) == len(wire.SDNZoneTypes) {
		return "All zone types."
	}
	text := "Zone types: `" + strings.Join(types, "`, `") + "`."
	if len(req) > 0 {
		text += " Required for " + strings.Join(req, ", ") + "."
	}
	return text
}

func (r *zoneResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.configure(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig refuses the options the zone's type does not take (PVE:
// "unexpected property"), the ones it requires but lacks, and a vxlan zone
// without exactly one of peers and fabric (pve-network
// src/PVE/Network/SDN/Zones/VxlanPlugin.pm on_update_hook).
func (r *zoneResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var typ types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(attrType), &typ)...)
	if resp.Diagnostics.HasError() || typ.IsUnknown() || typ.IsNull() {
		return
	}
	zt, ok := wire.SDNZoneTypeByName(typ.ValueString())
	if !ok {
		return
	}
	d := readOptions(ctx, req.Config, wire.SDNZoneOptions(), &resp.Diagnostics)
	for _, o := range wire.SDNZoneOptions() {
		name := wire.SDNAttributeName(o.Key)
		_, set := d.opts[o.Key]
		set = set || d.unknown[o.Key]
		to, takes := zt.Option(o.Key)
		switch {
		case set && !takes:
			resp.Diagnostics.AddAttributeError(path.Root(name), OptionNotForTypeSummary, fmt.Sprintf(
				"Attribute %s does not apply to zone type %s (it does to: %s); remove it.", name, zt.Name,
				strings.Join(wire.SDNZoneTypesTaking(o.Key), ", ")))
		case !set && takes && to.Required:
			resp.Diagnostics.AddAttributeError(path.Root(name), MissingForTypeSummary,
				fmt.Sprintf("Zone type %s requires attribute %s.", zt.Name, name))
		}
	}
	if zt.Name == "vxlan" {
		_, peers := d.opts["peers"]
		_, fabric := d.opts["fabric"]
		peers, fabric = peers || d.unknown["peers"], fabric || d.unknown["fabric"]
		if peers == fabric {
			resp.Diagnostics.AddAttributeError(path.Root("peers"), MissingForTypeSummary,
				"A vxlan zone needs exactly one of peers (the nodes' VXLAN addresses) and fabric.")
		}
	}
	if _, ok := d.opts["dnszone"]; ok {
		if _, dns := d.opts["dns"]; !dns && !d.unknown["dns"] {
			resp.Diagnostics.AddAttributeError(path.Root("dnszone"), "Missing DNS Server",
				"dnszone needs dns, the DNS server that serves the zone (PVE: \"missing dns server\").")
		}
	}
}

// ModifyPlan sets sdn_id and refuses options the cluster's release lacks.
func (r *zoneResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var zone types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	id := types.StringUnknown()
	if !zone.IsUnknown() {
		id = types.StringValue(pveapi.SDNKindZone + "/" + zone.ValueString())
	}
	setSDNIDInPlan(ctx, req, resp, id)
	if r.client == nil {
		return
	}
	plan := readOptions(ctx, req.Plan, wire.SDNZoneOptions(), &resp.Diagnostics)
	refuseNewerOptions(ctx, r.client, wire.SDNZoneOptions(), plan, &resp.Diagnostics)
}

// refuseNewerOptions refuses options the cluster's PVE release lacks.
func refuseNewerOptions(ctx context.Context, client *pveapi.Client, options []wire.SDNOption, plan declared, diags *diag.Diagnostics) {
	var newer []string
	for _, o := range options {
		if _, set := plan.opts[o.Key]; set && o.Since9 {
			newer = append(newer, wire.SDNAttributeName(o.Key))
		}
	}
	if len(newer) == 0 {
		return
	}
	release, err := fwutil.PVERelease(ctx, client)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read The PVE Release", err)
		return
	}
	if release.AtLeast(wire.PVE90) {
		return
	}
	for _, name := range newer {
		diags.AddAttributeError(path.Root(name), NeedsPVE9Summary,
			fmt.Sprintf("%s exists from PVE 9.0 on; this cluster runs PVE %s. Remove %s.", name, release, name))
	}
}

func (r *zoneResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var zone, typ types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrType), &typ)...)
	plan := readOptions(ctx, req.Plan, wire.SDNZoneOptions(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := zone.ValueString()
	form := createForm(plan)
	form.Set("type", typ.ValueString())
	err := r.session.Write(ctx, pveapi.SDNKindZone+"/"+id, func(ctx context.Context, token string) error {
		return r.client.CreateSDNZone(ctx, id, form, token)
	})
	if err != nil {
		r.writeFailed(&resp.Diagnostics, "Unable To Create SDN Zone", err)
		return
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id, &resp.State, &resp.Diagnostics)
}

// readBack puts the staged zone into s after a write.
func (r *zoneResource) readBack(ctx context.Context, id string, s attrSetter, diags *diag.Diagnostics) {
	found := r.read(ctx, id, s, diags)
	if !found && !diags.HasError() {
		vanished(diags, "SDN Zone", "SDN zone "+id)
	}
}

// read puts the staged zone id into s; found is false when PVE has none.
func (r *zoneResource) read(ctx context.Context, id string, s attrSetter, diags *diag.Diagnostics) (found bool) {
	entries, err := r.client.SDNZonesPending(ctx)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read SDN Zone", err)
		return false
	}
	values, found := staged(entries, id)
	if !found {
		return false
	}
	typ, _ := values["type"].(string)
	diags.Append(s.SetAttribute(ctx, path.Root(attrID), id)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrZone), id)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrType), typ)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrSDNID), pveapi.SDNKindZone+"/"+id)...)
	setOptions(ctx, s, wire.SDNZoneOptions(), zoneOptionsFromAPI(typ, values), diags)
	return true
}

// zoneOptionsFromAPI keeps the options the zone's type takes.
func zoneOptionsFromAPI(typ string, values map[string]any) map[string]string {
	zt, ok := wire.SDNZoneTypeByName(typ)
	if !ok {
		return optionsFromAPI(wire.SDNZoneOptions(), values)
	}
	var options []wire.SDNOption
	for _, o := range zt.Options {
		options = append(options, o.SDNOption)
	}
	return optionsFromAPI(options, values)
}

func (r *zoneResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var zone types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.read(ctx, zone.ValueString(), &resp.State, &resp.Diagnostics) && !resp.Diagnostics.HasError() {
		resp.State.RemoveResource(ctx)
	}
}

func (r *zoneResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var zone types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	plan := readOptions(ctx, req.Plan, wire.SDNZoneOptions(), &resp.Diagnostics)
	state := readOptions(ctx, req.State, wire.SDNZoneOptions(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := zone.ValueString()
	if form, changed := updateForm(wire.SDNZoneOptions(), state, plan); changed {
		err := r.session.Write(ctx, pveapi.SDNKindZone+"/"+id, func(ctx context.Context, token string) error {
			return r.client.UpdateSDNZone(ctx, id, form, token)
		})
		if err != nil {
			r.writeFailed(&resp.Diagnostics, "Unable To Update SDN Zone", err)
			return
		}
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id, &resp.State, &resp.Diagnostics)
}

func (r *zoneResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var zone types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := zone.ValueString()
	err := r.session.Write(ctx, pveapi.SDNKindZone+"/"+id, func(ctx context.Context, token string) error {
		err := r.client.DeleteSDNZone(ctx, id, token)
		if pveapi.IsSDNNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		r.writeFailed(&resp.Diagnostics, "Unable To Delete SDN Zone", err)
	}
}

func (r *zoneResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsSDNZoneID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_sdn_zone by its zone id ("+wire.SDNIDRule+"), got "+quoted(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrZone), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), req.ID)...)
}
