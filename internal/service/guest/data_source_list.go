package guest

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

var _ datasource.DataSourceWithConfigure = (*listDataSource)(nil)

// ListDataSource is the constructor of the data source that lists the
// guests of the kind, optionally filtered: pve_vms for guestops.VM,
// pve_containers for guestops.Container.
func ListDataSource(kind guestops.Kind) func() datasource.DataSource {
	base := newDataSource(kind)
	return func() datasource.DataSource {
		return &listDataSource{dataSource: base}
	}
}

type listDataSource struct{ dataSource }

func (d *listDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.ListAttribute()
}

func (d *listDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.ListSchema()
}

// Read reads the filters by path, since the name filter's attribute
// differs by kind. The state starts as the configuration, so the filters
// keep their configured values; Read sets the computed attributes.
func (d *listDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg FilterConfig
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node"), &cfg.Node)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("tags"), &cfg.Tags)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(d.kind.RegexAttribute()), &cfg.NameRegex)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("template"), &cfg.Template)...)
	if resp.Diagnostics.HasError() {
		return
	}
	filter, diags := d.kind.NewFilter(ctx, cfg)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	listing, ok := ListGuests(ctx, d.client, &resp.Diagnostics)
	if !ok {
		return
	}

	selected := d.kind.Select(listing, filter)
	attrTypes := d.kind.summaryAttrTypes()
	vmids := make([]int64, 0, len(selected))
	guests := make([]attr.Value, 0, len(selected))
	for _, entry := range selected {
		vmids = append(vmids, int64(entry.VMID))
		summary, diags := d.kind.summaryObject(entry, attrTypes)
		resp.Diagnostics.Append(diags...)
		guests = append(guests, summary)
	}
	list, diags := types.ListValue(types.ObjectType{AttrTypes: attrTypes}, guests)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), types.StringValue(d.kind.ListAttribute()))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmids"), vmids)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(d.kind.ListAttribute()), list)...)
}
