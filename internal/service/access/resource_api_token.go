package access

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
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
	_ resource.Resource                = (*apiTokenResource)(nil)
	_ resource.ResourceWithConfigure   = (*apiTokenResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*apiTokenResource)(nil)
	_ resource.ResourceWithImportState = (*apiTokenResource)(nil)
)

// NewAPITokenResource is the pve_api_token constructor registered with the
// provider.
func NewAPITokenResource() resource.Resource {
	return fwutil.WithIdentity(&apiTokenResource{}, apiTokenIdentity)
}

// apiTokenIdentity is a token's key: its user and name, the parts of its
// import id USER@REALM!NAME.
var apiTokenIdentity = fwutil.Identity{
	Attributes: []fwutil.IdentityAttribute{
		{Name: "userid", Description: "The id of the user the token belongs to, as `userid` (for example `automation@pve`)."},
		{Name: "token_name", Description: "The token's name, as `token_name` (for example `terraform`)."},
	},
	ImportID: func(v map[string]string) string { return v["userid"] + "!" + v["token_name"] },
}

type apiTokenResource struct {
	client *pveapi.Client
}

func (r *apiTokenResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_api_token"
}

func (r *apiTokenResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An API token of a PVE user. PVE shows a token's secret once, when it creates the token " +
			"(or regenerates its secret); this resource keeps it in the Terraform state as the sensitive `value` " +
			"(and `api_token`), so that other resources and outputs can use it. **Anyone who can read the state can " +
			"read the secret**: keep the state in an encrypted backend with restricted access." +
			"\n\n**Changes that replace the token:** `userid`, `token_name`; `secret_version` where PVE cannot " +
			"regenerate a secret in place (see the attribute).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The full token id, `USER@REALM!NAME`, as PVE's ACLs and the `api_token` provider setting name it.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"userid": schema.StringAttribute{
				MarkdownDescription: "The user that owns the token, `USER@REALM` (e.g. `automation@pve`). The user must exist. " +
					"Changing it replaces the token.",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{fwutil.Problem(wire.UserIDProblem, "must be USER@REALM")},
			},
			"token_name": schema.StringAttribute{
				MarkdownDescription: "The token's name, the part after `!`: a letter, then letters, digits, `.`, `-` or `_` " +
					"(at least 2 characters). Changing it replaces the token.",
				Required:      true,
				PlanModifiers: replace,
				Validators:    []validator.String{fwutil.Problem(wire.TokenNameProblem, "a letter, then letters, digits, '.', '-' or '_'")},
			},
			"comment": schema.StringAttribute{
				MarkdownDescription: "Free-text comment. Removing it from the configuration removes it from PVE in place from " +
					"PVE 9.0.13 on; earlier releases (PVE 8.4) cannot remove a token's comment, so there the plan refuses it " +
					"unless the token is recreated in the same apply (change `secret_version`).",
				Optional:   true,
				Validators: []validator.String{fwutil.Problem(commentProblem, "a comment other than \"\" or \"0\"")},
			},
			"expire": schema.StringAttribute{
				MarkdownDescription: "When the token stops working, as an RFC 3339 timestamp in whole seconds " +
					"(e.g. `2030-01-01T00:00:00Z`). Leave it out for a token that does not expire on its own; it still " +
					"stops working when its user expires or is disabled. PVE keeps epoch seconds: after an import the " +
					"expiry reads back in UTC (`Z`).",
				CustomType: timetypes.RFC3339Type{},
				Optional:   true,
				Validators: []validator.String{fwutil.Problem(expireProblem, "an RFC 3339 timestamp in whole seconds after 1970")},
			},
			"privilege_separation": schema.BoolAttribute{
				MarkdownDescription: "Whether the token is limited to the privileges its own ACL entries grant (always " +
					"within its user's privileges); `false` gives it all of its user's privileges. Defaults to `true`, " +
					"as in PVE. Changes in place.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			"secret_version": schema.StringAttribute{
				MarkdownDescription: "Any value (a number or a string). Changing it, setting it or removing it gives the " +
					"token a new secret, and the old secret stops working: rotation. On PVE 9.1.14 and later (and 9.2) the " +
					"secret is regenerated in place, and the token keeps its ACL entries. Earlier releases cannot " +
					"regenerate a secret, so there the token is replaced: deleted and created again with a new secret; " +
					"PVE deletes a token's ACL entries with it, so ACL resources for the token should be replaced with " +
					"it (`lifecycle { replace_triggered_by = [pve_api_token.NAME] }`) or are recreated by the next apply. " +
					"The plan shows which one happens.",
				Optional: true,
			},
			"allow_self_lockout": schema.BoolAttribute{
				MarkdownDescription: "The provider refuses at plan time to destroy, replace or rotate the token it " +
					"authenticates with itself, or to turn on its privilege separation, since the apply would cut off " +
					"its own access. Set to `true` (and apply) to allow it. Defaults to `false`.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"value": schema.StringAttribute{
				MarkdownDescription: "The token's secret (a UUID), sensitive. PVE shows it only when it creates the token or " +
					"regenerates its secret, so it is kept in the state from then on; it is null after an import, since PVE " +
					"cannot give it again (change `secret_version` to get a new one).",
				Computed:      true,
				Sensitive:     true,
				PlanModifiers: keep,
			},
			"api_token": schema.StringAttribute{
				MarkdownDescription: "The whole token, `USER@REALM!NAME=SECRET`, as the provider's `api_token` setting and " +
					"`PVE_API_TOKEN` take it, sensitive. Null when `value` is.",
				Computed:      true,
				Sensitive:     true,
				PlanModifiers: keep,
			},
		},
	}
}

func (r *apiTokenResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

func (r *apiTokenResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan apiTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	create, err := plan.toCreate()
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("expire"), "Invalid Expiry", err.Error())
		return
	}

	created, err := r.client.CreateToken(ctx, create)
	switch {
	case err == nil:
	case pveapi.IsTokenExists(err):
		resp.Diagnostics.AddAttributeError(path.Root("token_name"), "API Token Already Exists", fmt.Sprintf(
			"PVE already has the API token %s. The provider does not take over a token it did not create (and PVE "+
				"cannot show its secret again). Import it to manage it: terraform import ADDRESS %s, or an import block "+
				"with id = %q; or choose another token_name.", plan.tokenID(), plan.tokenID(), plan.tokenID()))
		return
	case r.userMissing(ctx, err, create.UserID):
		resp.Diagnostics.AddAttributeError(path.Root("userid"), "User Does Not Exist", fmt.Sprintf(
			"PVE has no user %s to create the API token for. Create the user first (pve_user, and refer to its userid "+
				"so the token waits for it).", plan.UserID.ValueString()))
		return
	default:
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("token_name"), "Unable To Create API Token", err)
		return
	}
	// The secret exists nowhere else now: it goes to the state at once,
	// with the settings PVE answered with.
	plan.setSecret(created.Value)
	plan.fromAPI(created.Info)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *apiTokenResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state apiTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	token, err := r.client.GetToken(ctx, state.UserID.ValueString(), state.TokenName.ValueString())
	switch {
	case err == nil:
	case pveapi.IsNoSuchToken(err) || r.userMissing(ctx, err, state.UserID.ValueString()):
		// Deleted outside Terraform, alone or with its user: the next
		// plan creates it again.
		resp.State.RemoveResource(ctx)
		return
	default:
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read API Token", err)
		return
	}
	state.fromAPI(*token)
	if state.AllowSelfLockout.IsNull() {
		state.AllowSelfLockout = types.BoolValue(false)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *apiTokenResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state apiTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A changed secret_version reaches Update only where the plan found
	// that PVE regenerates secrets in place (ModifyPlan); elsewhere it
	// replaces the token.
	regenerate := !plan.SecretVersion.Equal(state.SecretVersion)
	update, needed, err := tokenUpdate(state, plan, regenerate)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("expire"), "Invalid Expiry", err.Error())
		return
	}
	if !needed {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return
	}
	answer, err := r.client.UpdateToken(ctx, update)
	if err != nil {
		attr := path.Root("comment")
		if regenerate {
			attr = path.Root("secret_version")
		}
		fwutil.AddAttributeAPIError(&resp.Diagnostics, attr, "Unable To Update API Token", err)
		return
	}
	if regenerate {
		if answer.Value == "" {
			resp.Diagnostics.AddAttributeError(path.Root("secret_version"), "No New Secret",
				"PVE accepted the request to regenerate the secret of "+plan.tokenID()+" but answered no secret. "+
					"Change secret_version again to ask for a new one.")
			return
		}
		plan.setSecret(answer.Value)
	}
	// The settings are read back, so the state holds what PVE keeps. A new
	// secret is saved even when that read fails: it exists nowhere else.
	token, err := r.client.GetToken(ctx, plan.UserID.ValueString(), plan.TokenName.ValueString())
	if err != nil {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read API Token After Updating It", err)
		return
	}
	plan.fromAPI(*token)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *apiTokenResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state apiTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A token that is already gone, or whose user is, is what Delete wants.
	err := r.client.DeleteToken(ctx, state.UserID.ValueString(), state.TokenName.ValueString())
	if err != nil && !pveapi.IsNoSuchToken(err) && !r.userMissing(ctx, err, state.UserID.ValueString()) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete API Token", err)
	}
}

// ImportState takes USER@REALM!NAME. PVE cannot show the secret again, so
// value and api_token stay null.
func (r *apiTokenResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	userid, name, ok := wire.SplitTokenID(req.ID)
	if !ok {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_api_token by its full token id USER@REALM!NAME (for example automation@pve!terraform): "+
				wire.TokenIDProblem(req.ID)+".")
		return
	}
	for attr, value := range map[string]string{"id": req.ID, "userid": userid, "token_name": name} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), value)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("allow_self_lockout"), false)...)
}

// userMissing tells whether a token call failed because the token's user
// does not exist. PVE says so only to root@pam: every other caller, API
// tokens included, gets a bare "Permission check failed" (403), since the
// token methods check ['or', ['userid-param', 'self'], ['userid-group',
// ['User.Modify']]] and the 'or' runs the user's existence check without
// an error (pve-access-control src/PVE/RPCEnvironment.pm
// exec_api2_perm_check). Reading the user, whose check is not in an 'or',
// then answers "no such user".
func (r *apiTokenResource) userMissing(ctx context.Context, err error, userid string) bool {
	if pveapi.IsNoSuchUser(err) {
		return true
	}
	if _, _, denied := pveapi.IsPermission(err); !denied {
		return false
	}
	_, userErr := r.client.GetUser(ctx, userid)
	return pveapi.IsNoSuchUser(userErr)
}

// pveVersion is the connected node's pve-manager version, asked once per
// provider configuration.
func (r *apiTokenResource) pveVersion(ctx context.Context, diags *diag.Diagnostics) (string, bool) {
	v, err := fwutil.PVEVersion(ctx, r.client)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read PVE Version", err)
		return "", false
	}
	return v.Version, true
}
