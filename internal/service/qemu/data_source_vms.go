package qemu

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
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
	resp.Schema = schema.Schema{
		MarkdownDescription: "The QEMU VMs of the cluster, optionally filtered, sorted by vmid. " +
			"Reads the cluster listing once (`GET /cluster/resources`), whatever the cluster's size; containers are never included.\n\n" +
			"A VM that is being created or cloned has no details yet (null `name`, `tags`, `template`, `memory` and `cpus`, `status` `unknown`, " +
			"`lock` set). It is listed when only `node` filters the result, and left out when `tags`, `name_regex` or `template` is set, " +
			"since those filters cannot be evaluated for it yet.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Always `vms`.",
			},
			"node": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only VMs on this node.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"tags": schema.SetAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Only VMs that carry all of these tags. Compared in PVE's normalised form, so `Web` matches a VM tagged `web`.",
				Validators:          []validator.Set{setvalidator.ValueStringsAre(tagValidator{})},
			},
			"name_regex": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Only VMs whose name matches this RE2 regular expression. The match is unanchored: " +
					"use `^web-` for a prefix, `^web-1$` for an exact name.",
				Validators: []validator.String{regexValidator{}},
			},
			"template": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "`true`: only templates; `false`: only VMs that are not templates. Unset: both.",
			},
			"vmids": schema.ListAttribute{
				Computed:            true,
				ElementType:         types.Int64Type,
				MarkdownDescription: "The vmids of the selected VMs, ascending.",
			},
			"vms": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The selected VMs, sorted by vmid.",
				NestedObject:        schema.NestedAttributeObject{Attributes: summaryAttributes()},
			},
		},
	}
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
	filter, ok := filterFromConfig(ctx, model, resp)
	if !ok {
		return
	}

	listing, err := d.client.ClusterResources(ctx, "vm")
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List PVE Guests", err)
		return
	}

	selected := selectVMs(listing, filter)
	model.ID = types.StringValue("vms")
	model.VMIDs = make([]int64, 0, len(selected))
	model.VMs = make([]vmSummary, 0, len(selected))
	for _, entry := range selected {
		model.VMIDs = append(model.VMIDs, int64(entry.VMID))
		model.VMs = append(model.VMs, summaryFromListing(entry))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
}

// filterFromConfig builds the filter. The validators have already refused
// bad tags and patterns at plan time; the checks here only guard against a
// value that was unknown then.
func filterFromConfig(ctx context.Context, model vmsDataSourceModel, resp *datasource.ReadResponse) (vmFilter, bool) {
	var filter vmFilter
	filter.node = model.Node.ValueString()

	if !model.Tags.IsNull() {
		var tags []string
		resp.Diagnostics.Append(model.Tags.ElementsAs(ctx, &tags, false)...)
		if resp.Diagnostics.HasError() {
			return filter, false
		}
		normalised, err := wire.NormalizeTags(tags)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("tags"), "Invalid Tag", err.Error())
			return filter, false
		}
		filter.tags = normalised
	}

	if !model.NameRegex.IsNull() {
		re, err := regexp.Compile(model.NameRegex.ValueString())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("name_regex"), "Invalid Regular Expression", err.Error())
			return filter, false
		}
		filter.nameRegex = re
	}

	if !model.Template.IsNull() {
		template := model.Template.ValueBool()
		filter.template = &template
	}
	return filter, true
}
