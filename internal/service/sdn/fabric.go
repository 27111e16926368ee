package sdn

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
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
	_ resource.Resource                   = (*fabricResource)(nil)
	_ resource.ResourceWithConfigure      = (*fabricResource)(nil)
	_ resource.ResourceWithImportState    = (*fabricResource)(nil)
	_ resource.ResourceWithValidateConfig = (*fabricResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*fabricResource)(nil)
)

// NewFabricResource is pve_sdn_fabric.
func NewFabricResource() resource.Resource {
	return fwutil.WithIdentity(&fabricResource{}, fabricIdentity)
}

// fabricResource is one SDN fabric (PVE 9): an OpenFabric or OSPF routed
// underlay between nodes.
type fabricResource struct {
	client *pveapi.Client
	writer pluginWriter
}

type fabricModel struct {
	ID            types.String `tfsdk:"id"`
	SDNID         types.String `tfsdk:"sdn_id"`
	Fabric        types.String `tfsdk:"fabric"`
	Protocol      types.String `tfsdk:"protocol"`
	IPPrefix      types.String `tfsdk:"ip_prefix"`
	IP6Prefix     types.String `tfsdk:"ip6_prefix"`
	HelloInterval types.Int64  `tfsdk:"hello_interval"`
	CsnpInterval  types.Int64  `tfsdk:"csnp_interval"`
	Area          types.String `tfsdk:"area"`
}

func fabricSDNID(id string) string { return pveapi.SDNKindFabric + "/" + id }

func (r *fabricResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_fabric"
}

// problemValidator wraps a wire check that returns "" for a good value.
func problemValidator(check func(string) string, describe string) validator.String {
	return fwutil.Problem(check, describe)
}

func (r *fabricResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	interval := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{
			MarkdownDescription: "OpenFabric only: the " + what + " interval in seconds, 1 to 600 (PVE's default when not set).",
			Optional:            true,
			Validators:          []validator.Int64{int64validator.Between(1, 600)},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An SDN fabric (PVE 9 and later; Datacenter → SDN → Fabrics): a routed underlay between " +
			"nodes, run by OpenFabric (`openfabric`) or OSPF (`ospf`), that EVPN controllers and VXLAN zones can use " +
			"instead of a static peer list. Its nodes are `pve_sdn_fabric_node` resources. Like zones and VNets, a " +
			"fabric's changes are staged: list it in a `pve_sdn_applier`'s `objects` to apply them. PVE deletes a " +
			"fabric's nodes with it and refuses to delete a fabric an EVPN controller or VXLAN zone uses. " +
			"Needs `SDN.Allocate` on `/sdn/fabrics` (and `Sys.Modify` on its nodes to delete it).",
		Attributes: map[string]schema.Attribute{
			attrID: schema.StringAttribute{
				MarkdownDescription: "The fabric's id (same as `fabric`).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			attrSDNID: schema.StringAttribute{
				MarkdownDescription: "The object's SDN id, `fabric/<fabric>`, known at plan time: list this resource in a " +
					"`pve_sdn_applier`'s `objects` so that one SDN apply follows its changes.",
				Computed: true,
			},
			"fabric": schema.StringAttribute{
				MarkdownDescription: "The fabric's id: 2 to 8 letters, digits or `-`, not starting or ending with `-`. " +
					"Changing it replaces the fabric.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{problemValidator(func(s string) string {
					if wire.IsSDNFabricID(s) {
						return ""
					}
					return fmt.Sprintf("%q is not a fabric id: 2 to 8 letters, digits or '-', not starting or ending with '-'", s)
				}, "must be a fabric id")},
			},
			"protocol": schema.StringAttribute{
				MarkdownDescription: "The routing protocol: `openfabric` or `ospf`. Changing it replaces the fabric (and its nodes).",
				Required:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.OneOf(wire.SDNFabricProtocols...)},
			},
			"ip_prefix": schema.StringAttribute{
				MarkdownDescription: "The IPv4 prefix the nodes' router addresses come from, written as the network " +
					"(`10.10.0.0/24`). At least one of `ip_prefix` and `ip6_prefix` is needed. PVE cannot remove it from a fabric.",
				Optional: true,
				Validators: []validator.String{problemValidator(func(s string) string {
					return wire.CanonicalPrefixProblem(s, 4)
				}, "must be an IPv4 network prefix")},
			},
			"ip6_prefix": schema.StringAttribute{
				MarkdownDescription: "OpenFabric only: the IPv6 prefix the nodes' router addresses come from, written as the " +
					"network in compressed form (`2001:db8:10::/64`). PVE cannot remove it from a fabric.",
				Optional: true,
				Validators: []validator.String{problemValidator(func(s string) string {
					return wire.CanonicalPrefixProblem(s, 6)
				}, "must be an IPv6 network prefix")},
			},
			"hello_interval": interval("hello"),
			"csnp_interval":  interval("CSNP"),
			"area": schema.StringAttribute{
				MarkdownDescription: "OSPF only, required there: the OSPF area, an IPv4 address (`0.0.0.0`) or a number (`0`).",
				Optional:            true,
				Validators:          []validator.String{problemValidator(wire.SDNFabricAreaProblem, "must be an OSPF area")},
			},
		},
	}
}

func (r *fabricResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client, r.writer = pd.Client, pd.SDN
	}
}

// ValidateConfig checks what each protocol takes (proxmox-ve-config
// src/sdn/fabric: OpenfabricProperties, OspfProperties; "IPv6 is currently
// not supported for protocol ospf") and that a fabric has a prefix.
func (r *fabricResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Protocol.IsUnknown() || m.Protocol.IsNull() {
		return
	}
	notTaken := func(name string, set bool) {
		if set {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Option Not Taken By This Protocol", fmt.Sprintf(
				"A fabric of protocol %s does not take %s. Remove it.", m.Protocol.ValueString(), name))
		}
	}
	switch m.Protocol.ValueString() {
	case "ospf":
		notTaken("hello_interval", !m.HelloInterval.IsNull())
		notTaken("csnp_interval", !m.CsnpInterval.IsNull())
		notTaken("ip6_prefix", !m.IP6Prefix.IsNull())
		if m.Area.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("area"), "Missing OSPF Area", "An OSPF fabric needs area.")
		}
		if m.IPPrefix.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("ip_prefix"), "Missing IP Prefix", "An OSPF fabric needs ip_prefix.")
		}
	case "openfabric":
		notTaken("area", !m.Area.IsNull())
		if m.IPPrefix.IsNull() && m.IP6Prefix.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("ip_prefix"), "Missing IP Prefix",
				"A fabric needs ip_prefix, ip6_prefix or both: the nodes' router addresses come from them.")
		}
	}
}

// ModifyPlan sets the ids from the configuration, refuses fabrics on PVE
// 8.4, and refuses removing a prefix (PVE's update cannot delete one).
func (r *fabricResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	sdnID := types.StringUnknown()
	if !plan.Fabric.IsUnknown() {
		sdnID = types.StringValue(fabricSDNID(plan.Fabric.ValueString()))
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrSDNID), sdnID)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrID), plan.Fabric)...)
	if r.client != nil && req.State.Raw.IsNull() {
		refuseBeforePVE9(ctx, r.client, "fabric", &resp.Diagnostics)
	}
	if req.State.Raw.IsNull() {
		return
	}
	var state fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	for name, pair := range map[string][2]types.String{"ip_prefix": {state.IPPrefix, plan.IPPrefix}, "ip6_prefix": {state.IP6Prefix, plan.IP6Prefix}} {
		if !pair[0].IsNull() && pair[1].IsNull() && plan.Protocol.Equal(state.Protocol) && plan.Fabric.Equal(state.Fabric) {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Prefix Cannot Be Removed", fmt.Sprintf(
				"PVE cannot remove %s from fabric %s. Keep it, or replace the fabric (terraform apply -replace) "+
					"knowing that PVE deletes its nodes with it.", name, state.Fabric.ValueString()))
		}
	}
}

// refuseBeforePVE9 refuses a fabric object on a cluster older than PVE 9.
func refuseBeforePVE9(ctx context.Context, client *pveapi.Client, what string, diags *diag.Diagnostics) {
	release, err := fwutil.PVERelease(ctx, client)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read The PVE Release", err)
		return
	}
	if !release.AtLeast(wire.PVE90) {
		diags.AddError("SDN Fabrics Need PVE 9", fmt.Sprintf(
			"SDN fabrics exist from PVE 9.0 on; this cluster runs PVE %s. Remove this %s.", release, what))
	}
}

// fabricOptions are the model's options as the API takes them.
func fabricOptions(m fabricModel) map[string]string {
	out := map[string]string{}
	setS := func(k string, v types.String) {
		if !v.IsNull() && !v.IsUnknown() {
			out[k] = v.ValueString()
		}
	}
	setN := func(k string, v types.Int64) {
		if !v.IsNull() && !v.IsUnknown() {
			out[k] = strconv.FormatInt(v.ValueInt64(), 10)
		}
	}
	setS("ip_prefix", m.IPPrefix)
	setS("ip6_prefix", m.IP6Prefix)
	setN("hello_interval", m.HelloInterval)
	setN("csnp_interval", m.CsnpInterval)
	setS("area", m.Area)
	return out
}

// fabricFromAPI fills the model from PVE's fabric.
func fabricFromAPI(f pveapi.SDNFabric) fabricModel {
	str := func(k string) types.String {
		if v, ok := f.Options[k]; ok {
			return types.StringValue(v)
		}
		return types.StringNull()
	}
	num := func(k string) types.Int64 {
		if v, ok := f.Options[k]; ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return types.Int64Value(n)
			}
		}
		return types.Int64Null()
	}
	return fabricModel{
		ID: types.StringValue(f.ID), SDNID: types.StringValue(fabricSDNID(f.ID)), Fabric: types.StringValue(f.ID),
		Protocol: types.StringValue(f.Protocol), IPPrefix: str("ip_prefix"), IP6Prefix: str("ip6_prefix"),
		HelloInterval: num("hello_interval"), CsnpInterval: num("csnp_interval"), Area: str("area"),
	}
}

func (r *fabricResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := plan.Fabric.ValueString()
	err := r.writer.Write(ctx, fabricSDNID(id), func(ctx context.Context, lockToken string) error {
		return r.client.CreateSDNFabric(ctx, id, plan.Protocol.ValueString(), fabricOptions(plan), lockToken)
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Create SDN Fabric", err)
		return
	}
	r.readInto(ctx, id, &resp.State, &resp.Diagnostics, true)
}

// readInto reads fabric id into state; after a write a missing fabric is
// an error, on refresh it removes the resource.
func (r *fabricResource) readInto(ctx context.Context, id string, state interface {
	Set(context.Context, any) diag.Diagnostics
}, diags *diag.Diagnostics, afterWrite bool,
) bool {
	f, found, err := r.client.GetSDNFabric(ctx, id)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read SDN Fabric", err)
		return false
	}
	if !found {
		if afterWrite {
			vanished(diags, "SDN Fabric", "SDN fabric "+id)
		}
		return false
	}
	diags.Append(state.Set(ctx, fabricFromAPI(f))...)
	return true
}

func (r *fabricResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.readInto(ctx, state.Fabric.ValueString(), &resp.State, &resp.Diagnostics, false) && !resp.Diagnostics.HasError() {
		resp.State.RemoveResource(ctx)
	}
}

func (r *fabricResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.Fabric.ValueString()
	want, have := fabricOptions(plan), fabricOptions(state)
	set := map[string]string{}
	var del []string
	for k, v := range want {
		if have[k] != v {
			set[k] = v
		}
	}
	for _, k := range []string{"hello_interval", "csnp_interval"} {
		if _, ok := want[k]; !ok {
			if _, had := have[k]; had {
				del = append(del, k)
			}
		}
	}
	if len(set) > 0 || len(del) > 0 {
		err := r.writer.Write(ctx, fabricSDNID(id), func(ctx context.Context, lockToken string) error {
			return r.client.UpdateSDNFabric(ctx, id, state.Protocol.ValueString(), set, del, lockToken)
		})
		if err != nil {
			writeError(&resp.Diagnostics, "Unable To Update SDN Fabric", err)
			return
		}
	}
	r.readInto(ctx, id, &resp.State, &resp.Diagnostics, true)
}

func (r *fabricResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.Fabric.ValueString()
	err := r.writer.Write(ctx, fabricSDNID(id), func(ctx context.Context, lockToken string) error {
		return r.client.DeleteSDNFabric(ctx, id, lockToken)
	})
	if err != nil {
		writeError(&resp.Diagnostics, "Unable To Delete SDN Fabric", err)
	}
}

func (r *fabricResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !wire.IsSDNFabricID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf(
			"Import pve_sdn_fabric by its id (for example \"fab1\"), got %q: 2 to 8 letters, digits or '-'.", req.ID))
		return
	}
	f, found, err := r.client.GetSDNFabric(ctx, req.ID)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read SDN Fabric", err)
		return
	}
	if !found {
		resp.Diagnostics.AddError("SDN Fabric Not Found", fmt.Sprintf("PVE has no SDN fabric %q to import.", req.ID))
		return
	}
	if f.Protocol != "openfabric" && f.Protocol != "ospf" {
		resp.Diagnostics.AddError("Unsupported SDN Fabric Protocol", fmt.Sprintf(
			"SDN fabric %s uses protocol %s, which pve_sdn_fabric does not manage (openfabric, ospf).", req.ID, f.Protocol))
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, fabricFromAPI(f))...)
}
