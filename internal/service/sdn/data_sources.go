package sdn

import (
	"context"
	"sort"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ datasource.DataSourceWithConfigure = (*zonesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*vnetsDataSource)(nil)
)

// NewZonesDataSource is the pve_sdn_zones constructor.
func NewZonesDataSource() datasource.DataSource { return &zonesDataSource{} }

// NewVnetsDataSource is the pve_sdn_vnets constructor.
func NewVnetsDataSource() datasource.DataSource { return &vnetsDataSource{} }

type zonesDataSource struct{ client *pveapi.Client }
type vnetsDataSource struct{ client *pveapi.Client }

func configureDS(raw any, diags *diag.Diagnostics) *pveapi.Client {
	if pd := fwutil.ProviderDataFrom(raw, diags); pd != nil {
		return pd.Client
	}
	return nil
}

func (d *zonesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = configureDS(req.ProviderData, &resp.Diagnostics)
}

func (d *vnetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = configureDS(req.ProviderData, &resp.Diagnostics)
}

func (d *zonesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_zones"
}

func (d *vnetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_vnets"
}

var (
	statusDesc = "The status on each online node (node name to `available`, `pending` or `error`), as the node reports it " +
		"for the applied configuration; a node that does not report it is left out."
	stateDesc = "`new`, `changed` or `deleted` while the object has staged changes not applied yet; null otherwise."
)

func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}

func (d *zonesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The SDN zones, with their staged configuration and each node's status. Status changes as PVE " +
			"applies and reloads: use it for outputs and checks.",
		Attributes: map[string]schema.Attribute{
			"id": computedString("Always `sdn_zones`."),
			"type": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only zones of this type.",
				Validators:          []validator.String{stringvalidator.OneOf(wire.SDNZoneTypeNames()...)},
			},
			"zones": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The zones, sorted by id; zones staged for deletion are included with `pending_state` `deleted`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"zone":          computedString("The zone's id."),
					"type":          computedString("The zone's type."),
					"pending_state": computedString(stateDesc),
					"nodes": schema.SetAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "The nodes the zone is limited to; null for all nodes."},
					"ipam":   computedString("The zone's IPAM."),
					"status": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: statusDesc},
				}},
			},
		},
	}
}

func (d *vnetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The SDN vnets, with their staged configuration and each node's status. Status changes as PVE " +
			"applies and reloads: use it for outputs and checks.",
		Attributes: map[string]schema.Attribute{
			"id": computedString("Always `sdn_vnets`."),
			"zone": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only vnets of this zone.",
			},
			"vnets": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The vnets, sorted by id; vnets staged for deletion are included with `pending_state` `deleted`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"vnet":          computedString("The vnet's id (its bridge's name)."),
					"zone":          computedString("The vnet's zone."),
					"alias":         computedString("The vnet's alias."),
					"tag":           schema.Int64Attribute{Computed: true, MarkdownDescription: "The vnet's VLAN tag or VXLAN id."},
					"pending_state": computedString(stateDesc),
					"status":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: statusDesc},
				}},
			},
		},
	}
}

type zoneEntryModel struct {
	Zone         types.String `tfsdk:"zone"`
	Type         types.String `tfsdk:"type"`
	PendingState types.String `tfsdk:"pending_state"`
	Nodes        types.Set    `tfsdk:"nodes"`
	IPAM         types.String `tfsdk:"ipam"`
	Status       types.Map    `tfsdk:"status"`
}

type zonesModel struct {
	ID    types.String     `tfsdk:"id"`
	Type  types.String     `tfsdk:"type"`
	Zones []zoneEntryModel `tfsdk:"zones"`
}

type vnetEntryModel struct {
	Vnet         types.String `tfsdk:"vnet"`
	Zone         types.String `tfsdk:"zone"`
	Alias        types.String `tfsdk:"alias"`
	Tag          types.Int64  `tfsdk:"tag"`
	PendingState types.String `tfsdk:"pending_state"`
	Status       types.Map    `tfsdk:"status"`
}

type vnetsModel struct {
	ID    types.String     `tfsdk:"id"`
	Zone  types.String     `tfsdk:"zone"`
	Vnets []vnetEntryModel `tfsdk:"vnets"`
}

// stagedOrRunning is what a listing shows of an entry: the staged values,
// or the running ones for an entry staged for deletion.
func stagedOrRunning(e pveapi.SDNEntry) map[string]any {
	if v, ok := e.Effective(); ok {
		return v
	}
	return e.Values
}

func optString(v any) types.String {
	if s, ok := v.(string); ok && s != "" {
		return types.StringValue(s)
	}
	return types.StringNull()
}

func statusMap(m map[string]string) types.Map {
	elems := map[string]attr.Value{}
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

// onlineNodes lists the cluster's online nodes.
func onlineNodes(ctx context.Context, client *pveapi.Client) ([]string, error) {
	nodes, err := client.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range nodes {
		if n.Status == "online" {
			out = append(out, n.Node)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (d *zonesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m zonesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	entries, err := d.client.SDNZonesPending(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read SDN Zones", err)
		return
	}
	nodes, err := onlineNodes(ctx, d.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The Nodes", err)
		return
	}
	status := map[string]map[string]string{}
	for _, node := range nodes {
		list, err := d.client.SDNZoneStatus(ctx, node)
		if err != nil {
			// A node that cannot report (no SDN yet, unreachable) is left out.
			continue
		}
		for _, s := range list {
			if status[s.Zone] == nil {
				status[s.Zone] = map[string]string{}
			}
			status[s.Zone][node] = s.Status
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	m.ID = types.StringValue("sdn_zones")
	m.Zones = []zoneEntryModel{}
	nodesOpt := wire.SDNOption{Key: "nodes", Kind: wire.SDNNodeList}
	for _, e := range entries {
		v := stagedOrRunning(e)
		typ, _ := v["type"].(string)
		if !m.Type.IsNull() && typ != m.Type.ValueString() {
			continue
		}
		z := zoneEntryModel{Zone: types.StringValue(e.ID), Type: types.StringValue(typ), PendingState: optString(e.State),
			IPAM: optString(v["ipam"]), Nodes: types.SetNull(types.StringType), Status: statusMap(status[e.ID])}
		if s, ok := wireValue(nodesOpt, v["nodes"]); ok {
			var elems []attr.Value
			for _, n := range wire.SplitSDNNodeList(s) {
				elems = append(elems, types.StringValue(n))
			}
			z.Nodes = types.SetValueMust(types.StringType, elems)
		}
		m.Zones = append(m.Zones, z)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (d *vnetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m vnetsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	entries, err := d.client.SDNVnetsPending(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read SDN Vnets", err)
		return
	}
	nodes, err := onlineNodes(ctx, d.client)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read The Nodes", err)
		return
	}
	zones := map[string]bool{}
	for _, e := range entries {
		if z, _ := stagedOrRunning(e)["zone"].(string); z != "" {
			zones[z] = true
		}
	}
	status := map[string]map[string]string{}
	for _, node := range nodes {
		for zone := range zones {
			list, err := d.client.SDNVnetStatus(ctx, node, zone)
			if err != nil {
				// A zone not applied yet, or a node that cannot report.
				continue
			}
			for _, s := range list {
				if status[s.Vnet] == nil {
					status[s.Vnet] = map[string]string{}
				}
				status[s.Vnet][node] = s.Status
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	m.ID = types.StringValue("sdn_vnets")
	m.Vnets = []vnetEntryModel{}
	tagOpt := wire.SDNOption{Key: "tag", Kind: wire.SDNInt}
	for _, e := range entries {
		v := stagedOrRunning(e)
		zone, _ := v["zone"].(string)
		if !m.Zone.IsNull() && zone != m.Zone.ValueString() {
			continue
		}
		vn := vnetEntryModel{Vnet: types.StringValue(e.ID), Zone: types.StringValue(zone), Alias: optString(v["alias"]),
			PendingState: optString(e.State), Tag: types.Int64Null(), Status: statusMap(status[e.ID])}
		if s, ok := wireValue(tagOpt, v["tag"]); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				vn.Tag = types.Int64Value(n)
			}
		}
		m.Vnets = append(m.Vnets, vn)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
