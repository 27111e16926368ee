package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guest"
)

var _ datasource.DataSourceWithConfigure = (*containersDataSource)(nil)

// NewContainersDataSource is the pve_containers data source constructor.
func NewContainersDataSource() datasource.DataSource {
	return &containersDataSource{}
}

type containersDataSource struct {
	client *pveapi.Client
}

type containersDataSourceModel struct {
	ID            types.String       `tfsdk:"id"`
	Node          types.String       `tfsdk:"node"`
	Tags          types.Set          `tfsdk:"tags"`
	HostnameRegex types.String       `tfsdk:"hostname_regex"`
	Template      types.Bool         `tfsdk:"template"`
	VMIDs         []int64            `tfsdk:"vmids"`
	Containers    []containerSummary `tfsdk:"containers"`
}

func (d *containersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_containers"
}

func (d *containersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = guest.LXC.ListSchema()
}

func (d *containersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *containersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model containersDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	filter, diags := guest.LXC.NewFilter(ctx, guest.FilterConfig{
		Node: model.Node, Tags: model.Tags, NameRegex: model.HostnameRegex, Template: model.Template,
	})
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	listing, ok := guest.ListGuests(ctx, d.client, &resp.Diagnostics)
	if !ok {
		return
	}

	selected := guest.LXC.Select(listing, filter)
	model.ID = types.StringValue(guest.LXC.ListAttribute())
	model.VMIDs = make([]int64, 0, len(selected))
	model.Containers = make([]containerSummary, 0, len(selected))
	for _, entry := range selected {
		model.VMIDs = append(model.VMIDs, int64(entry.VMID))
		model.Containers = append(model.Containers, containerSummaryOf(entry))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}
