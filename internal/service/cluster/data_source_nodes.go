package cluster

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var _ datasource.DataSourceWithConfigure = (*nodesDataSource)(nil)

// NewNodesDataSource is the pve_nodes constructor.
func NewNodesDataSource() datasource.DataSource {
	return &nodesDataSource{}
}

type nodesDataSource struct {
	client *pveapi.Client
}

type nodesModel struct {
	ID     types.String `tfsdk:"id"`
	Names  []string     `tfsdk:"names"`
	Online []string     `tfsdk:"online"`
	Nodes  []nodeModel  `tfsdk:"nodes"`
}

type nodeModel struct {
	Name        types.String  `tfsdk:"name"`
	Status      types.String  `tfsdk:"status"`
	CPUs        types.Int64   `tfsdk:"cpus"`
	CPUUsage    types.Float64 `tfsdk:"cpu_usage"`
	MemoryTotal types.Int64   `tfsdk:"memory_total"`
	MemoryUsed  types.Int64   `tfsdk:"memory_used"`
	Uptime      types.Int64   `tfsdk:"uptime"`
}

func (d *nodesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nodes"
}

func (d *nodesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The nodes of the PVE cluster, sorted by name.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `nodes`.",
				Computed:            true,
			},
			"names": schema.ListAttribute{
				MarkdownDescription: "Names of all nodes, sorted.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"online": schema.ListAttribute{
				MarkdownDescription: "Names of the nodes that are online, sorted.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"nodes": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per node, sorted by name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name":         schema.StringAttribute{Computed: true, MarkdownDescription: "Node name."},
						"status":       schema.StringAttribute{Computed: true, MarkdownDescription: "`online`, `offline` or `unknown`."},
						"cpus":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of logical CPUs."},
						"cpu_usage":    schema.Float64Attribute{Computed: true, MarkdownDescription: "CPU usage as a fraction of 1 when the data source was read."},
						"memory_total": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in bytes."},
						"memory_used":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in use in bytes when the data source was read."},
						"uptime":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Seconds since the node booted."},
					},
				},
			},
		},
	}
}

func (d *nodesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *nodesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	nodes, err := d.client.Nodes(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To List PVE Nodes", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, nodesFromAPI(nodes))...)
}

func nodesFromAPI(nodes []pveapi.Node) nodesModel {
	sorted := append([]pveapi.Node(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Node < sorted[j].Node })

	m := nodesModel{ID: types.StringValue("nodes"), Names: []string{}, Online: []string{}, Nodes: []nodeModel{}}
	for _, n := range sorted {
		m.Names = append(m.Names, n.Node)
		if n.Status == "online" {
			m.Online = append(m.Online, n.Node)
		}
		m.Nodes = append(m.Nodes, nodeModel{
			Name:        types.StringValue(n.Node),
			Status:      types.StringValue(n.Status),
			CPUs:        types.Int64Value(int64(n.MaxCPU)),
			CPUUsage:    types.Float64Value(float64(n.CPU)),
			MemoryTotal: types.Int64Value(int64(n.MaxMem)),
			MemoryUsed:  types.Int64Value(int64(n.Mem)),
			Uptime:      types.Int64Value(int64(n.Uptime)),
		})
	}
	return m
}
