package qemu

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ datasource.DataSourceWithConfigure        = (*vmDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*vmDataSource)(nil)
)

// PVE's pve-vmid format.
const (
	minVMID = 100
	maxVMID = 999999999
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

func (d *vmDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vm"
}

func (d *vmDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := summaryAttributes()
	attrs["id"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "The VMID as a string.",
	}
	attrs["vmid"] = schema.Int64Attribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: "The VMID to look up. Exactly one of `vmid` and `name` must be set.",
		Validators:          []validator.Int64{int64validator.Between(minVMID, maxVMID)},
	}
	attrs["name"] = schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: "The exact name to look up. Exactly one of `vmid` and `name` must be set. PVE does not require names to be unique: when several VMs share the name the lookup fails and lists them.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One QEMU VM anywhere in the cluster, looked up by `vmid` or by `name`. " +
			"Reads the cluster listing once (`GET /cluster/resources`), whatever the cluster's size. " +
			"A VM that is still being created or cloned has no details yet: looking it up by vmid fails with an error saying so.",
		Attributes: attrs,
	}
}

func (d *vmDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("vmid"), path.MatchRoot("name")),
	}
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

	listing, err := d.client.ClusterResources(ctx, "vm")
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List PVE Guests", err)
		return
	}

	var (
		entry     pveapi.Resource
		lookupErr *lookupError
		attrPath  path.Path
	)
	if !config.VMID.IsNull() {
		attrPath = path.Root("vmid")
		entry, lookupErr = findVMByID(listing, config.VMID.ValueInt64())
	} else {
		attrPath = path.Root("name")
		entry, lookupErr = findVMByName(listing, config.Name.ValueString())
	}
	if lookupErr != nil {
		resp.Diagnostics.AddAttributeError(attrPath, lookupErr.summary, lookupErr.detail)
		return
	}

	state := vmDataSourceModel{
		ID:        types.StringValue(strconv.FormatInt(int64(entry.VMID), 10)),
		vmSummary: summaryFromListing(entry),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}
