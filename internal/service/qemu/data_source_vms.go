package qemu

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guest"
)

var _ datasource.DataSourceWithConfigure = (*vmsDataSource)(nil)

// NewVMsDataSource is the pve_vms data source constructor.
func NewVMsDataSource() datasource.DataSource {
	return &vmsDataSource{}
}

type vmsDataSource struct {
	client *pveapi.Client
}

type vmsDataSourceModel struct {
	ID        types.String `tfsdk:"id"`
	Node      types.String `tfsdk:"node"`
	Tags      types.Set    `tfsdk:"tags"`
	NameRegex types.String `tfsdk:"name_regex"`
	Template  types.Bool   `tfsdk:"template"`
	VMIDs     []int64      `tfsdk:"vmids"`
	VMs       []vmSummary  `tfsdk:"vms"`
}

func (d *vmsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vms"
}

func (d *vmsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = guest.QEMU.ListSchema()
}

func (d *vmsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *vmsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model vmsDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	filter, diags := guest.QEMU.NewFilter(ctx, guest.FilterConfig{
		Node: model.Node, Tags: model.Tags, NameRegex: model.NameRegex, Template: model.Template,
	})
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	listing, ok := guest.ListGuests(ctx, d.client, &resp.Diagnostics)
	if !ok {
		return
	}

	selected := guest.QEMU.Select(listing, filter)
	model.ID = types.StringValue(guest.QEMU.ListAttribute())
	model.VMIDs = make([]int64, 0, len(selected))
	model.VMs = make([]vmSummary, 0, len(selected))
	for _, entry := range selected {
		model.VMIDs = append(model.VMIDs, int64(entry.VMID))
		model.VMs = append(model.VMs, vmSummaryOf(entry))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}
