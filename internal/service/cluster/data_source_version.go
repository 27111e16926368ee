// Package cluster serves the cluster-wide data sources: pve_version and
// pve_nodes.
package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*versionDataSource)(nil)

// NewVersionDataSource is the pve_version constructor.
func NewVersionDataSource() datasource.DataSource {
	return &versionDataSource{}
}

type versionDataSource struct {
	client *pveapi.Client
}

type versionModel struct {
	ID      types.String `tfsdk:"id"`
	Version types.String `tfsdk:"version"`
	Release types.String `tfsdk:"release"`
	RepoID  types.String `tfsdk:"repoid"`
}

func (d *versionDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_version"
}

func (d *versionDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The PVE version of the node the provider talks to.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `version`.",
				Computed:            true,
			},
			"version": schema.StringAttribute{
				MarkdownDescription: "Full pve-manager package version, e.g. `9.1.4`.",
				Computed:            true,
			},
			"release": schema.StringAttribute{
				MarkdownDescription: "Point release in `x.y` form, e.g. `9.1`.",
				Computed:            true,
			},
			"repoid": schema.StringAttribute{
				MarkdownDescription: "Short git revision the packages were built from.",
				Computed:            true,
			},
		},
	}
}

func (d *versionDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *versionDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	v, err := d.client.Version(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read PVE Version", err)
		return
	}
	state := versionModel{
		ID:      types.StringValue("version"),
		Version: types.StringValue(v.Version),
		Release: types.StringValue(v.Release),
		RepoID:  types.StringValue(v.RepoID),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
