package access

import (
	"context"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ datasource.DataSourceWithConfigure = (*permissionsDataSource)(nil)

// NewPermissionsDataSource is the pve_permissions constructor.
func NewPermissionsDataSource() datasource.DataSource {
	return &permissionsDataSource{}
}

type permissionsDataSource struct {
	client *pveapi.Client
}

type permissionsModel struct {
	ID          types.String `tfsdk:"id"`
	UserID      types.String `tfsdk:"userid"`
	Path        types.String `tfsdk:"path"`
	Permissions types.Map    `tfsdk:"permissions"`
	Propagating types.Map    `tfsdk:"propagating"`
}

var privilegeSetType = types.SetType{ElemType: types.StringType}

func (d *permissionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_permissions"
}

func (d *permissionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The effective privileges of a user or API token, as PVE computes them from ACL entries, groups, roles and pools " +
			"(`GET /access/permissions`). Reading another identity's needs `Sys.Audit` on `/access`, except for the provider's own tokens.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`USERID` or `USERID|PATH`.",
				Computed:            true,
			},
			"userid": schema.StringAttribute{
				MarkdownDescription: "The user (`USER@REALM`) or API token (`USER@REALM!TOKEN`) to read. Left out, the identity the provider runs as.",
				Optional:            true,
				Computed:            true,
				Validators:          []validator.String{wireProblemValidator("User Or Token ID", userOrTokenProblem)},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "Only this ACL path, e.g. `/vms/100`: the privileges held there, inherited ones included. " +
					"Left out, every path on which the identity holds privileges.",
				Optional:   true,
				Validators: []validator.String{wireProblemValidator("ACL Path", normalizedACLPathProblem)},
			},
			"permissions": schema.MapAttribute{
				MarkdownDescription: "Path to the set of privileges held on it.",
				ElementType:         privilegeSetType,
				Computed:            true,
			},
			"propagating": schema.MapAttribute{
				MarkdownDescription: "Path to the privileges of `permissions` that also apply below the path (those granted with propagation).",
				ElementType:         privilegeSetType,
				Computed:            true,
			},
		},
	}
}

func userOrTokenProblem(id string) string {
	if strings.Contains(id, "!") {
		return wire.TokenIDProblem(id)
	}
	return wire.UserIDProblem(id)
}

func (d *permissionsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *permissionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config permissionsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state := config
	if config.UserID.IsNull() {
		state.UserID = types.StringValue(d.client.Principal())
	}
	userid, aclPath := state.UserID.ValueString(), config.Path.ValueString()
	perms, err := d.client.GetPermissions(ctx, userid, aclPath)
	if err != nil {
		attrPath := path.Root("userid")
		if pveapi.IsNoSuchUser(err) || pveapi.IsNoSuchToken(err) {
			fwutil.AddAttributeAPIError(&resp.Diagnostics, attrPath, "Unable To Read Permissions", err)
			return
		}
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Permissions", err)
		return
	}
	state.ID = types.StringValue(userid)
	if aclPath != "" {
		state.ID = types.StringValue(userid + "|" + aclPath)
	}
	var diags diag.Diagnostics
	state.Permissions, state.Propagating, diags = permissionMaps(perms)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// permissionMaps splits PVE's path -> privilege -> propagates into the
// privileges held and those that propagate, per path.
func permissionMaps(perms pveapi.Permissions) (held, propagating types.Map, diags diag.Diagnostics) {
	heldValues := make(map[string]attr.Value, len(perms))
	propagatingValues := make(map[string]attr.Value, len(perms))
	for p, privs := range perms {
		all := make([]string, 0, len(privs))
		var down []string
		for priv, propagates := range privs {
			all = append(all, priv)
			if propagates {
				down = append(down, priv)
			}
		}
		sort.Strings(down)
		set, d := stringSet(all)
		diags.Append(d...)
		heldValues[p] = set
		set, d = stringSet(down)
		diags.Append(d...)
		propagatingValues[p] = set
	}
	held, d := types.MapValue(privilegeSetType, heldValues)
	diags.Append(d...)
	propagating, d = types.MapValue(privilegeSetType, propagatingValues)
	diags.Append(d...)
	return held, propagating, diags
}
