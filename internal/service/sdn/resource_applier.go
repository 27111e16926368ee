package sdn

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ resource.Resource                = (*applierResource)(nil)
	_ resource.ResourceWithConfigure   = (*applierResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*applierResource)(nil)
	_ resource.ResourceWithImportState = (*applierResource)(nil)
)

// Diagnostic summaries, for tests.
const (
	ForeignPendingSummary = "SDN Changes Pending Outside This Configuration"
	BadObjectSummary      = "Not An SDN Object"
	ApplyFailedSummary    = "Unable To Apply SDN Changes"
)

const (
	attrObjects = "objects"
	attrSDNIDs  = "sdn_ids"
	attrPending = "pending"
	applierID   = "sdn"
)

// NewApplierResource is the pve_sdn_applier constructor registered with
// the provider.
func NewApplierResource() resource.Resource {
	return fwutil.WithIdentity(&applierResource{}, applierIdentity)
}

type applierResource struct{ base }

type applierModel struct {
	ID      types.String  `tfsdk:"id"`
	Objects types.Dynamic `tfsdk:"objects"`
	SDNIDs  types.List    `tfsdk:"sdn_ids"`
	Pending types.List    `tfsdk:"pending"`
}

func (r *applierResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_applier"
}

func (r *applierResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Applies the SDN changes of a run, once: PVE stages every change of zones, vnets, subnets " +
			"(and controllers, fabrics) until `PUT /cluster/sdn` applies them all and reloads the nodes' networks. " +
			"List every SDN resource of the configuration in `objects`; Terraform then runs the applier after all of " +
			"their changes, and any change of a listed object plans an apply." +
			"\n\nOn PVE 9 the provider takes PVE's SDN lock at the first SDN write of the run and holds it until the apply " +
			"(the apply releases it), so nobody else's change slips in between; when a write fails, the lock is released " +
			"at once and what was staged stays pending until the next apply. PVE 8.4 has no lock." +
			"\n\nChanges pending in PVE on objects not listed here (someone else's) are never applied by surprise: a plan " +
			"that would apply them fails, naming them, otherwise the plan warns. Apply or roll them back in PVE, or " +
			"import those objects and list them." +
			"\n\nDestroying everything: the applier is destroyed first, and the deletion of the last of its objects applies. " +
			"Removing only the applier (or it and some of its objects) applies nothing: deletions stay pending in PVE " +
			"until applied there or by another applier." +
			"\n\nUse one applier per cluster: PVE applies everything staged at once, so the objects of a second applier " +
			"would be someone else's pending changes to the first." +
			"\n\nNeeds `SDN.Allocate` on `/sdn`.",
		Attributes: map[string]schema.Attribute{
			attrID: schema.StringAttribute{
				MarkdownDescription: "Always `sdn`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			attrObjects: schema.DynamicAttribute{
				MarkdownDescription: "The SDN resources whose changes this applier applies, as whole resources: " +
					"`[pve_sdn_zone.lab, pve_sdn_vnet.web, pve_sdn_subnet.web]`. Each must have an `sdn_id` attribute.",
				Required: true,
			},
			attrSDNIDs: schema.ListAttribute{
				MarkdownDescription: "The `sdn_id`s of `objects`.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			attrPending: schema.ListAttribute{
				MarkdownDescription: "The listed objects PVE shows with staged, unapplied changes when last read; " +
					"not empty plans an apply.",
				ElementType: types.StringType,
				Computed:    true,
			},
		},
	}
}

func (r *applierResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.configure(req.ProviderData, &resp.Diagnostics)
}

// objectSDNIDs reads the sdn_id of every element of objects. known is
// false while objects or any sdn_id is unknown.
func objectSDNIDs(objects types.Dynamic, diags *diag.Diagnostics) (ids []string, known bool) {
	if objects.IsNull() {
		return nil, true
	}
	if objects.IsUnknown() || objects.IsUnderlyingValueUnknown() {
		return nil, false
	}
	var elems []attr.Value
	switch v := objects.UnderlyingValue().(type) {
	case types.Tuple:
		elems = v.Elements()
	case types.List:
		elems = v.Elements()
	case types.Set:
		elems = v.Elements()
	case types.Object:
		elems = []attr.Value{v}
	default:
		diags.AddAttributeError(path.Root(attrObjects), BadObjectSummary,
			"objects must be a list of SDN resources, such as [pve_sdn_zone.lab, pve_sdn_vnet.web].")
		return nil, false
	}
	known = true
	for i, el := range elems {
		if el.IsUnknown() {
			known = false
			continue
		}
		var attrs map[string]attr.Value
		switch o := el.(type) {
		case types.Object:
			attrs = o.Attributes()
		case types.Map:
			attrs = o.Elements()
		}
		sid, ok := attrs[attrSDNID].(types.String)
		if !ok || sid.IsNull() {
			diags.AddAttributeError(path.Root(attrObjects), BadObjectSummary, fmt.Sprintf(
				"Element %d of objects is not an SDN resource (it has no sdn_id): list whole SDN resources, "+
					"such as pve_sdn_zone.lab or pve_sdn_subnet.web.", i))
			continue
		}
		if sid.IsUnknown() {
			known = false
			continue
		}
		ids = append(ids, sid.ValueString())
	}
	sort.Strings(ids)
	return ids, known
}

func stringList(items []string) types.List {
	elems := make([]attr.Value, len(items))
	for i, s := range items {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

func listStrings(l types.List) []string {
	var out []string
	for _, el := range l.Elements() {
		if s, ok := el.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// ModifyPlan sets sdn_ids from objects and plans nothing pending after the
// apply; it refuses (when the plan applies) or warns about pending changes
// on objects neither the configuration nor the state lists.
func (r *applierResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan applierModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ids, known := objectSDNIDs(plan.Objects, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = types.StringValue(applierID)
	plan.SDNIDs = types.ListUnknown(types.StringType)
	if known {
		plan.SDNIDs = stringList(ids)
	}
	plan.Pending = stringList(nil)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	if !known || r.client == nil {
		return
	}
	managed := ids
	applies := req.State.Raw.IsNull()
	if !applies {
		var state applierModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		managed = append(managed, listStrings(state.SDNIDs)...)
		var after applierModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &after)...)
		applies = !after.Objects.Equal(state.Objects) || !after.Pending.Equal(state.Pending) || !after.SDNIDs.Equal(state.SDNIDs)
	}
	pending, err := r.client.SDNPending(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Pending SDN Changes", err)
		return
	}
	foreign := pveapi.ForeignPending(pending, managed)
	if len(foreign) == 0 {
		return
	}
	if applies {
		resp.Diagnostics.AddAttributeError(path.Root(attrObjects), ForeignPendingSummary, foreignDetail(foreign, true))
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root(attrObjects), ForeignPendingSummary, foreignDetail(foreign, false))
}

func foreignDetail(foreign []string, applies bool) string {
	head := "PVE has SDN changes staged on objects this applier does not list: " + strings.Join(foreign, ", ") + "."
	if applies {
		head += " This plan applies SDN changes, and PVE applies all staged changes at once, so it would apply those too; " +
			"it is refused."
	} else {
		head += " The next SDN apply of this configuration would be refused because of them."
	}
	return head + " Either apply or roll them back in PVE (Datacenter → SDN: Apply or Rollback), or import those objects " +
		"into this configuration and list them in objects."
}

func (r *applierResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan applierModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ids := plannedIDs(&plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.apply(ctx, ids, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// plannedIDs reads the sdn_ids of the planned objects, all known at apply
// time, into plan.
func plannedIDs(plan *applierModel, diags *diag.Diagnostics) []string {
	ids, known := objectSDNIDs(plan.Objects, diags)
	if !known && !diags.HasError() {
		diags.AddAttributeError(path.Root(attrObjects), BadObjectSummary, "An element of objects has no known sdn_id at apply time.")
	}
	plan.ID = types.StringValue(applierID)
	plan.SDNIDs = stringList(ids)
	plan.Pending = stringList(nil)
	return ids
}

// apply applies the staged SDN changes, the managed objects being ids.
func (r *applierResource) apply(ctx context.Context, ids []string, diags *diag.Diagnostics) bool {
	err := r.session.Apply(ctx, ids)
	if err == nil {
		return true
	}
	if fe, ok := pveapi.IsSDNForeignPending(err); ok {
		diags.AddAttributeError(path.Root(attrObjects), ForeignPendingSummary, foreignDetail(fe.SDNIDs, true))
		return false
	}
	fwutil.AddAPIError(diags, ApplyFailedSummary, err)
	return false
}

func (r *applierResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state applierModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pending, err := r.client.SDNPending(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Pending SDN Changes", err)
		return
	}
	listed := map[string]bool{}
	for _, id := range listStrings(state.SDNIDs) {
		listed[id] = true
	}
	var ours []string
	for _, e := range pending {
		if listed[e.SDNID()] {
			ours = append(ours, e.SDNID())
		}
	}
	state.Pending = stringList(ours)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *applierResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state applierModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Objects the configuration no longer lists were destroyed before this
	// update: their staged deletions are ours too.
	ids := append(plannedIDs(&plan, &resp.Diagnostics), listStrings(state.SDNIDs)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.apply(ctx, ids, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// Delete applies nothing itself: it tells the session which objects it
// listed, and the deletion that removes the last of them applies.
func (r *applierResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state applierModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.session.ExpectDeletions(listStrings(state.SDNIDs))
}

// ImportState adopts an applier: it has nothing in PVE but the pending
// changes, so the import holds no objects, and the next plan (listing them
// from the configuration) is an update that applies what of them is
// pending.
func (r *applierResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID != applierID {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_sdn_applier with the id \"sdn\", got "+quoted(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, applierModel{
		ID: types.StringValue(applierID), Objects: types.DynamicNull(), SDNIDs: stringList(nil), Pending: stringList(nil),
	})...)
}
