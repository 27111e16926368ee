package access

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*rolesDataSource)(nil)

// NewRolesDataSource is the pve_roles constructor.
func NewRolesDataSource() datasource.DataSource {
	return &rolesDataSource{}
}

type rolesDataSource struct {
	client *pveapi.Client
}

type rolesModel struct {
	ID        types.String `tfsdk:"id"`
	Builtin   types.Bool   `tfsdk:"builtin"`
	Privilege types.String `tfsdk:"privilege"`
	Roles     types.Map    `tfsdk:"roles"`
}

var roleEntryType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"privileges": types.SetType{ElemType: types.StringType},
	"builtin":    types.BoolType,
}}

func (d *rolesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_roles"
}

func (d *rolesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The PVE roles, built-in and custom, with their privileges. Built-in roles (`Administrator`, `PVEAdmin`, `PVEVMUser`, ...) " +
			"cannot be managed with `pve_role`, but can be granted with `pve_acl` as they are; their privileges depend on the PVE release.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `roles`.",
				Computed:            true,
			},
			"builtin": schema.BoolAttribute{
				MarkdownDescription: "Only PVE's built-in roles (`true`) or only custom roles (`false`). Left out, both.",
				Optional:            true,
			},
			"privilege": schema.StringAttribute{
				MarkdownDescription: "Only roles that hold this privilege, e.g. `VM.PowerMgmt`.",
				Optional:            true,
				Validators:          []validator.String{wireProblemValidator("Privilege", nonEmptyProblem)},
			},
			"roles": schema.MapNestedAttribute{
				MarkdownDescription: "The roles, by role id.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"privileges": schema.SetAttribute{
							MarkdownDescription: "The role's privileges.",
							ElementType:         types.StringType,
							Computed:            true,
						},
						"builtin": schema.BoolAttribute{
							MarkdownDescription: "Whether the role is one of PVE's built-in roles.",
							Computed:            true,
						},
					},
				},
			},
		},
	}
}

func nonEmptyProblem(s string) string {
	if s == "" {
		return "must not be empty"
	}
	return ""
}

func (d *rolesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *rolesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config rolesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	roles, err := d.client.Roles(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Roles", err)
		return
	}
	entries := map[string]attr.Value{}
	for _, role := range roles {
		if !config.Builtin.IsNull() && config.Builtin.ValueBool() != bool(role.Special) {
			continue
		}
		if !config.Privilege.IsNull() && !slices.Contains(role.Privs, config.Privilege.ValueString()) {
			continue
		}
		privs, diags := stringSet(role.Privs)
		resp.Diagnostics.Append(diags...)
		entry, diags := types.ObjectValue(roleEntryType.AttrTypes, map[string]attr.Value{
			"privileges": privs,
			"builtin":    types.BoolValue(bool(role.Special)),
		})
		resp.Diagnostics.Append(diags...)
		entries[role.RoleID] = entry
	}
	if resp.Diagnostics.HasError() {
		return
	}
	state := config
	state.ID = types.StringValue("roles")
	m, diags := types.MapValue(roleEntryType, entries)
	resp.Diagnostics.Append(diags...)
	state.Roles = m
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
