package access

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*providerPrivilegesDataSource)(nil)

// NewProviderPrivilegesDataSource is the pve_provider_privileges constructor.
func NewProviderPrivilegesDataSource() datasource.DataSource {
	return &providerPrivilegesDataSource{}
}

type providerPrivilegesDataSource struct {
	client *pveapi.Client
}

type providerPrivilegesModel struct {
	ID         types.String `tfsdk:"id"`
	Features   types.Set    `tfsdk:"features"`
	PVEVersion types.String `tfsdk:"pve_version"`
	Release    types.String `tfsdk:"release"`
	Privileges []string     `tfsdk:"privileges"`
	Grants     []grantModel `tfsdk:"grants"`
}

type grantModel struct {
	Path       string   `tfsdk:"path"`
	Privileges []string `tfsdk:"privileges"`
}

func (d *providerPrivilegesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_provider_privileges"
}

func (d *providerPrivilegesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The PVE privileges this provider needs for a set of its features, on the PVE release it talks to " +
			"(or the one given in `pve_version`). Use it to create the provider's own least-privilege role: " +
			"`pve_role` with `privileges = data.pve_provider_privileges.NAME.privileges`, granted by ACLs on `/` or, " +
			"to confine the token, on the narrower paths `grants` lists. The features and what each needs are listed in " +
			"the provider documentation, section \"Privileges for an API token\".",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The release and the features computed, e.g. `9:read,vm`.",
				Computed:            true,
			},
			"features": schema.SetAttribute{
				MarkdownDescription: "Provider features to compute the privileges of: " + quoteCodeList(FeatureNames()) + ". " +
					"`read` is always included. Left out, every feature except those that need more trust than guests and " +
					"storages (" + quoteCodeList(nonDefaultFeatureNames()) + "); the value then lists the features used.",
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(stringvalidator.OneOf(FeatureNames()...)),
				},
			},
			"pve_version": schema.StringAttribute{
				MarkdownDescription: "PVE release to compute for: `8.4` or `9` (a 9.x release such as `9.1` counts as `9`). " +
					"Left out, the release of the PVE node the provider talks to.",
				Optional: true,
				Validators: []validator.String{
					fwutil.Format(func(s string) bool { _, err := ReleaseOf(s); return err == nil },
						`must be "8.4" or "9" (or a 9.x release such as "9.1")`),
				},
			},
			"release": schema.StringAttribute{
				MarkdownDescription: "The release the privileges were computed for: `8.4` or `9`.",
				Computed:            true,
			},
			"privileges": schema.SetAttribute{
				MarkdownDescription: "Every privilege the features need, on any path: the privileges of the provider's role.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"grants": schema.ListNestedAttribute{
				MarkdownDescription: "The privileges per ACL path, sorted by path. Paths hold placeholders for what a configuration " +
					"decides, such as `/vms/{vmid}`, `/storage/{storage}`, `/nodes/{node}` or `/sdn/zones/{zone}/{bridge}`. " +
					"PVE privileges granted on a path apply below it; privileges on `/vms/{vmid}` can also be granted on a pool " +
					"(`/pool/{pool}`) for its guests.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"path": schema.StringAttribute{
							MarkdownDescription: "ACL path, with placeholders in braces.",
							Computed:            true,
						},
						"privileges": schema.SetAttribute{
							MarkdownDescription: "Privileges needed on the path.",
							ElementType:         types.StringType,
							Computed:            true,
						},
					},
				},
			},
		},
	}
}

func (d *providerPrivilegesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *providerPrivilegesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config providerPrivilegesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}

	features := DefaultFeatureNames()
	if !config.Features.IsNull() {
		features = nil
		resp.Diagnostics.Append(config.Features.ElementsAs(ctx, &features, false)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}

	release, ok := d.release(ctx, config.PVEVersion, resp)
	if !ok {
		return
	}
	result, err := Compute(release, features)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("features"), "Unknown Provider Feature", err.Error())
		return
	}

	state := config
	state.ID = types.StringValue(string(release) + ":" + strings.Join(result.Features, ","))
	state.Release = types.StringValue(string(release))
	if config.Features.IsNull() {
		featureSet, diags := types.SetValueFrom(ctx, types.StringType, result.Features)
		resp.Diagnostics.Append(diags...)
		state.Features = featureSet
	}
	state.Privileges = result.Privileges
	state.Grants = make([]grantModel, len(result.Grants))
	for i, g := range result.Grants {
		state.Grants[i] = grantModel(g)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// release is pve_version when set, otherwise the release of the PVE node
// the provider talks to.
func (d *providerPrivilegesDataSource) release(ctx context.Context, configured types.String, resp *datasource.ReadResponse) (Release, bool) {
	if !configured.IsNull() {
		release, err := ReleaseOf(configured.ValueString())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("pve_version"), "Unsupported PVE Release", err.Error())
			return "", false
		}
		return release, true
	}
	v, err := fwutil.PVEVersion(ctx, d.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read PVE Version", err)
		return "", false
	}
	release, err := ReleaseOf(v.Release)
	if err != nil {
		resp.Diagnostics.AddError("Unsupported PVE Release",
			err.Error()+". Set pve_version to compute the privileges of a supported release.")
		return "", false
	}
	return release, true
}

func nonDefaultFeatureNames() []string {
	var out []string
	for _, f := range Features {
		if !f.Default {
			out = append(out, f.Name)
		}
	}
	return out
}

func quoteCodeList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
