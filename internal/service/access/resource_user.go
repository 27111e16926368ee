package access

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*userResource)(nil)
	_ resource.ResourceWithConfigure      = (*userResource)(nil)
	_ resource.ResourceWithImportState    = (*userResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*userResource)(nil)
	_ resource.ResourceWithValidateConfig = (*userResource)(nil)
)

// NewUserResource is the pve_user constructor registered with the provider.
func NewUserResource() resource.Resource {
	return fwutil.WithIdentity(&userResource{}, userIdentity)
}

// userIdentity is a user's key, its user id (the import id).
var userIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "userid", Description: "The user's id, USER@REALM, as `userid` (for example `alice@pve`).",
}}}

type userResource struct {
	client *pveapi.Client
}

func (r *userResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_user"
}

func (r *userResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A PVE user account, of any realm, with its group memberships. For the `pve` realm the provider " +
			"can also set the password (`password_wo`); users of other realms authenticate against their realm " +
			"(PAM: the nodes' Linux accounts; LDAP, Active Directory, OpenID Connect: the directory or identity provider)." +
			"\n\nPVE keeps a user's settings in a format that drops some values: empty texts and the text `0` are not " +
			"stored, and spaces around a text are trimmed. Such values are refused at plan time; leave the attribute out instead." +
			"\n\nDeleting a user also deletes its API tokens, two-factor entries, group memberships and permissions (ACL entries)." +
			"\n\n**Changes that replace the user:** `userid` (PVE cannot rename a user).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The user's id, equal to `userid`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"userid": schema.StringAttribute{
				MarkdownDescription: "User id, `USER@REALM` (e.g. `alice@pve`). PVE does not check that the realm exists: a user of a " +
					"missing realm is created but cannot log in. Changing it replaces the user.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{fwutil.Problem(wire.UserIDProblem, "must be USER@REALM as PVE accepts it")},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Whether the user may log in and use its API tokens. Defaults to `true`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
			},
			"expire": schema.StringAttribute{
				MarkdownDescription: "When the account expires, as an RFC 3339 time in whole seconds (e.g. `2030-01-31T00:00:00Z`); " +
					"an expired user can neither log in nor use its tokens. Left out, the account never expires. PVE stores " +
					"seconds since the epoch; the provider reads them back in UTC, and an equal time in another offset is no change.",
				CustomType: timetypes.RFC3339Type{},
				Optional:   true,
				Validators: []validator.String{fwutil.Problem(expireProblem, "an RFC 3339 timestamp in whole seconds after 1970")},
			},
			"first_name": userTextAttribute("First name.", wire.MaxUserNameLength),
			"last_name":  userTextAttribute("Last name.", wire.MaxUserNameLength),
			"comment":    userTextAttribute("Free-text comment.", wire.MaxUserCommentLength),
			"email": schema.StringAttribute{
				MarkdownDescription: "Email address, e.g. for notifications.",
				Optional:            true,
				Validators:          []validator.String{fwutil.Problem(wire.EmailProblem, "must be an email address PVE accepts")},
			},
			"keys": schema.StringAttribute{
				MarkdownDescription: "Legacy: the per-user two-factor keys of PVE before 7.0 (Yubico key ids or TOTP secrets, " +
					"separated by `!`). PVE 8 and 9 keep two-factor entries elsewhere (Datacenter, Two Factor) and use " +
					"this field only when the user's realm enforces Yubico or TOTP two-factor authentication: then the " +
					"keys are moved into the user's two-factor entries at the next login. Leave it out for new users. " +
					"Once a user has two-factor entries, PVE writes its own marker (`x`) here; the provider reads that " +
					"marker as no value. Sensitive: TOTP secrets are secrets.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{fwutil.Problem(wire.UserKeysProblem, "must be two-factor key ids PVE accepts")},
			},
			"groups": schema.SetAttribute{
				MarkdownDescription: "The groups the user is a member of, all of them: membership is managed here, on the user, " +
					"and a group the user joined outside Terraform is taken away again. Left out, the user is in no group. " +
					"The groups must exist (refer to `pve_group.NAME.groupid` so they are created first). Changes are made " +
					"in place, in one request.",
				ElementType: types.StringType,
				Optional:    true,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(fwutil.Problem(wire.GroupNameProblem, "must be a group name PVE accepts")),
				},
			},
			"password_wo": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The user's password, %d to %d characters, for users of the `pve` realm only "+
					"(PAM passwords are the nodes' Linux passwords; other realms keep passwords in their directory). "+
					"Write-only: it never reaches state or plan output. It is set when the user is created, and again "+
					"whenever `password_wo_version` changes; changing the password alone does nothing. Setting it again "+
					"needs the provider to log in with a username and password: PVE refuses password changes to API tokens "+
					"(an initial password at creation works with either). PVE asks everyone but `root@pam` to confirm a "+
					"password change with their own password; the provider confirms with the password it logged in with.", wire.MinPasswordLength, wire.MaxPasswordLength),
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(wire.MinPasswordLength, wire.MaxPasswordLength),
				},
			},
			"password_wo_version": schema.Int64Attribute{
				MarkdownDescription: "A number to change whenever `password_wo` should be set again; needs `password_wo`. " +
					"After an import, setting it sets the password at the next apply.",
				Optional: true,
				Validators: []validator.Int64{
					int64validator.AlsoRequires(path.MatchRoot("password_wo")),
				},
			},
			"allow_self_lockout": schema.BoolAttribute{
				MarkdownDescription: "Allow deleting or disabling the user the provider itself runs as (its login user, or the " +
					"owner of its API token). Without it such a plan is refused, because the provider would lose its own " +
					"access half-way. To delete that user on purpose, set it to `true` and apply before destroying. " +
					"Only deleting, replacing and disabling are checked: taking the user out of a group through which it " +
					"holds its privileges is not. Defaults to `false`.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
		},
	}
}

// userTextAttribute is an optional text of a user: PVE drops "" and "0"
// and trims surrounding spaces, so those are refused.
func userTextAttribute(description string, maxLength int) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Validators: []validator.String{
			stringvalidator.LengthAtMost(maxLength),
			fwutil.Problem(wire.UserTextProblem, "must be a text PVE keeps as it is"),
		},
	}
}

func (r *userResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ValidateConfig refuses a password for a realm that does not keep one.
func (r *userResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var userid, password types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("userid"), &userid)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &password)...)
	if resp.Diagnostics.HasError() || userid.IsNull() || userid.IsUnknown() || password.IsNull() {
		return
	}
	_, realm, ok := wire.SplitUserID(userid.ValueString())
	if !ok {
		return // the userid validator reports it
	}
	if problem := wire.PasswordRealmProblem(realm); problem != "" {
		resp.Diagnostics.AddAttributeError(path.Root("password_wo"), "Password Not Supported For This Realm",
			fmt.Sprintf("Attribute password_wo cannot be set for %s: %s. Remove password_wo (and password_wo_version).", userid.ValueString(), problem))
	}
}

func (r *userResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan userModel
	var password types.String
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &password)...)
	if resp.Diagnostics.HasError() {
		return
	}
	userid := plan.UserID.ValueString()
	create := plan.toCreate(ctx, password.ValueString(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.CreateUser(ctx, create); err != nil {
		addUserWriteError(&resp.Diagnostics, "Unable To Create User", userid, err)
		return
	}
	if r.readBack(ctx, userid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// addUserWriteError explains PVE's refusals of a user write: an existing
// user is never taken over, and a missing group is named on groups.
func addUserWriteError(diags *diag.Diagnostics, summary, userid string, err error) {
	switch {
	case pveapi.IsUserExists(err):
		diags.AddAttributeError(path.Root("userid"), "User Already Exists", fmt.Sprintf(
			"User %s already exists in PVE, and pve_user does not take over users it did not create. "+
				"Import it instead (an import block with id = %q, or terraform import ADDRESS %s), "+
				"or choose another userid.\n\nPVE said: %s", userid, userid, userid, fwutil.APIErrorDetail(err)))
	case pveapi.IsNoSuchGroup(err):
		fwutil.AddAttributeAPIError(diags, path.Root("groups"), summary, err)
	case pveapi.IsNoSuchRealm(err):
		fwutil.AddAttributeAPIError(diags, path.Root("userid"), summary, err)
	default:
		fwutil.AddAPIError(diags, summary, err)
	}
}

func (r *userResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state userModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	user, err := r.client.GetUser(ctx, state.UserID.ValueString())
	if pveapi.IsNoSuchUser(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read User", err)
		return
	}
	state.fromAPI(user)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *userResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state userModel
	var password types.String
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &password)...)
	if resp.Diagnostics.HasError() {
		return
	}
	userid := plan.UserID.ValueString()
	if update, needed := userUpdate(ctx, state, plan, &resp.Diagnostics); needed && !resp.Diagnostics.HasError() {
		if err := r.client.UpdateUser(ctx, update); err != nil {
			addUserWriteError(&resp.Diagnostics, "Unable To Update User", userid, err)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if passwordChange(state, plan) {
		if err := r.client.SetUserPassword(ctx, userid, password.ValueString()); err != nil {
			// The settings are written; the password is not, so the old
			// version stays in state and the next apply tries again.
			plan.PasswordWOVersion = state.PasswordWOVersion
			addPasswordError(&resp.Diagnostics, userid, err)
		}
	}
	if r.readBack(ctx, userid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func addPasswordError(diags *diag.Diagnostics, userid string, err error) {
	if errors.Is(err, pveapi.ErrPasswordNeedsTicket) {
		diags.AddAttributeError(path.Root("password_wo_version"), "Password Change Needs A Password Login",
			"PVE refuses password changes to API tokens. Configure the provider with username and password "+
				"(a ticket login) to set the password of "+userid+" again.")
		return
	}
	fwutil.AddAttributeAPIError(diags, path.Root("password_wo_version"), "Unable To Set User Password", err)
}

// readBack reads the user after a write, so state holds what PVE keeps
// rather than what was sent.
func (r *userResource) readBack(ctx context.Context, userid string, m *userModel, diags *diag.Diagnostics) bool {
	user, err := r.client.GetUser(ctx, userid)
	if err != nil {
		if pveapi.IsNoSuchUser(err) {
			fwutil.AddVanishedAfterWrite(diags, "User", "User "+userid)
			return false
		}
		fwutil.AddAPIError(diags, "Unable To Read User After Writing It", err)
		return false
	}
	m.fromAPI(user)
	return true
}

func (r *userResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state userModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.client.DeleteUser(ctx, state.UserID.ValueString()); err != nil && !pveapi.IsNoSuchUser(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete User", err)
	}
}

func (r *userResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if problem := wire.UserIDProblem(req.ID); problem != "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_user by its user id, USER@REALM (for example alice@pve): "+problem+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("userid"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
