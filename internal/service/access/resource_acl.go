package access

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                     = (*aclResource)(nil)
	_ resource.ResourceWithConfigure        = (*aclResource)(nil)
	_ resource.ResourceWithImportState      = (*aclResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*aclResource)(nil)
	_ resource.ResourceWithConfigValidators = (*aclResource)(nil)
)

// NewACLResource is the pve_acl constructor registered with the provider.
func NewACLResource() resource.Resource {
	return fwutil.WithIdentity(&aclResource{}, aclIdentity)
}

// aclIdentity is an ACL entry's key: its path, role and member (one of
// user, group and token), the parts of its import id PATH|TYPE|UGID|ROLE.
var aclIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "path", Description: "The ACL path, as `path` (for example `/vms/100`)."},
		{Name: "role", Description: "The role granted, as `role`."},
		{Name: "user", Optional: true, Description: "The user the entry grants the role to, as `user`; one of `user`, `group` and `token`."},
		{Name: "group", Optional: true, Description: "The group the entry grants the role to, as `group`; one of `user`, `group` and `token`."},
		{Name: "token", Optional: true, Description: "The API token the entry grants the role to, as `token`; one of `user`, `group` and `token`."},
	},
	ImportID: func(v map[string]string) string {
		k := aclKey{Path: v["path"], Role: v["role"]}
		switch {
		case v["user"] != "":
			k.Type, k.UGID = pveapi.ACLTypeUser, v["user"]
		case v["group"] != "":
			k.Type, k.UGID = pveapi.ACLTypeGroup, v["group"]
		case v["token"] != "":
			k.Type, k.UGID = pveapi.ACLTypeToken, v["token"]
		}
		return k.id()
	},
}

type aclResource struct {
	client *pveapi.Client
}

func (r *aclResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_acl"
}

func (r *aclResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One PVE ACL entry: a role granted to one user, group or API token on one path. " +
			"Each resource manages exactly its own entry; other entries on the same path are left alone. " +
			"Creating an entry that already exists in PVE fails (import it instead): PVE would accept the write, and Terraform would then " +
			"delete on destroy an entry it did not create." +
			"\n\nA plan that deletes or replaces an entry that gives the provider's own identity its rights is refused unless `allow_self_lockout = true`." +
			"\n\nPVE keeps every ACL entry, user, group and role in one cluster file and changes it under one lock, so many entries in one apply " +
			"are written one after the other; a write that waited too long for that lock is sent again (PVE changed nothing)." +
			"\n\n**Changes that replace the entry:** `path`, `role`, `user`, `group`, `token`. `propagate` changes in place.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`PATH|TYPE|UGID|ROLE`, the import id, e.g. `/vms/100|user|alice@pve|PVEVMUser`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "The object the role is granted on: `/`, `/vms/VMID`, `/storage/STORAGE`, `/pool/POOL`, `/nodes/NODE`, " +
					"`/access/groups/GROUP`, `/access/realm/REALM`, `/sdn/...`, `/mapping/...`. Written in the form PVE stores " +
					"(one leading `/`, no trailing or doubled `/`); another spelling is refused at plan time with the form to use. " +
					"The path must be one PVE knows on the release the provider talks to (`/sdn/fabrics` needs PVE 9.0).",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{wireProblemValidator("ACL Path", normalizedACLPathProblem)},
			},
			"role": schema.StringAttribute{
				MarkdownDescription: "The role granted: a built-in role (`PVEVMUser`, `PVEAuditor`, ...; see the `pve_roles` data source) or a `pve_role`.",
				Required:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{wireProblemValidator("Role Name", wire.RoleNameProblem)},
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "The user granted the role, `USER@REALM`. Exactly one of `user`, `group` and `token` is set. " +
					"`root@pam` is refused: it holds every privilege everywhere, and PVE does not store entries for it.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{wireProblemValidator("User ID", aclUserProblem)},
			},
			"group": schema.StringAttribute{
				MarkdownDescription: "The group granted the role.",
				Optional:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{wireProblemValidator("Group Name", wire.GroupNameProblem)},
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "The API token granted the role, `USER@REALM!TOKEN`. PVE uses a token's own entries only when the token " +
					"has privilege separation, and then grants it at most what its user holds.",
				Optional:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{wireProblemValidator("Token ID", wire.TokenIDProblem)},
			},
			"propagate": schema.BoolAttribute{
				MarkdownDescription: "Whether the role also applies below `path` (`/vms` to every guest, `/pool/dev` to the pool's guests and storages). " +
					"Default `true`, as in PVE. Changed in place.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			allowSelfLockoutAttr: schema.BoolAttribute{
				MarkdownDescription: "Allow deleting or replacing this entry even though it gives the provider its own rights. Without it such a plan is " +
					"refused. The entry counts when it names the provider's API token, the token's user (or the user it logs in as), or a group that " +
					"user is in (as `GET /access/groups` lists them), with any role but `NoAccess`. Other entries that might grant the same rights are " +
					"not weighed. To delete such an entry, set this to `true`, apply, then remove the resource.",
				Optional: true,
			},
		},
	}
}

func (r *aclResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("user"), path.MatchRoot("group"), path.MatchRoot("token")),
	}
}

func (r *aclResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ModifyPlan checks the path against the connected release, and refuses
// deleting or replacing an entry the provider holds its rights by.
func (r *aclResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.client == nil {
		return
	}
	var state aclModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if req.Plan.Raw.IsNull() {
		if !resp.Diagnostics.HasError() && !state.AllowSelfLockout.ValueBool() {
			r.refuseSelfLockout(ctx, state, "Deleting", path.Empty(), &resp.Diagnostics)
		}
		return
	}
	var plan aclModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Path.IsUnknown() {
		release, err := fwutil.PVERelease(ctx, r.client)
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The PVE Release", err)
			return
		}
		if problem := wire.ACLPathProblem(plan.Path.ValueString(), release); problem != "" {
			resp.Diagnostics.AddAttributeError(path.Root("path"), "Invalid ACL Path", "Attribute path: "+problem+".")
		}
	}
	if req.State.Raw.IsNull() || plan.AllowSelfLockout.ValueBool() {
		return
	}
	old, _ := state.key()
	if planned, known := plan.key(); !known || planned != old {
		r.refuseSelfLockout(ctx, state, "Replacing", path.Empty(), &resp.Diagnostics)
	}
}

// refuseSelfLockout adds an error when the entry of state gives the
// provider's own identity rights.
func (r *aclResource) refuseSelfLockout(ctx context.Context, state aclModel, doing string, attr path.Path, diags *diag.Diagnostics) {
	k, ok := state.key()
	if !ok {
		return
	}
	self, err := loadSelfPrincipal(ctx, r.client, k.Type == pveapi.ACLTypeGroup)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Check The Provider's Own ACL Entries", err)
		return
	}
	if !self.grants(k.Type, k.UGID, k.Role) {
		return
	}
	detail := fmt.Sprintf("%s the ACL entry %s would take rights from the provider's own identity (%s): the entry is for %s. "+
		"The provider could lose the rights it needs to finish this or any later run. "+
		"Grant the provider its rights through another entry first, or set allow_self_lockout = true on this resource and apply before changing it.",
		doing, k, self.id, self.selfLockoutWhat(k.Type, k.UGID))
	if attr.Equal(path.Empty()) {
		diags.AddError("ACL Entry Grants The Provider Its Own Rights", detail)
		return
	}
	diags.AddAttributeError(attr, "ACL Entry Grants The Provider Its Own Rights", detail)
}

func (r *aclResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan aclModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, _ := plan.key()
	// PUT /access/acl adds an entry that exists without complaint, so the
	// provider looks first: it must not take over (and later delete) an
	// entry it did not create.
	entries, err := r.client.ACL(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The ACL", err)
		return
	}
	if _, exists := k.find(entries); exists {
		resp.Diagnostics.AddError("ACL Entry Already Exists",
			fmt.Sprintf("PVE already has the ACL entry %s, and Terraform does not take over an entry it did not create. "+
				"Import it (terraform import or an import block with id %q) to manage it.", k, k.id()))
		return
	}
	if err := r.client.UpdateACL(ctx, k.change(plan.Propagate.ValueBool(), false)); err != nil {
		r.addWriteError(&resp.Diagnostics, "Unable To Create ACL Entry", k, err)
		return
	}
	if r.readBack(ctx, k, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// addWriteError points PVE's refusals at the attribute they are about.
func (r *aclResource) addWriteError(diags *diag.Diagnostics, summary string, k aclKey, err error) {
	attr := path.Empty()
	switch {
	case pveapi.IsNoSuchRole(err):
		attr = path.Root("role")
	case pveapi.IsNoSuchUser(err), pveapi.IsNoSuchGroup(err), pveapi.IsNoSuchToken(err):
		attr = k.memberAttr()
	}
	if attr.Equal(path.Empty()) {
		fwutil.AddAPIError(diags, summary, err)
		return
	}
	fwutil.AddAttributeAPIError(diags, attr, summary, err)
}

func (r *aclResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aclModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, ok := state.key()
	if !ok {
		resp.Diagnostics.AddError("Incomplete ACL Entry State", "The state names no path, role or member; remove the resource from state and import it.")
		return
	}
	entries, err := r.client.ACL(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The ACL", err)
		return
	}
	e, found := k.find(entries)
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromAPI(e)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *aclResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state aclModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, _ := plan.key()
	// Only propagate changes in place: PVE sets an existing entry's
	// propagation with the same PUT that adds it.
	if !plan.Propagate.Equal(state.Propagate) {
		if err := r.client.UpdateACL(ctx, k.change(plan.Propagate.ValueBool(), false)); err != nil {
			r.addWriteError(&resp.Diagnostics, "Unable To Update ACL Entry", k, err)
			return
		}
	}
	if r.readBack(ctx, k, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// readBack finds the entry after a write, so state holds what PVE keeps.
func (r *aclResource) readBack(ctx context.Context, k aclKey, m *aclModel, diags *diag.Diagnostics) bool {
	entries, err := r.client.ACL(ctx)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read The ACL After Writing It", err)
		return false
	}
	e, found := k.find(entries)
	if !found {
		diags.AddError("ACL Entry Not Found After Writing It",
			fmt.Sprintf("PVE accepted the ACL entry %s but does not list it: another client may have removed it, "+
				"or the provider may not see entries on %s (GET /access/acl lists only entries on paths where it has Sys.Audit on /access "+
				"or may modify permissions). Run apply again, or check the provider's privileges.", k, k.Path))
		return false
	}
	m.fromAPI(e)
	return true
}

func (r *aclResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aclModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, ok := state.key()
	if !ok {
		return
	}
	// Removing an entry that is already gone is a no-op in PVE, but a
	// member or role that is gone is refused: then the entry is gone too.
	err := r.client.UpdateACL(ctx, k.change(false, true))
	if err != nil && !pveapi.IsNoSuchRole(err) && !pveapi.IsNoSuchUser(err) && !pveapi.IsNoSuchGroup(err) && !pveapi.IsNoSuchToken(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete ACL Entry", err)
	}
}

func (r *aclResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	k, problem := parseACLImportID(req.ID)
	if problem != "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_acl by PATH|TYPE|UGID|ROLE: "+problem+".")
		return
	}
	var m aclModel
	m.setKey(k)
	for attr, value := range map[string]any{
		"id": m.ID, "path": m.Path, "role": m.Role, "user": m.User, "group": m.Group, "token": m.Token,
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), value)...)
	}
}
