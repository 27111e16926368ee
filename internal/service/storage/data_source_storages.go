package storage

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ datasource.DataSourceWithConfigure = (*storagesDataSource)(nil)

// contentTypes are PVE's storage content types.
var contentTypes = []string{"images", "rootdir", "iso", "vztmpl", "import", "backup", "snippets"}

// NewStoragesDataSource is the pve_storages constructor.
func NewStoragesDataSource() datasource.DataSource {
	return &storagesDataSource{}
}

type storagesDataSource struct {
	client *pveapi.Client
}

type storagesModel struct {
	ID       types.String   `tfsdk:"id"`
	Node     types.String   `tfsdk:"node"`
	Content  types.String   `tfsdk:"content"`
	Shared   types.Bool     `tfsdk:"shared"`
	Storages []storageEntry `tfsdk:"storages"`
}

type storageEntry struct {
	Storage   types.String `tfsdk:"storage"`
	Type      types.String `tfsdk:"type"`
	Content   []string     `tfsdk:"content"`
	Shared    types.Bool   `tfsdk:"shared"`
	Enabled   types.Bool   `tfsdk:"enabled"`
	Active    types.Bool   `tfsdk:"active"`
	Total     types.Int64  `tfsdk:"total"`
	Used      types.Int64  `tfsdk:"used"`
	Available types.Int64  `tfsdk:"available"`
}

func (d *storagesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_storages"
}

func (d *storagesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The storages one node can use, with their content types and space, sorted by id, " +
			"so a configuration can pick a storage (for example one that takes `iso` and has room) instead of naming one.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The node name.",
				Computed:            true,
			},
			"node": schema.StringAttribute{
				MarkdownDescription: "Node whose view of the storages to read: a node-local storage has its own space on every node.",
				Required:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsNodeName, "must be a PVE node name")},
			},
			"content": schema.StringAttribute{
				MarkdownDescription: "Only storages that take this content type (`images`, `rootdir`, `iso`, `vztmpl`, `import`, `backup`, `snippets`). " +
					"PVE then also leaves out storages that are disabled or not available on the node.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(contentTypes...)},
			},
			"shared": schema.BoolAttribute{
				MarkdownDescription: "Only shared storages (true) or only node-local ones (false).",
				Optional:            true,
			},
			"storages": schema.ListNestedAttribute{
				MarkdownDescription: "The matching storages, sorted by id.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"storage":   schema.StringAttribute{Computed: true, MarkdownDescription: "Storage id."},
						"type":      schema.StringAttribute{Computed: true, MarkdownDescription: "Storage type: `dir`, `lvmthin`, `nfs`, `zfspool`, ..."},
						"content":   schema.SetAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Content types the storage takes."},
						"shared":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether every node sees the same storage."},
						"enabled":   schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the storage is enabled and available on the node."},
						"active":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the storage is active (mounted, reachable) on the node."},
						"total":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Size in bytes; 0 when not active."},
						"used":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Bytes in use."},
						"available": schema.Int64Attribute{Computed: true, MarkdownDescription: "Bytes free."},
					},
				},
			},
		},
	}
}

func (d *storagesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

// Read is one request: the node's storage list, filtered by content in PVE
// and by shared here.
func (d *storagesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m storagesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var filter pveapi.StorageFilter
	if !m.Content.IsNull() {
		filter.Content = []string{m.Content.ValueString()}
	}
	list, err := d.client.Storages(ctx, m.Node.ValueString(), filter)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Storages", err)
		return
	}
	m.ID = m.Node
	m.Storages = storagesFromAPI(list, m.Shared)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// storagesFromAPI maps the list, keeping only the wanted sharing when
// shared is set.
func storagesFromAPI(list []pveapi.NodeStorage, shared types.Bool) []storageEntry {
	sorted := append([]pveapi.NodeStorage(nil), list...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Storage < sorted[j].Storage })
	out := []storageEntry{}
	for _, s := range sorted {
		if !shared.IsNull() && bool(s.Shared) != shared.ValueBool() {
			continue
		}
		content := s.ContentTypes()
		if content == nil {
			content = []string{}
		}
		out = append(out, storageEntry{
			Storage:   types.StringValue(s.Storage),
			Type:      types.StringValue(s.Type),
			Content:   content,
			Shared:    types.BoolValue(bool(s.Shared)),
			Enabled:   types.BoolValue(bool(s.Enabled)),
			Active:    types.BoolValue(bool(s.Active)),
			Total:     types.Int64Value(int64(s.Total)),
			Used:      types.Int64Value(int64(s.Used)),
			Available: types.Int64Value(int64(s.Avail)),
		})
	}
	return out
}
