package ha

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ datasource.DataSourceWithConfigure = (*statusDataSource)(nil)

// NewHAStatusDataSource is the pve_ha_status constructor.
func NewHAStatusDataSource() datasource.DataSource {
	return &statusDataSource{}
}

type statusDataSource struct {
	client *pveapi.Client
}

type statusModel struct {
	ID         types.String          `tfsdk:"id"`
	Quorate    types.Bool            `tfsdk:"quorate"`
	MasterNode types.String          `tfsdk:"master_node"`
	Master     types.String          `tfsdk:"master_status"`
	ArmedState types.String          `tfsdk:"armed_state"`
	Nodes      []statusNodeModel     `tfsdk:"nodes"`
	Resources  []statusResourceModel `tfsdk:"resources"`
}

type statusNodeModel struct {
	Node     types.String `tfsdk:"node"`
	CRMState types.String `tfsdk:"crm_state"`
	LRMMode  types.String `tfsdk:"lrm_mode"`
	LRMState types.String `tfsdk:"lrm_state"`
	Status   types.String `tfsdk:"status"`
}

type statusResourceModel struct {
	SID          types.String `tfsdk:"sid"`
	VMID         types.Int64  `tfsdk:"vmid"`
	Type         types.String `tfsdk:"type"`
	Node         types.String `tfsdk:"node"`
	State        types.String `tfsdk:"state"`
	CRMState     types.String `tfsdk:"crm_state"`
	RequestState types.String `tfsdk:"request_state"`
	Status       types.String `tfsdk:"status"`
}

func (d *statusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_ha_status"
}

func (d *statusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The state of PVE's high availability stack when the data source is read: the manager (CRM), each node's " +
			"local resource manager (LRM) and each HA resource, as `ha-manager status` shows them. The values change as HA works; " +
			"use them for outputs and checks, not as inputs that must stay stable.",
		Attributes: map[string]schema.Attribute{
			"id": str("Always `ha_status`."),
			"quorate": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Whether the node that answered is part of a quorate cluster.",
			},
			"master_node":   str("The node whose CRM is the HA master; null while the HA stack has never been active (no HA resource yet)."),
			"master_status": str("PVE's status line of the master, e.g. `pve1 (active, Wed Dec  2 13:39:51 2026)`; null without a master."),
			"armed_state": str("PVE 9: `armed`, `standby`, `disarming` or `disarmed` (HA's fencing watchdogs); null on PVE 8. " +
				"`standby` while the CRM is not active."),
			"nodes": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per node the HA manager knows, sorted by name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"node":      str("Node name."),
						"crm_state": str("The manager's view of the node: `online`, `unknown` (lost), `fence` (being fenced), `gone` or `maintenance`."),
						"lrm_mode":  str("The node's LRM mode (`active`, `restart`, `shutdown`, `maintenance`); null when unknown."),
						"lrm_state": str("The node's LRM state (`wait_for_agent_lock`, `active`, `lost_agent_lock`, `maintenance`); null when unknown."),
						"status":    str("PVE's status line of the LRM, e.g. `pve1 (active, watchdog active, ...)`."),
					},
				},
			},
			"resources": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per HA resource, sorted by sid.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"sid":  str("The HA resource id, `vm:VMID` or `ct:VMID`."),
						"vmid": schema.Int64Attribute{Computed: true, MarkdownDescription: "The guest's VMID."},
						"type": str("`vm` or `ct`."),
						"node": str("The node the guest is on (null when the guest is not found)."),
						"state": str("PVE's verbose state: `started`, `starting`, `stopping`, `stopped`, `disabled`, `migrate`, `relocate`, `fence`, " +
							"`recovery`, `freeze`, `error`, `queued` (not taken up by the manager yet), `ignored`, `not found`, `deleting`..."),
						"crm_state":     str("The manager's state of the service (null while it is queued or ignored)."),
						"request_state": str("The requested state with PVE's defaults (`started` when the resource does not set one)."),
						"status":        str("PVE's status line, `SID (NODE, STATE)`."),
					},
				},
			},
		},
	}
}

func (d *statusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		d.client = pd.Client
	}
}

func (d *statusDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	entries, err := d.client.HAStatus(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Status", err)
		return
	}
	manager, err := d.client.GetHAManagerStatus(ctx)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read HA Manager Status", err)
		return
	}
	m := statusFromAPI(entries, manager)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// statusFromAPI builds the data source's model from the status list and
// the manager status.
func statusFromAPI(entries []pveapi.HAStatusEntry, manager *pveapi.HAManagerStatus) statusModel {
	m := statusModel{
		ID: types.StringValue("ha_status"), Quorate: types.BoolValue(false),
		MasterNode: types.StringNull(), Master: types.StringNull(), ArmedState: types.StringNull(),
		Nodes: []statusNodeModel{}, Resources: []statusResourceModel{},
	}
	lrmText := map[string]string{}
	for _, e := range entries {
		switch e.Type {
		case "quorum":
			m.Quorate = types.BoolValue(e.Quorate != nil && bool(*e.Quorate))
		case "master":
			m.MasterNode, m.Master = haOptString(e.Node), haOptString(e.Status)
		case "fencing":
			m.ArmedState = haOptString(e.ArmedState)
		case "lrm":
			lrmText[e.Node] = e.Status
		case "service":
			r := statusResourceModel{
				SID: types.StringValue(e.SID), VMID: types.Int64Null(), Type: types.StringNull(),
				Node: haOptString(e.Node), State: haOptString(e.State), CRMState: haOptString(e.CRMState),
				RequestState: haOptString(e.RequestState), Status: haOptString(e.Status),
			}
			if typ, vmid, ok := wire.ParseHASID(e.SID); ok {
				r.VMID, r.Type = types.Int64Value(int64(vmid)), types.StringValue(typ)
			}
			m.Resources = append(m.Resources, r)
		}
	}
	names := map[string]bool{}
	for n := range lrmText {
		names[n] = true
	}
	if manager != nil {
		for n := range manager.ManagerStatus.NodeStatus {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		node := statusNodeModel{Node: types.StringValue(n), CRMState: types.StringNull(),
			LRMMode: types.StringNull(), LRMState: types.StringNull(), Status: haOptString(lrmText[n])}
		if manager != nil {
			node.CRMState = haOptString(manager.ManagerStatus.NodeStatus[n])
			if lrm, ok := manager.LRMStatus[n]; ok {
				node.LRMMode, node.LRMState = haOptString(lrm.Mode), haOptString(lrm.State)
			}
		}
		m.Nodes = append(m.Nodes, node)
	}
	sort.Slice(m.Resources, func(i, j int) bool { return m.Resources[i].SID.ValueString() < m.Resources[j].SID.ValueString() })
	return m
}
