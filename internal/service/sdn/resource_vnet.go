package sdn

import (
	"context"
	"fmt"
	"strings"

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
	_ resource.Resource                = (*vnetResource)(nil)
	_ resource.ResourceWithConfigure   = (*vnetResource)(nil)
	_ resource.ResourceWithImportState = (*vnetResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*vnetResource)(nil)
)

const attrVnet = "vnet"

// NewVnetResource is the pve_sdn_vnet constructor registered with the
// provider.
func NewVnetResource() resource.Resource { return &vnetResource{} }

type vnetResource struct{ base }

func (r *vnetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_vnet"
}

func (r *vnetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		attrID: schema.StringAttribute{
			MarkdownDescription: "The vnet's id, equal to `vnet`.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		attrVnet: schema.StringAttribute{
			MarkdownDescription: "The vnet's id, also the name of its bridge on the nodes and what guests' NICs name as " +
				"`bridge` (they need `SDN.Use` on `/sdn/zones/ZONE/VNET`): " + wire.SDNIDRule + ". Changing it replaces the vnet.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{fwutil.Format(wire.IsSDNZoneID, "must be "+wire.SDNIDRule)},
		},
		attrZone: schema.StringAttribute{
			MarkdownDescription: "The zone of the vnet (`pve_sdn_zone`'s `zone`). Changing it replaces the vnet.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{fwutil.Format(wire.IsSDNZoneID, "must be "+wire.SDNIDRule)},
		},
		attrSDNID: sdnIDAttribute("vnet/VNET"),
	}
	for _, o := range wire.SDNVnetOptions {
		attrs[wire.SDNAttributeName(o.Key)] = optionAttribute(o, o.Description)
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An SDN vnet (Datacenter → SDN → VNets): a virtual network of a zone, which becomes a bridge " +
			"on each node of the zone once applied. Changes are staged in PVE; list the vnet in a `pve_sdn_applier`'s `objects` " +
			"so the run applies them. Needs `SDN.Allocate` on `/sdn/zones/ZONE`." +
			"\n\n**Changes that replace the vnet:** `vnet`, `zone`.",
		Attributes: attrs,
	}
}

func (r *vnetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.configure(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan sets sdn_id, and refuses to destroy or replace a vnet that
// guests' NICs use as their bridge.
func (r *vnetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var prior types.String
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrVnet), &prior)...)
	}
	if req.Plan.Raw.IsNull() {
		r.refuseInUse(ctx, prior.ValueString(), "Destroying", &resp.Diagnostics)
		return
	}
	var vnet, zone, priorZone types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	id := types.StringUnknown()
	if !vnet.IsUnknown() {
		id = types.StringValue(pveapi.SDNKindVnet + "/" + vnet.ValueString())
	}
	setSDNIDInPlan(ctx, req, resp, id)
	if req.State.Raw.IsNull() {
		return
	}
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrZone), &priorZone)...)
	if !vnet.Equal(prior) || !zone.Equal(priorZone) {
		r.refuseInUse(ctx, prior.ValueString(), "Replacing", &resp.Diagnostics)
	}
}

// VnetInUseSummary is the refusal to destroy a vnet guests use.
const VnetInUseSummary = "SDN Vnet In Use"

// refuseInUse refuses a plan that removes vnet while the provider sees
// guest NICs on it: PVE would remove the bridge under them at the apply.
func (r *vnetResource) refuseInUse(ctx context.Context, vnet, doing string, diags *diag.Diagnostics) {
	if r.client == nil || vnet == "" {
		return
	}
	users, err := r.client.SDNVnetUsers(ctx, vnet)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List The Guests Of SDN Vnet", err)
		return
	}
	if len(users) == 0 {
		return
	}
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.String()
	}
	diags.AddAttributeError(path.Root(attrVnet), VnetInUseSummary, fmt.Sprintf(
		"%s vnet %s would take its bridge away from the guest NICs that use it: %s. Move those NICs to another bridge "+
			"(or remove them) and apply that first; then plan this again.", doing, vnet, strings.Join(names, ", ")))
}

func (r *vnetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var vnet, zone types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrZone), &zone)...)
	plan := readOptions(ctx, req.Plan, wire.SDNVnetOptions, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := vnet.ValueString()
	form := createForm(plan)
	form.Set("zone", zone.ValueString())
	err := r.session.Write(ctx, pveapi.SDNKindVnet+"/"+id, func(ctx context.Context, token string) error {
		return r.client.CreateSDNVnet(ctx, id, form, token)
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Create SDN Vnet", err)
		return
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id, &resp.State, &resp.Diagnostics)
}

func (r *vnetResource) readBack(ctx context.Context, id string, s attrSetter, diags *diag.Diagnostics) {
	if !r.read(ctx, id, s, diags) && !diags.HasError() {
		vanished(diags, "SDN Vnet", "SDN vnet "+id)
	}
}

// read puts the staged vnet id into s; found is false when PVE has none.
func (r *vnetResource) read(ctx context.Context, id string, s attrSetter, diags *diag.Diagnostics) (found bool) {
	entries, err := r.client.SDNVnetsPending(ctx)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read SDN Vnet", err)
		return false
	}
	values, found := staged(entries, id)
	if !found {
		return false
	}
	zone, _ := values["zone"].(string)
	diags.Append(s.SetAttribute(ctx, path.Root(attrID), id)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrVnet), id)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrZone), zone)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrSDNID), pveapi.SDNKindVnet+"/"+id)...)
	setOptions(ctx, s, wire.SDNVnetOptions, optionsFromAPI(wire.SDNVnetOptions, values), diags)
	return true
}

func (r *vnetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var vnet types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.read(ctx, vnet.ValueString(), &resp.State, &resp.Diagnostics) && !resp.Diagnostics.HasError() {
		resp.State.RemoveResource(ctx)
	}
}

func (r *vnetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var vnet types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	plan := readOptions(ctx, req.Plan, wire.SDNVnetOptions, &resp.Diagnostics)
	state := readOptions(ctx, req.State, wire.SDNVnetOptions, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	id := vnet.ValueString()
	if form, changed := updateForm(wire.SDNVnetOptions, state, plan); changed {
		err := r.session.Write(ctx, pveapi.SDNKindVnet+"/"+id, func(ctx context.Context, token string) error {
			return r.client.UpdateSDNVnet(ctx, id, form, token)
		})
		if err != nil {
			writeError(&resp.Diagnostics, "Unable To Update SDN Vnet", err)
			return
		}
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	r.readBack(ctx, id, &resp.State, &resp.Diagnostics)
}

func (r *vnetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var vnet types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := vnet.ValueString()
	err := r.session.Write(ctx, pveapi.SDNKindVnet+"/"+id, func(ctx context.Context, token string) error {
		err := r.client.DeleteSDNVnet(ctx, id, token)
		if pveapi.IsSDNNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Delete SDN Vnet", err)
	}
}

func (r *vnetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsSDNZoneID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_sdn_vnet by its vnet id ("+wire.SDNIDRule+"), got "+quoted(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrVnet), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), req.ID)...)
}
