package ha

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                = (*haResourceResource)(nil)
	_ resource.ResourceWithConfigure   = (*haResourceResource)(nil)
	_ resource.ResourceWithImportState = (*haResourceResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*haResourceResource)(nil)
)

// NewHAResourceResource is the pve_ha_resource constructor registered
// with the provider.
func NewHAResourceResource() resource.Resource {
	return fwutil.WithIdentity(&haResourceResource{}, haResourceIdentity)
}

// haResourceIdentity is an HA resource's key: its guest's VMID, with the
// guest's type when known, as its import ids "100" and "vm:100" name it.
var haResourceIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "vmid", Int: true, Description: "The VMID of the guest under HA, as `vmid`."},
		{Name: "type", Optional: true, Description: "The guest's type, `vm` or `ct`, as `type`; looked up when absent at import."},
	},
	ImportID: func(v map[string]string) string {
		if v["type"] == "" {
			return v["vmid"]
		}
		return v["type"] + ":" + v["vmid"]
	},
}

type haResourceResource struct {
	client *pveapi.Client
}

// haResourceUpdateTries bounds the re-reads of an update whose digest went
// stale: the digest covers every HA resource, so updates of several in one
// apply invalidate each other's.
const haResourceUpdateTries = 8

func (r *haResourceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ha_resource"
}

func (r *haResourceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A VM or container under PVE's high availability (HA) manager: PVE keeps it in the requested `state` and, " +
			"when its node fails, fences the node and recovers the guest on another node. Where it may run is set by a " +
			"`pve_ha_rule` (PVE 9) or the resource's `group` (PVE 8). " +
			"Creating the resource only writes HA's configuration; the HA manager then acts on it within seconds " +
			"(read the outcome with the `pve_ha_status` data source). While a guest is under HA, HA decides whether it runs and on " +
			"which node: set the wanted power state here with `state`, and expect the guest to move to another node on its own. " +
			"Deleting the resource also takes its sid out of the rules that name it (PVE 9's default)." +
			"\n\n**Changes that replace the resource:** `vmid`, `type`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The HA resource id, equal to `sid`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"vmid": schema.Int64Attribute{
				MarkdownDescription: "VMID of the VM or container to put under HA. The guest must exist when the resource is created.",
				Required:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
				Validators:          []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "`vm` for a VM, `ct` for a container. When not set, the provider looks the guest up by `vmid`.",
				Optional:            true,
				Computed:            true,
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplaceIfConfigured(),
				},
				Validators: []validator.String{stringvalidator.OneOf(wire.HATypeVM, wire.HATypeCT)},
			},
			"sid": schema.StringAttribute{
				MarkdownDescription: "PVE's id of the HA resource: `vm:VMID` or `ct:VMID`. Rules (`pve_ha_rule`) name resources by it.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"state": schema.StringAttribute{
				MarkdownDescription: "The requested state: `started` (PVE's default when not set: the guest is started and recovered on node failure), " +
					"`stopped` (kept stopped, still recovered on node failure), `disabled` (stopped and not recovered; the way out of HA's error state) " +
					"or `ignored` (HA leaves the guest alone, as if it were not under HA). When not set, PVE's default applies and state holds null.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(wire.HAResourceStates...)},
			},
			"max_restart": schema.Int64Attribute{
				MarkdownDescription: "How often HA tries to restart the guest on its node after a failed start (PVE's default: 1).",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"max_relocate": schema.Int64Attribute{
				MarkdownDescription: "How often HA tries to relocate the guest to another node after failed starts (PVE's default: 1).",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"failback": schema.BoolAttribute{
				MarkdownDescription: "PVE 9 only: move the guest back to the node of highest priority in its node-affinity rule when that node comes " +
					"back online (PVE's default: true). Refused at plan time on PVE 8, where the group's `nofailback` decides.",
				Optional: true,
			},
			"group": schema.StringAttribute{
				MarkdownDescription: "PVE 8: the HA group (`pve_ha_group`) that says where the guest may run. PVE 9 replaced groups with node-affinity " +
					"rules: once its HA manager has migrated the groups, `group` is refused at plan time; use a `pve_ha_rule` naming this resource's `sid`.",
				Optional: true,
				Validators: []validator.String{
					fwutil.Format(wire.IsHAConfigID, "must start with a letter, then letters, digits, '_' or '-' (at least two characters)"),
				},
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Free-text description, one line.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 4096),
					stringvalidator.RegexMatches(regexp.MustCompile(`^[^\r\n]*$`), "must be one line (PVE stores it on one line)"),
				},
			},
		},
	}
}

func (r *haResourceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ModifyPlan fills in type and sid when they can be known, and refuses
// what the connected PVE release does not take: failback on PVE 8, group
// on PVE 9 once its groups are migrated to rules.
func (r *haResourceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil || req.Plan.Raw.IsNull() {
		return
	}
	var plan haResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		r.haResourcePlanIDs(ctx, &plan, resp)
	}
	needFailback := !plan.Failback.IsNull()
	needGroup := !plan.Group.IsNull()
	if !needFailback && !needGroup {
		return
	}
	release, err := fwutil.PVERelease(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The PVE Version", err)
		return
	}
	if needFailback && !release.AtLeast(wire.PVE90) {
		resp.Diagnostics.AddAttributeError(path.Root("failback"), "Failback Needs PVE 9",
			fmt.Sprintf("Attribute failback: PVE %s has no failback option for HA resources; there the HA group's nofailback decides "+
				"(pve_ha_group). Remove failback from the configuration.", release))
	}
	if needGroup && release.AtLeast(wire.PVE90) {
		migrated, err := r.client.HAGroupsMigrated(ctx)
		switch {
		case err != nil:
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Check The HA Groups", err)
		case migrated:
			resp.Diagnostics.AddAttributeError(path.Root("group"), "HA Groups Are Migrated To Rules",
				"Attribute group: this PVE 9 cluster has migrated its HA groups to node-affinity rules and no longer takes a group. "+
					"Remove group and put the resource's sid in a pve_ha_rule of type node-affinity instead.")
		default:
			resp.Diagnostics.AddAttributeWarning(path.Root("group"), "HA Groups Will Become Rules",
				"Attribute group: PVE 9 still takes HA groups on this cluster, but its HA manager migrates them to node-affinity rules "+
					"once every node runs PVE 9; from then on PVE refuses group. Plan to move to a pve_ha_rule naming this resource's sid.")
		}
	}
}

// haResourcePlanIDs plans type, sid and id of a new resource: type from
// the configuration, or from the guest list when the guest exists now.
func (r *haResourceResource) haResourcePlanIDs(ctx context.Context, plan *haResourceModel, resp *resource.ModifyPlanResponse) {
	if plan.VMID.IsUnknown() || plan.VMID.IsNull() {
		return
	}
	vmid := int(plan.VMID.ValueInt64())
	typ := plan.Type
	// The guest may come with the same apply: then Create looks again.
	guest, found, err := r.client.LocateGuest(ctx, vmid)
	if err == nil && found {
		guestType := wire.HATypeOfGuest(guest.Type)
		switch {
		case guestType == "":
		case typ.IsUnknown():
			typ = types.StringValue(guestType)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("type"), typ)...)
		case !typ.IsNull() && typ.ValueString() != guestType:
			resp.Diagnostics.AddAttributeError(path.Root("type"), "HA Type Does Not Match The Guest",
				fmt.Sprintf("Attribute type: guest %d is a %s, so its HA type is %q, not %q. Set type = %q or leave type out.",
					vmid, guest.Type, guestType, typ.ValueString(), guestType))
			return
		}
	}
	if typ.IsNull() || typ.IsUnknown() {
		return
	}
	sid := types.StringValue(wire.HASID(typ.ValueString(), vmid))
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sid"), sid)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), sid)...)
}

func (r *haResourceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan haResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vmid := int(plan.VMID.ValueInt64())
	typ := plan.Type.ValueString()
	if plan.Type.IsUnknown() || plan.Type.IsNull() {
		guest, found, err := r.client.LocateGuest(ctx, vmid)
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Look Up The Guest", err)
			return
		}
		if !found || wire.HATypeOfGuest(guest.Type) == "" {
			resp.Diagnostics.AddAttributeError(path.Root("vmid"), "Guest Not Found",
				fmt.Sprintf("Attribute vmid: no VM or container %d exists in the cluster, so it cannot be put under HA. "+
					"Create the guest first (reference its vmid so Terraform orders the two).", vmid))
			return
		}
		typ = wire.HATypeOfGuest(guest.Type)
	}
	sid := wire.HASID(typ, vmid)
	if err := r.client.CreateHAResource(ctx, sid, plan.haResourceCreateParams()); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("vmid"), "Unable To Create HA Resource", err)
		return
	}
	if r.haResourceReadBack(ctx, sid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// haResourceReadBack reads the resource after a write, so state holds
// what PVE keeps.
func (r *haResourceResource) haResourceReadBack(ctx context.Context, sid string, m *haResourceModel, diags *diag.Diagnostics) bool {
	res, found, err := r.client.GetHAResource(ctx, sid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read HA Resource After Writing It", err)
		return false
	}
	if !found {
		fwutil.AddVanishedAfterWrite(diags, "HA Resource", "HA resource "+sid)
		return false
	}
	m.haResourceFromAPI(res)
	return true
}

// haResourceKey is the id PVE reads the resource by: its sid, or during
// an import by a bare VMID the bare number (PVE looks the type up).
func haResourceKey(m *haResourceModel) string {
	if !m.SID.IsNull() && !m.SID.IsUnknown() && m.SID.ValueString() != "" {
		return m.SID.ValueString()
	}
	if !m.Type.IsNull() && !m.Type.IsUnknown() {
		return wire.HASID(m.Type.ValueString(), int(m.VMID.ValueInt64()))
	}
	return strconv.FormatInt(m.VMID.ValueInt64(), 10)
}

func (r *haResourceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state haResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	res, found, err := r.client.GetHAResource(ctx, haResourceKey(&state))
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Resource", err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	state.haResourceFromAPI(res)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// Update writes the changed options with the digest of a fresh read. The
// digest covers all HA resources, so another resource's write in the same
// apply makes PVE refuse: the update then reads again and retries, as
// long as this resource itself still holds what the plan was made from.
func (r *haResourceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior haResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	sid := prior.SID.ValueString()
	set, del, needed := haResourceUpdate(&prior, &plan)
	for try := 0; needed; try++ {
		res, found, err := r.client.GetHAResource(ctx, sid)
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Resource", err)
			return
		}
		if !found {
			resp.Diagnostics.AddError("HA Resource Vanished",
				"HA resource "+sid+" was deleted outside Terraform since the plan. Run apply again to recreate it.")
			return
		}
		var live haResourceModel
		live.haResourceFromAPI(res)
		if !haResourceSameOptions(&live, &prior) {
			resp.Diagnostics.AddError("HA Resource Changed Outside Terraform",
				"HA resource "+sid+" was changed by another client since the plan was made. Run terraform plan again to see the difference.")
			return
		}
		err = r.client.UpdateHAResource(ctx, sid, set, del, res.Digest)
		if err == nil {
			break
		}
		if !pveapi.IsHADigestMismatch(err) || try+1 >= haResourceUpdateTries {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update HA Resource", err)
			return
		}
	}
	if r.haResourceReadBack(ctx, sid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *haResourceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state haResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A resource that is already gone is what Delete wants.
	if _, err := r.client.DeleteHAResource(ctx, haResourceKey(&state)); err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete HA Resource", err)
	}
}

func (r *haResourceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	typ, vmid, ok := wire.ParseHAImportID(req.ID)
	if !ok {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_ha_resource by its sid (\"vm:100\", \"ct:101\") or by the guest's VMID (\"100\"), got "+req.ID+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(vmid))...)
	if typ != "" {
		sid := wire.HASID(typ, vmid)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("type"), typ)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("sid"), sid)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), sid)...)
	}
}
