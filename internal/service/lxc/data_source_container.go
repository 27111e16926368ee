package lxc

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guest"
)

var (
	_ datasource.DataSourceWithConfigure        = (*containerDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*containerDataSource)(nil)
)

// NewContainerDataSource is the pve_container data source constructor.
func NewContainerDataSource() datasource.DataSource {
	return &containerDataSource{}
}

type containerDataSource struct {
	client *pveapi.Client
}

type containerDataSourceModel struct {
	ID types.String `tfsdk:"id"`
	containerSummary
}

// containerSummary is one container as the cluster listing describes it.
// pve_container embeds it; pve_containers lists it.
type containerSummary struct {
	Hostname types.String `tfsdk:"hostname"`
	guest.Summary
}

func containerSummaryOf(entry pveapi.Resource) containerSummary {
	return containerSummary{Hostname: guest.NameOf(entry), Summary: guest.SummaryOf(entry)}
}

func (d *containerDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_container"
}

func (d *containerDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = guest.LXC.LookupSchema()
}

func (d *containerDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return guest.LXC.LookupConfigValidators()
}

func (d *containerDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *containerDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config containerDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	entry, ok := guest.LXC.Lookup(ctx, d.client, config.VMID, config.Hostname, &resp.Diagnostics)
	if !ok {
		return
	}
	state := containerDataSourceModel{
		ID:               types.StringValue(strconv.Itoa(entry.VMID.Int())),
		containerSummary: containerSummaryOf(entry),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
