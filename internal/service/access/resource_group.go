package access

import (
	"context"
	"fmt"

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
	_ resource.Resource                = (*groupResource)(nil)
	_ resource.ResourceWithConfigure   = (*groupResource)(nil)
	_ resource.ResourceWithImportState = (*groupResource)(nil)
)

// NewGroupResource is the pve_group constructor registered with the
// provider.
func NewGroupResource() resource.Resource {
	return fwutil.WithIdentity(&groupResource{}, groupIdentity)
}

// groupIdentity is a group's key, its name (the import id).
var groupIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "groupid", Description: "The group's name, as `groupid` (for example `admins`).",
}}}

type groupResource struct {
	client *pveapi.Client
}

// groupModel is pve_group.
type groupModel struct {
	ID      types.String `tfsdk:"id"`
	GroupID types.String `tfsdk:"groupid"`
	Comment types.String `tfsdk:"comment"`
	Members types.Set    `tfsdk:"members"`
}

// fromAPI sets what PVE holds of the group.
func (m *groupModel) fromAPI(g *pveapi.Group) {
	m.ID = types.StringValue(g.GroupID)
	m.GroupID = types.StringValue(g.GroupID)
	m.Comment = textFromAPI(g.Comment)
	m.Members = computedIDSet(g.Members)
}

func (r *groupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_group"
}

func (r *groupResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A PVE user group, to grant permissions to many users at once. Members are set on the users: " +
			"`pve_user.groups` lists a user's groups; `members` here only shows them." +
			"\n\nDeleting a group also deletes every permission (ACL entry) granted to it, and takes its members out of it; " +
			"the users stay. If the provider's own user gets its privileges through this group, deleting the group takes them away." +
			"\n\n**Changes that replace the group:** `groupid` (PVE cannot rename a group).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The group's id, equal to `groupid`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"groupid": schema.StringAttribute{
				MarkdownDescription: "Group name: letters, digits, `.`, `-` and `_`. Changing it replaces the group.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{fwutil.Problem(wire.GroupNameProblem, "must be a group name PVE accepts")},
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Free-text comment. PVE keeps no empty comment nor the text `0`, and trims surrounding spaces: those are refused.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthAtMost(wire.MaxUserCommentLength),
					fwutil.Problem(wire.UserTextProblem, "must be a text PVE keeps as it is"),
				},
			},
			"members": schema.SetAttribute{
				MarkdownDescription: "The user ids of the group's members, as PVE lists them. Read-only: membership is managed " +
					"with `pve_user.groups` (PVE sets a user's groups in one request; managing them from the group would " +
					"rewrite other users' memberships and lose concurrent changes).",
				ElementType: types.StringType,
				Computed:    true,
			},
		},
	}
}

func (r *groupResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *groupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan groupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	groupid := plan.GroupID.ValueString()
	if err := r.client.CreateGroup(ctx, groupid, plan.Comment.ValueString()); err != nil {
		if pveapi.IsGroupExists(err) {
			resp.Diagnostics.AddAttributeError(path.Root("groupid"), "Group Already Exists", fmt.Sprintf(
				"Group %s already exists in PVE, and pve_group does not take over groups it did not create. "+
					"Import it instead (an import block with id = %q, or terraform import ADDRESS %s), or choose another groupid."+
					"\n\nPVE said: %s", groupid, groupid, groupid, fwutil.APIErrorDetail(err)))
			return
		}
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("groupid"), "Unable To Create Group", err)
		return
	}
	if r.readBack(ctx, groupid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *groupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state groupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	group, err := r.client.GetGroup(ctx, state.GroupID.ValueString())
	if pveapi.IsNoSuchGroup(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Group", err)
		return
	}
	state.fromAPI(group)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *groupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state groupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	groupid := plan.GroupID.ValueString()
	if !state.Comment.Equal(plan.Comment) {
		// "" clears the comment.
		if err := r.client.UpdateGroup(ctx, groupid, plan.Comment.ValueString()); err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update Group", err)
			return
		}
	}
	if r.readBack(ctx, groupid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the group after a write, so state holds what PVE keeps.
func (r *groupResource) readBack(ctx context.Context, groupid string, m *groupModel, diags *diag.Diagnostics) bool {
	group, err := r.client.GetGroup(ctx, groupid)
	if err != nil {
		if pveapi.IsNoSuchGroup(err) {
			fwutil.AddVanishedAfterWrite(diags, "Group", "Group "+groupid)
			return false
		}
		fwutil.AddAPIError(diags, "Unable To Read Group After Writing It", err)
		return false
	}
	m.fromAPI(group)
	return true
}

func (r *groupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state groupModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.DeleteGroup(ctx, state.GroupID.ValueString()); err != nil && !pveapi.IsNoSuchGroup(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Group", err)
	}
}

func (r *groupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if problem := wire.GroupNameProblem(req.ID); problem != "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_group by its group name (for example admins): "+problem+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("groupid"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
