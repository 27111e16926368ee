package qemu

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
	_ datasource.DataSourceWithConfigure        = (*vmDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*vmDataSource)(nil)
)

// NewVMDataSource is the pve_vm data source constructor.
func NewVMDataSource() datasource.DataSource {
	return &vmDataSource{}
}

type vmDataSource struct {
	client *pveapi.Client
}

type vmDataSourceModel struct {
	ID types.String `tfsdk:"id"`
	vmSummary
}

// vmSummary is one VM as the cluster listing describes it. pve_vm embeds
// it; pve_vms lists it.
type vmSummary struct {
	Name types.String `tfsdk:"name"`
	guest.Summary
}

func vmSummaryOf(entry pveapi.Resource) vmSummary {
	return vmSummary{Name: guest.NameOf(entry), Summary: guest.SummaryOf(entry)}
}

func (d *vmDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vm"
}

func (d *vmDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = guest.QEMU.LookupSchema()
}

func (d *vmDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return guest.QEMU.LookupConfigValidators()
}

func (d *vmDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *vmDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config vmDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	entry, ok := guest.QEMU.Lookup(ctx, d.client, config.VMID, config.Name, &resp.Diagnostics)
	if !ok {
		return
	}
	state := vmDataSourceModel{
		ID:        types.StringValue(strconv.Itoa(entry.VMID.Int())),
		vmSummary: vmSummaryOf(entry),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
