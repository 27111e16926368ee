package sdn

import (
	"context"
	"errors"
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
func NewVnetResource() resource.Resource {
	return fwutil.WithIdentity(&vnetResource{}, vnetIdentity)
}

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

// ModifyPlan sets sdn_id, refuses to replace a vnet that guests' NICs use
// as their bridge (the replacement deletes it before anything that refers
// to it can move), and warns when a destroy would take it from them: the
// guests' own changes in the same run (destroyed, or their NICs moved) come
// before the vnet's deletion, which checks again (Delete).
func (r *vnetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var prior types.String
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrVnet), &prior)...)
	}
	if req.Plan.Raw.IsNull() {
		if users := r.users(ctx, prior.ValueString(), &resp.Diagnostics); len(users) > 0 {
			resp.Diagnostics.AddAttributeWarning(path.Root(attrVnet), VnetInUseSummary, fmt.Sprintf(
				"Guest NICs use vnet %s as their bridge: %s. Unless this run destroys those guests or moves those NICs "+
					"to another bridge, the deletion of the vnet is refused when it comes.", prior.ValueString(), users))
		}
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
		if users := r.users(ctx, prior.ValueString(), &resp.Diagnostics); len(users) > 0 {
			resp.Diagnostics.AddAttributeError(path.Root(attrVnet), VnetInUseSummary, inUseDetail("Replacing", prior.ValueString(), users))
		}
	}
}

// VnetInUseSummary is the refusal to remove a vnet guests use.
const VnetInUseSummary = "SDN Vnet In Use"

func inUseDetail(doing, vnet, users string) string {
	return fmt.Sprintf("%s vnet %s would take its bridge away from the guest NICs that use it: %s. Move those NICs to "+
		"another bridge (or remove them) and apply that first; then plan this again.", doing, vnet, users)
}

// users names the guest NICs the provider sees on vnet, "" when none.
func (r *vnetResource) users(ctx context.Context, vnet string, diags *diag.Diagnostics) string {
	if r.client == nil || vnet == "" {
		return ""
	}
	users, err := r.client.SDNVnetUsers(ctx, vnet)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List The Guests Of SDN Vnet", err)
		return ""
	}
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.String()
	}
	return strings.Join(names, ", ")
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
		r.writeFailed(&resp.Diagnostics, "Unable To Create SDN Vnet", err)
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
			r.writeFailed(&resp.Diagnostics, "Unable To Update SDN Vnet", err)
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
	// PVE deletes a vnet guests use and takes the bridge from under them.
	// The check runs as part of the staged write, so that a refusal, like
	// any failed write, gives the SDN lock back at once.
	var inUse string
	err := r.session.Write(ctx, pveapi.SDNKindVnet+"/"+id, func(ctx context.Context, token string) error {
		var diags diag.Diagnostics
		if inUse = r.users(ctx, id, &diags); inUse != "" {
			return errVnetInUse
		}
		if diags.HasError() {
			return fmt.Errorf("listing the guests of vnet %s: %s", id, diags.Errors()[0].Detail())
		}
		err := r.client.DeleteSDNVnet(ctx, id, token)
		if pveapi.IsSDNNotFound(err) {
			return nil
		}
		return err
	})
	switch {
	case inUse != "":
		resp.Diagnostics.AddAttributeError(path.Root(attrVnet), VnetInUseSummary, inUseDetail("Deleting", id, inUse))
	case err != nil:
		r.writeFailed(&resp.Diagnostics, "Unable To Delete SDN Vnet", err)
	}
}

var errVnetInUse = errors.New("vnet in use")

func (r *vnetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsSDNZoneID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_sdn_vnet by its vnet id ("+wire.SDNIDRule+"), got "+quoted(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrVnet), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), req.ID)...)
}
