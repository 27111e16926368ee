package sdn

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                = (*fabricNodeResource)(nil)
	_ resource.ResourceWithConfigure   = (*fabricNodeResource)(nil)
	_ resource.ResourceWithImportState = (*fabricNodeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*fabricNodeResource)(nil)
)

// NewFabricNodeResource is pve_sdn_fabric_node.
func NewFabricNodeResource() resource.Resource {
	return fwutil.WithIdentity(&fabricNodeResource{}, fabricNodeIdentity)
}

// fabricNodeResource is one node of an SDN fabric: its router addresses
// and the interfaces the protocol runs on.
type fabricNodeResource struct {
	client *pveapi.Client
	writer pluginWriter
}

type fabricNodeIface struct {
	IP              types.String `tfsdk:"ip"`
	IP6             types.String `tfsdk:"ip6"`
	HelloMultiplier types.Int64  `tfsdk:"hello_multiplier"`
}

type fabricNodeModel struct {
	ID         types.String               `tfsdk:"id"`
	SDNID      types.String               `tfsdk:"sdn_id"`
	Fabric     types.String               `tfsdk:"fabric"`
	Node       types.String               `tfsdk:"node"`
	IP         types.String               `tfsdk:"ip"`
	IP6        types.String               `tfsdk:"ip6"`
	Interfaces map[string]fabricNodeIface `tfsdk:"interfaces"`
}

func fabricNodeSDNID(fabric, node string) string {
	return pveapi.SDNKindFabricNode + "/" + fabric + "/" + node
}

// fabricNodeNamePattern is pve-node (pve-common src/PVE/JSONSchema.pm).
var fabricNodeNamePattern = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?$`)

// fabricIfaceNamePattern is pve-iface (pve-common src/PVE/JSONSchema.pm
// pve_verify_iface).
var fabricIfaceNamePattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{1,20}([:.][0-9]+)?$`)

func (r *fabricNodeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_fabric_node"
}

func (r *fabricNodeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A node of an SDN fabric (PVE 9 and later; Datacenter → SDN → Fabrics): its router address " +
			"(from the fabric's prefix) and the interfaces the fabric's protocol runs on. The protocol is the fabric's. " +
			"Like the fabric, its changes are staged: list it in a `pve_sdn_applier`'s `objects`. PVE deletes a fabric's " +
			"nodes with it: when the fabric is replaced, the nodes are created again at the next apply, or in the same " +
			"one with `lifecycle { replace_triggered_by = [pve_sdn_fabric.<name>] }`. " +
			"Needs `SDN.Allocate` on `/sdn/fabrics/<fabric>` and `Sys.Modify` on `/nodes/<node>`.",
		Attributes: map[string]schema.Attribute{
			attrID: schema.StringAttribute{
				MarkdownDescription: "`<fabric>/<node>`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			attrSDNID: schema.StringAttribute{
				MarkdownDescription: "The object's SDN id, `fabric-node/<fabric>/<node>`, known at plan time: list this " +
					"resource in a `pve_sdn_applier`'s `objects` so that one SDN apply follows its changes.",
				Computed: true,
			},
			"fabric": schema.StringAttribute{
				MarkdownDescription: "The fabric's id (`pve_sdn_fabric.<name>.fabric`). Changing it replaces the node.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{problemValidator(func(s string) string {
					if wire.IsSDNFabricID(s) {
						return ""
					}
					return fmt.Sprintf("%q is not a fabric id", s)
				}, "must be a fabric id")},
			},
			"node": schema.StringAttribute{
				MarkdownDescription: "The cluster node's name. Changing it replaces the fabric node.",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.RegexMatches(fabricNodeNamePattern, "must be a node name")},
			},
			"ip": schema.StringAttribute{
				MarkdownDescription: "The node's IPv4 router address, inside the fabric's `ip_prefix`.",
				Optional:            true,
				Validators: []validator.String{problemValidator(func(s string) string {
					return wire.CanonicalAddressProblem(s, 4)
				}, "must be an IPv4 address")},
			},
			"ip6": schema.StringAttribute{
				MarkdownDescription: "OpenFabric only: the node's IPv6 router address (compressed form), inside the fabric's `ip6_prefix`.",
				Optional:            true,
				Validators: []validator.String{problemValidator(func(s string) string {
					return wire.CanonicalAddressProblem(s, 6)
				}, "must be an IPv6 address")},
			},
			"interfaces": schema.MapNestedAttribute{
				MarkdownDescription: "The interfaces the fabric runs on, keyed by interface name (`ens19`). Without " +
					"addresses an interface is unnumbered and uses the router address.",
				Required: true,
				Validators: []validator.Map{
					mapvalidator.SizeAtLeast(1),
					mapvalidator.KeysAre(stringvalidator.RegexMatches(fabricIfaceNamePattern, "must be an interface name")),
				},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"ip": schema.StringAttribute{
						MarkdownDescription: "The interface's IPv4 address with prefix length (`10.10.1.1/31`).",
						Optional:            true,
						Validators: []validator.String{problemValidator(func(s string) string {
							return wire.CanonicalInterfacePrefixProblem(s, 4)
						}, "must be an IPv4 address with prefix length")},
					},
					"ip6": schema.StringAttribute{
						MarkdownDescription: "OpenFabric only: the interface's IPv6 address with prefix length.",
						Optional:            true,
						Validators: []validator.String{problemValidator(func(s string) string {
							return wire.CanonicalInterfacePrefixProblem(s, 6)
						}, "must be an IPv6 address with prefix length")},
					},
					"hello_multiplier": schema.Int64Attribute{
						MarkdownDescription: "OpenFabric only: the hello multiplier, 2 to 100.",
						Optional:            true,
						Validators:          []validator.Int64{int64validator.Between(2, 100)},
					},
				}},
			},
		},
	}
}

func (r *fabricNodeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client, r.writer = pd.Client, pd.SDN
	}
}

// ModifyPlan sets the ids from the configuration and refuses fabric nodes
// on PVE 8.4.
func (r *fabricNodeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var fabric, node types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("fabric"), &fabric)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("node"), &node)...)
	if resp.Diagnostics.HasError() {
		return
	}
	sdnID, id := types.StringUnknown(), types.StringUnknown()
	if !fabric.IsUnknown() && !node.IsUnknown() {
		sdnID = types.StringValue(fabricNodeSDNID(fabric.ValueString(), node.ValueString()))
		id = types.StringValue(fabric.ValueString() + "/" + node.ValueString())
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrSDNID), sdnID)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrID), id)...)
	if r.client != nil && req.State.Raw.IsNull() {
		refuseBeforePVE9(ctx, r.client, "fabric node", &resp.Diagnostics)
	}
}

// nodeInterfaces are the model's interfaces as PVE's property strings,
// sorted by name.
func nodeInterfaces(protocol string, ifaces map[string]fabricNodeIface) []string {
	m := map[string]wire.SDNFabricInterface{}
	for name, i := range ifaces {
		o := wire.SDNFabricInterface{}
		if !i.IP.IsNull() {
			o["ip"] = i.IP.ValueString()
		}
		if !i.IP6.IsNull() {
			o["ip6"] = i.IP6.ValueString()
		}
		if !i.HelloMultiplier.IsNull() {
			o["hello_multiplier"] = strconv.FormatInt(i.HelloMultiplier.ValueInt64(), 10)
		}
		m[name] = o
	}
	return wire.SortedSDNFabricInterfaces(protocol, m)
}

func fabricNodeFromAPI(n pveapi.SDNFabricNode) fabricNodeModel {
	opt := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	m := fabricNodeModel{
		ID: types.StringValue(n.Fabric + "/" + n.Node), SDNID: types.StringValue(fabricNodeSDNID(n.Fabric, n.Node)),
		Fabric: types.StringValue(n.Fabric), Node: types.StringValue(n.Node), IP: opt(n.IP), IP6: opt(n.IP6),
		Interfaces: map[string]fabricNodeIface{},
	}
	for _, s := range n.Interfaces {
		name, o := wire.ParseSDNFabricInterface(s)
		i := fabricNodeIface{IP: opt(o["ip"]), IP6: opt(o["ip6"]), HelloMultiplier: types.Int64Null()}
		if v, err := strconv.ParseInt(o["hello_multiplier"], 10, 64); err == nil {
			i.HelloMultiplier = types.Int64Value(v)
		}
		m.Interfaces[name] = i
	}
	return m
}

// protocolOf reads the fabric's protocol, which every node write names.
func (r *fabricNodeResource) protocolOf(ctx context.Context, fabric string) (string, error) {
	f, found, err := r.client.GetSDNFabric(ctx, fabric)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("fabric %s does not exist in PVE (or its deletion is staged)", fabric)
	}
	return f.Protocol, nil
}

func (r *fabricNodeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan fabricNodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fabric, node := plan.Fabric.ValueString(), plan.Node.ValueString()
	err := r.writer.Write(ctx, fabricNodeSDNID(fabric, node), func(ctx context.Context, lockToken string) error {
		protocol, err := r.protocolOf(ctx, fabric)
		if err != nil {
			return err
		}
		w := pveapi.SDNFabricNodeWrite{Protocol: protocol, Set: map[string]string{}, Interfaces: nodeInterfaces(protocol, plan.Interfaces)}
		if !plan.IP.IsNull() {
			w.Set["ip"] = plan.IP.ValueString()
		}
		if !plan.IP6.IsNull() {
			w.Set["ip6"] = plan.IP6.ValueString()
		}
		return r.client.CreateSDNFabricNode(ctx, fabric, node, w, lockToken)
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Create SDN Fabric Node", err)
		return
	}
	r.readInto(ctx, fabric, node, &resp.State, &resp.Diagnostics, true)
}

func (r *fabricNodeResource) readInto(ctx context.Context, fabric, node string, state interface {
	Set(context.Context, any) diag.Diagnostics
}, diags *diag.Diagnostics, afterWrite bool,
) bool {
	n, found, err := r.client.GetSDNFabricNode(ctx, fabric, node)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read SDN Fabric Node", err)
		return false
	}
	if !found {
		if afterWrite {
			vanished(diags, "SDN Fabric Node", "node "+node+" of SDN fabric "+fabric)
		}
		return false
	}
	diags.Append(state.Set(ctx, fabricNodeFromAPI(n))...)
	return true
}

func (r *fabricNodeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state fabricNodeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.readInto(ctx, state.Fabric.ValueString(), state.Node.ValueString(), &resp.State, &resp.Diagnostics, false) &&
		!resp.Diagnostics.HasError() {
		resp.State.RemoveResource(ctx)
	}
}

func (r *fabricNodeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state fabricNodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fabric, node := state.Fabric.ValueString(), state.Node.ValueString()
	err := r.writer.Write(ctx, fabricNodeSDNID(fabric, node), func(ctx context.Context, lockToken string) error {
		protocol, err := r.protocolOf(ctx, fabric)
		if err != nil {
			return err
		}
		w := pveapi.SDNFabricNodeWrite{Protocol: protocol, Set: map[string]string{}}
		for k, pair := range map[string][2]types.String{"ip": {state.IP, plan.IP}, "ip6": {state.IP6, plan.IP6}} {
			switch {
			case !pair[1].IsNull() && !pair[1].Equal(pair[0]):
				w.Set[k] = pair[1].ValueString()
			case pair[1].IsNull() && !pair[0].IsNull():
				w.Delete = append(w.Delete, k)
			}
		}
		sort.Strings(w.Delete)
		if want := nodeInterfaces(protocol, plan.Interfaces); strings.Join(want, "\n") != strings.Join(nodeInterfaces(protocol, state.Interfaces), "\n") {
			w.Interfaces = want
		}
		if len(w.Set) == 0 && len(w.Delete) == 0 && w.Interfaces == nil {
			return nil
		}
		return r.client.UpdateSDNFabricNode(ctx, fabric, node, w, lockToken)
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Update SDN Fabric Node", err)
		return
	}
	r.readInto(ctx, fabric, node, &resp.State, &resp.Diagnostics, true)
}

func (r *fabricNodeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state fabricNodeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fabric, node := state.Fabric.ValueString(), state.Node.ValueString()
	err := r.writer.Write(ctx, fabricNodeSDNID(fabric, node), func(ctx context.Context, lockToken string) error {
		return r.client.DeleteSDNFabricNode(ctx, fabric, node, lockToken)
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Delete SDN Fabric Node", err)
	}
}

func (r *fabricNodeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	fabric, node, ok := strings.Cut(req.ID, "/")
	if !ok || !wire.IsSDNFabricID(fabric) || !fabricNodeNamePattern.MatchString(node) {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf(
			"Import pve_sdn_fabric_node as FABRIC/NODE (for example \"fab1/pve1\"), got %q.", req.ID))
		return
	}
	if !r.readInto(ctx, fabric, node, &resp.State, &resp.Diagnostics, false) && !resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("SDN Fabric Node Not Found", fmt.Sprintf("PVE has no node %q in SDN fabric %q to import.", node, fabric))
	}
}
