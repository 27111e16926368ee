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

// storageTypeNames are the storage types PVE lists (GET /storage's type
// enum): the 14 of the type table, and glusterfs, which PVE 8.4 still has.
func storageTypeNames() []string {
	out := make([]string, 0, len(wire.StorageTypes)+1)
	for _, t := range wire.StorageTypes {
		out = append(out, t.Name)
	}
	return append(out, "glusterfs")
}

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
	Type     types.String   `tfsdk:"type"`
	Content  types.String   `tfsdk:"content"`
	Shared   types.Bool     `tfsdk:"shared"`
	Storages []storageEntry `tfsdk:"storages"`
}

func (d *storagesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_storages"
}

func (d *storagesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The storages of the cluster, sorted by id. Without `node`, the storage definitions " +
			"(Datacenter → Storage, the datacenter's storage.cfg): type, content types, node restriction and where the " +
			"storage lives. With `node`, the storages that node can use, with their status and space as well, so a " +
			"configuration can pick a storage (for example one that takes `iso` and has room) instead of naming one. " +
			"Passwords, keyrings and keys are never shown: PVE does not return them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The node name, or `storages` without `node`.",
				Computed:            true,
			},
			"node": schema.StringAttribute{
				MarkdownDescription: "Node whose view of the storages to read: a node-local storage has its own space on every node. " +
					"Without it, every storage definition is listed, whatever node it is available on, without status.",
				Optional:   true,
				Validators: []validator.String{fwutil.Format(wire.IsNodeName, "must be a PVE node name")},
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "Only storages of this type (`dir`, `nfs`, `lvmthin`, `zfspool`, `pbs`, ...).",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(storageTypeNames()...)},
			},
			"content": schema.StringAttribute{
				MarkdownDescription: "Only storages that take this content type (`images`, `rootdir`, `iso`, `vztmpl`, `import`, `backup`, `snippets`). " +
					"With `node`, PVE then also leaves out storages that are disabled or not available on the node.",
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
				NestedObject:        schema.NestedAttributeObject{Attributes: storageEntryAttributes()},
			},
		},
	}
}

func (d *storagesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

// Read is one request without node (the definitions, GET /storage) and two
// with it: the node's storage list, filtered by content in PVE, and the
// definitions once for all of them. Type and shared filter here.
func (d *storagesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m storagesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	defs, err := d.client.ListStorageConfigs(ctx, "")
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List Storage Definitions", err)
		return
	}
	f := entryFilter{typ: m.Type.ValueString(), shared: m.Shared}
	if m.Node.IsNull() {
		f.content = m.Content.ValueString()
		m.ID = types.StringValue("storages")
		m.Storages = storagesFromDefinitions(defs, f)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
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
	m.Storages = storagesFromAPI(list, defs, f)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// entryFilter is what the data source filters itself: type, sharing, and
// without a node the content type.
type entryFilter struct {
	typ, content string
	shared       types.Bool
}

func (f entryFilter) keep(typ string, shared bool, content []string) bool {
	if f.typ != "" && typ != f.typ {
		return false
	}
	if !f.shared.IsNull() && shared != f.shared.ValueBool() {
		return false
	}
	if f.content != "" && !containsString(content, f.content) {
		return false
	}
	return true
}

// storagesFromAPI maps the node's list, sorted, with each storage's
// definition.
func storagesFromAPI(list []pveapi.NodeStorage, defs []pveapi.StorageConfig, f entryFilter) []storageEntry {
	byID := make(map[string]pveapi.StorageConfig, len(defs))
	for _, d := range defs {
		byID[d.Storage] = d
	}
	sorted := append([]pveapi.NodeStorage(nil), list...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Storage < sorted[j].Storage })
	out := []storageEntry{}
	for _, s := range sorted {
		content := s.ContentTypes()
		if !f.keep(s.Type, bool(s.Shared), nil) {
			continue
		}
		if content == nil {
			content = []string{}
		}
		e := nullDefinition()
		if def, ok := byID[s.Storage]; ok {
			e = definitionEntry(def)
		}
		e.Storage = types.StringValue(s.Storage)
		e.Type = types.StringValue(s.Type)
		e.Content = content
		e.Shared = types.BoolValue(bool(s.Shared))
		e.Enabled = types.BoolValue(bool(s.Enabled))
		e.Active = types.BoolValue(bool(s.Active))
		e.Total = types.Int64Value(int64(s.Total))
		e.Used = types.Int64Value(int64(s.Used))
		e.Available = types.Int64Value(int64(s.Avail))
		out = append(out, e)
	}
	return out
}

// storagesFromDefinitions maps storage.cfg's definitions, sorted; the
// status attributes stay null.
func storagesFromDefinitions(defs []pveapi.StorageConfig, f entryFilter) []storageEntry {
	sorted := append([]pveapi.StorageConfig(nil), defs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Storage < sorted[j].Storage })
	out := []storageEntry{}
	for _, def := range sorted {
		e := definitionEntry(def)
		if !f.keep(def.Type, e.Shared.ValueBool(), e.Content) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
