package access

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
	_ resource.Resource                   = (*roleResource)(nil)
	_ resource.ResourceWithConfigure      = (*roleResource)(nil)
	_ resource.ResourceWithImportState    = (*roleResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*roleResource)(nil)
	_ resource.ResourceWithValidateConfig = (*roleResource)(nil)
)

// NewRoleResource is the pve_role constructor registered with the provider.
func NewRoleResource() resource.Resource {
	return fwutil.WithIdentity(&roleResource{}, roleIdentity)
}

// roleIdentity is a role's key, its roleid (the import id).
var roleIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "roleid", Description: "The role's id, as `roleid`.",
}}}

type roleResource struct {
	client *pveapi.Client
}

func (r *roleResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_role"
}

func (r *roleResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A custom PVE role: a named set of privileges, granted to users, groups and API tokens on a path with `pve_acl`. " +
			"PVE's built-in roles (`Administrator`, `PVEAdmin`, `PVEVMUser`, ...) cannot be managed; read them with the `pve_roles` data source." +
			"\n\n**Deleting a role deletes every ACL entry that uses it:** PVE drops them with the role, including entries Terraform does not manage. " +
			"A plan that deletes or replaces a role that gives the provider's own identity its rights is refused unless `allow_self_lockout = true` " +
			"(see that attribute for what is checked)." +
			"\n\n**Changes that replace the role:** `roleid` (PVE has no way to rename a role; the replacement also loses the old role's ACL entries).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The role's id, equal to `roleid`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"roleid": schema.StringAttribute{
				MarkdownDescription: "Role name: letters, digits, `.`, `-` and `_`. Names starting with `PVE` (in any case) are reserved for PVE's built-in roles, " +
					"and the built-in roles' own names cannot be used.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{wireProblemValidator("Role Name", customRoleProblem)},
			},
			"privileges": schema.SetAttribute{
				MarkdownDescription: "The role's privileges, e.g. `VM.Audit`, `VM.PowerMgmt`, `Datastore.AllocateSpace` (case sensitive); may be empty. " +
					"Checked at plan time against the PVE release the provider talks to: PVE 9.0 removed `VM.Monitor` and added the " +
					"`VM.GuestAgent.*` privileges and `VM.Replicate`. A change is applied in place, replacing the role's privileges in one request.",
				Required:    true,
				ElementType: types.StringType,
			},
			allowSelfLockoutAttr: schema.BoolAttribute{
				MarkdownDescription: "Allow deleting or replacing this role even though it gives the provider its own rights. Without it such a plan is refused. " +
					"The check looks at the ACL entries that use this role (as `GET /access/acl` lists them to the provider) and counts an entry when it names " +
					"the provider's API token, the token's user (or the user it logs in as), or a group that user is in (as `GET /access/groups` lists them). " +
					"It does not follow pools, nor judge whether other roles would still grant the same privileges. The entries are those PVE has when " +
					"the plan is made, so a `pve_acl` removed in the same plan still counts (set `allow_self_lockout` on both). To delete such a role, " +
					"set this to `true`, apply, then remove the resource.",
				Optional: true,
			},
		},
	}
}

// customRoleProblem is wire.CustomRoleNameProblem, pointing at the data
// source for the built-in roles.
func customRoleProblem(name string) string {
	problem := wire.CustomRoleNameProblem(name)
	if problem != "" && wire.IsBuiltinRole(name) {
		problem += "; read a built-in role's privileges with the pve_roles data source and grant it with pve_acl as it is"
	}
	return problem
}

func (r *roleResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ValidateConfig checks the privilege names' shape; whether they exist
// depends on the release and is checked in ModifyPlan.
func (r *roleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config roleModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	privs, known, diags := config.privileges(ctx)
	resp.Diagnostics.Append(diags...)
	if !known {
		return
	}
	for _, priv := range privs {
		if priv == "" || strings.ContainsAny(priv, ", \t\n;") {
			resp.Diagnostics.AddAttributeError(path.Root("privileges"), "Invalid Privilege",
				fmt.Sprintf("Attribute privileges: %q is not a privilege name: one name per element, such as VM.Audit.", priv))
		}
	}
}

// ModifyPlan checks the privileges against the connected release, and
// refuses deleting or replacing a role the provider holds its rights by.
func (r *roleResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil {
		return
	}
	if req.Plan.Raw.IsNull() {
		var state roleModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !resp.Diagnostics.HasError() && !state.AllowSelfLockout.ValueBool() {
			r.refuseSelfLockout(ctx, state.RoleID.ValueString(), "Deleting", path.Empty(), &resp.Diagnostics)
		}
		return
	}
	var plan roleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	privs, known, diags := plan.privileges(ctx)
	resp.Diagnostics.Append(diags...)
	if known && len(privs) > 0 {
		release, err := fwutil.PVERelease(ctx, r.client)
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The PVE Release", err)
			return
		}
		for _, priv := range privs {
			if problem := wire.PrivilegeProblem(priv, release); problem != "" {
				resp.Diagnostics.AddAttributeError(path.Root("privileges"), "Unknown Privilege", "Attribute privileges: "+problem+".")
			}
		}
	}
	if req.State.Raw.IsNull() || plan.RoleID.IsUnknown() || plan.AllowSelfLockout.ValueBool() {
		return
	}
	var state roleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if !resp.Diagnostics.HasError() && state.RoleID.ValueString() != plan.RoleID.ValueString() {
		r.refuseSelfLockout(ctx, state.RoleID.ValueString(), "Replacing", path.Root("roleid"), &resp.Diagnostics)
	}
}

// refuseSelfLockout adds an error when ACL entries using the role give the
// provider's own identity rights: PVE deletes them with the role.
func (r *roleResource) refuseSelfLockout(ctx context.Context, roleid, doing string, attr path.Path, diags *diag.Diagnostics) {
	entries, err := r.client.ACL(ctx)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Check The Provider's Own ACL Entries", err)
		return
	}
	self, err := loadSelfPrincipal(ctx, r.client, true)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Check The Provider's Own ACL Entries", err)
		return
	}
	var found []string
	for _, e := range entries {
		if e.RoleID == roleid && self.grants(e.Type, e.UGID, e.RoleID) {
			found = append(found, fmt.Sprintf("%s (%s)", describeEntry(e.Type, e.UGID, e.RoleID, e.Path), self.selfLockoutWhat(e.Type, e.UGID)))
		}
	}
	if len(found) == 0 {
		return
	}
	detail := fmt.Sprintf("%s role %s would delete the ACL entries that use it, and these give the provider's own identity (%s) its rights:\n  %s\n\n"+
		"PVE deletes them with the role, and the provider could lose the rights it needs to finish this or any later run. "+
		"Grant the provider its rights through another role first, or set allow_self_lockout = true on this resource and apply before deleting it.",
		doing, roleid, self.id, strings.Join(found, "\n  "))
	if attr.Equal(path.Empty()) {
		diags.AddError("Role Grants The Provider Its Own Rights", detail)
		return
	}
	diags.AddAttributeError(attr, "Role Grants The Provider Its Own Rights", detail)
}

func (r *roleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan roleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	roleid := plan.RoleID.ValueString()
	privs, _, diags := plan.privileges(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.CreateRole(ctx, roleid, privs); err != nil {
		r.addWriteError(&resp.Diagnostics, "Unable To Create Role", roleid, err)
		return
	}
	if r.readBack(ctx, roleid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// addWriteError explains PVE's refusals of a role write.
func (r *roleResource) addWriteError(diags *diag.Diagnostics, summary, roleid string, err error) {
	switch {
	case pveapi.IsRoleExists(err):
		diags.AddAttributeError(path.Root("roleid"), "Role Already Exists",
			fmt.Sprintf("Role %s already exists in PVE, and Terraform does not take over a role it did not create. "+
				"Import it (terraform import or an import block with id %q) to manage it, or choose another roleid.", roleid, roleid))
	case pveapi.IsBuiltinRoleChange(err):
		fwutil.AddAttributeAPIError(diags, path.Root("roleid"), summary, err)
	default:
		if priv, ok := pveapi.InvalidPrivilege(err); ok {
			detail := fwutil.APIErrorDetail(err)
			if release, relErr := fwutil.PVERelease(context.Background(), r.client); relErr == nil {
				if problem := wire.PrivilegeProblem(priv, release); problem != "" {
					detail = "Attribute privileges: " + problem + ".\n\n" + detail
				}
			}
			diags.AddAttributeError(path.Root("privileges"), summary, detail)
			return
		}
		fwutil.AddAPIError(diags, summary, err)
	}
}

func (r *roleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state roleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	roleid := state.RoleID.ValueString()
	privs, err := r.client.GetRole(ctx, roleid)
	if pveapi.IsNoSuchRole(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Role", err)
		return
	}
	resp.Diagnostics.Append(state.fromAPI(roleid, privs)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *roleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state roleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	roleid := plan.RoleID.ValueString()
	if !plan.Privileges.Equal(state.Privileges) {
		privs, _, diags := plan.privileges(ctx)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		// One PUT without append: PVE replaces the role's privileges.
		if err := r.client.UpdateRole(ctx, roleid, privs, false); err != nil {
			r.addWriteError(&resp.Diagnostics, "Unable To Update Role", roleid, err)
			return
		}
	}
	if r.readBack(ctx, roleid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack reads the role after a write, so state holds what PVE keeps.
func (r *roleResource) readBack(ctx context.Context, roleid string, m *roleModel, diags *diag.Diagnostics) bool {
	privs, err := r.client.GetRole(ctx, roleid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Role After Writing It", err)
		return false
	}
	diags.Append(m.fromAPI(roleid, privs)...)
	return !diags.HasError()
}

func (r *roleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state roleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.DeleteRole(ctx, state.RoleID.ValueString()); err != nil && !pveapi.IsNoSuchRole(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Role", err)
	}
}

func (r *roleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if problem := customRoleProblem(req.ID); problem != "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_role by its roleid: "+problem+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("roleid"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
