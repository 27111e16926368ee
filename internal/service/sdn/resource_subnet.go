package sdn

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
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
	_ resource.Resource                   = (*subnetResource)(nil)
	_ resource.ResourceWithConfigure      = (*subnetResource)(nil)
	_ resource.ResourceWithImportState    = (*subnetResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*subnetResource)(nil)
	_ resource.ResourceWithValidateConfig = (*subnetResource)(nil)
)

const (
	attrCIDR      = "cidr"
	attrDHCPRange = "dhcp_range"
	attrStart     = "start_address"
	attrEnd       = "end_address"
)

// dhcpRangeType is one element of dhcp_range.
var dhcpRangeType = types.ObjectType{AttrTypes: map[string]attr.Type{attrStart: types.StringType, attrEnd: types.StringType}}

// NewSubnetResource is the pve_sdn_subnet constructor registered with the
// provider.
func NewSubnetResource() resource.Resource {
	return fwutil.WithIdentity(&subnetResource{}, subnetIdentity)
}

type subnetResource struct{ base }

func (r *subnetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_sdn_subnet"
}

func (r *subnetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		attrID: schema.StringAttribute{
			MarkdownDescription: "`VNET/CIDR`, also the import id.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		attrVnet: schema.StringAttribute{
			MarkdownDescription: "The vnet of the subnet (`pve_sdn_vnet`'s `vnet`). Changing it replaces the subnet.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{fwutil.Format(wire.IsSDNZoneID, "must be "+wire.SDNIDRule)},
		},
		attrCIDR: schema.StringAttribute{
			MarkdownDescription: "The subnet, as its network address and prefix length (`10.0.0.0/24`, `fd00:10::/64`). " +
				"Changing it replaces the subnet.",
			Required:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{fwutil.Problem(func(s string) string {
				canon, ok := wire.CanonicalCIDR(s)
				switch {
				case canon == "":
					return fmt.Sprintf("%q is not a CIDR such as 10.0.0.0/24", s)
				case !ok || canon != s:
					return fmt.Sprintf("%q is not written as its network address: use %q", s, canon)
				}
				return ""
			}, "must be a CIDR written as its network address")},
		},
		attrDHCPRange: schema.ListNestedAttribute{
			MarkdownDescription: "The address ranges the zone's DHCP server (`pve_sdn_zone`'s `dhcp`) hands out, inside the subnet.",
			Optional:            true,
			Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				attrStart: schema.StringAttribute{MarkdownDescription: "The first address of the range.", Required: true,
					Validators: []validator.String{fwutil.Format(isIP, "must be an IP address")}},
				attrEnd: schema.StringAttribute{MarkdownDescription: "The last address of the range.", Required: true,
					Validators: []validator.String{fwutil.Format(isIP, "must be an IP address")}},
			}},
		},
		attrSDNID: sdnIDAttribute("subnet/VNET/CIDR"),
	}
	for _, o := range wire.SDNSubnetOptions {
		a := optionAttribute(o, o.Description)
		if sa, ok := a.(schema.StringAttribute); ok && (o.Key == "gateway" || o.Key == "dhcp-dns-server") {
			sa.Validators = append(sa.Validators, fwutil.Format(isIP, "must be an IP address"))
			a = sa
		}
		attrs[wire.SDNAttributeName(o.Key)] = a
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An SDN subnet of a vnet (Datacenter → SDN → VNets → Subnets): its addresses, gateway, SNAT and DHCP " +
			"ranges; the zone's IPAM registers them. Changes are staged in PVE; list the subnet in a `pve_sdn_applier`'s `objects` " +
			"so the run applies them. Needs `SDN.Allocate` on `/sdn/zones/ZONE/VNET`." +
			"\n\n**Changes that replace the subnet:** `vnet`, `cidr`.",
		Attributes: attrs,
	}
}

func isIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

func (r *subnetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.configure(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig refuses a gateway or DHCP range outside the subnet
// (pve-network src/PVE/Network/SDN/SubnetPlugin.pm on_update_hook,
// validate_dhcp_ranges) and a range that ends before it starts.
func (r *subnetResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cidr, gateway types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(attrCIDR), &cidr)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("gateway"), &gateway)...)
	ranges, known := readRanges(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || cidr.IsUnknown() || cidr.IsNull() {
		return
	}
	prefix, err := netip.ParsePrefix(cidr.ValueString())
	if err != nil {
		return
	}
	in := func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && prefix.Contains(a)
	}
	if !gateway.IsUnknown() && !gateway.IsNull() && isIP(gateway.ValueString()) && !in(gateway.ValueString()) {
		resp.Diagnostics.AddAttributeError(path.Root("gateway"), "Gateway Outside The Subnet",
			fmt.Sprintf("gateway %s is not in subnet %s.", gateway.ValueString(), prefix))
	}
	if !known {
		return
	}
	for i, rg := range ranges {
		at := path.Root(attrDHCPRange).AtListIndex(i)
		for _, a := range []struct{ name, addr string }{{attrStart, rg.start}, {attrEnd, rg.end}} {
			if isIP(a.addr) && !in(a.addr) {
				resp.Diagnostics.AddAttributeError(at.AtName(a.name), "DHCP Range Outside The Subnet",
					fmt.Sprintf("%s %s is not in subnet %s.", a.name, a.addr, prefix))
			}
		}
		s, err1 := netip.ParseAddr(rg.start)
		e, err2 := netip.ParseAddr(rg.end)
		if err1 == nil && err2 == nil && s.Compare(e) > 0 {
			resp.Diagnostics.AddAttributeError(at.AtName(attrStart), "DHCP Range Reversed",
				fmt.Sprintf("start_address %s must not be after end_address %s.", rg.start, rg.end))
		}
	}
}

type dhcpRange struct{ start, end string }

func (d dhcpRange) wire() string { return "start-address=" + d.start + ",end-address=" + d.end }

// readRanges reads dhcp_range; known is false while any part is unknown.
func readRanges(ctx context.Context, g attrGetter, diags *diag.Diagnostics) (ranges []dhcpRange, known bool) {
	var list types.List
	diags.Append(g.GetAttribute(ctx, path.Root(attrDHCPRange), &list)...)
	if list.IsUnknown() {
		return nil, false
	}
	for _, el := range list.Elements() {
		obj, ok := el.(types.Object)
		if !ok || obj.IsUnknown() {
			return nil, false
		}
		a := obj.Attributes()
		s, _ := a[attrStart].(types.String)
		e, _ := a[attrEnd].(types.String)
		if s.IsUnknown() || e.IsUnknown() {
			return nil, false
		}
		ranges = append(ranges, dhcpRange{s.ValueString(), e.ValueString()})
	}
	return ranges, true
}

// rangesFromAPI reads PVE's dhcp-range: objects with start-address and
// end-address at top level of a listing (pve-network
// src/PVE/API2/Network/SDN/Subnets.pm api_sdn_subnets_config,
// Subnets.pm get_dhcp_ranges), property strings in its pending part, and
// on PVE 8.4 one string there, the ranges sorted and joined by commas
// (pve-network 0.11.2 SDN.pm pending_config copies encode_value's form).
func rangesFromAPI(v any) []dhcpRange {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case string:
		items = []any{x}
	}
	var out []dhcpRange
	for _, it := range items {
		switch x := it.(type) {
		case map[string]any:
			var rg dhcpRange
			rg.start, _ = x["start-address"].(string)
			rg.end, _ = x["end-address"].(string)
			if rg.start != "" || rg.end != "" {
				out = append(out, rg)
			}
		case string:
			out = append(out, parseRanges(x)...)
		}
	}
	return out
}

// parseRanges reads one or more ranges written as start-address=A,
// end-address=B pairs joined by commas: a key seen twice starts the next
// range.
func parseRanges(s string) []dhcpRange {
	var out []dhcpRange
	var cur dhcpRange
	flush := func() {
		if cur.start != "" || cur.end != "" {
			out = append(out, cur)
		}
		cur = dhcpRange{}
	}
	for _, kv := range strings.Split(s, ",") {
		k, val, _ := strings.Cut(kv, "=")
		switch strings.TrimSpace(k) {
		case "start-address":
			if cur.start != "" {
				flush()
			}
			cur.start = val
		case "end-address":
			if cur.end != "" {
				flush()
			}
			cur.end = val
		}
	}
	flush()
	return out
}

// inPriorOrder returns ranges in the order of prior when both hold the
// same ranges: PVE 8.4 shows staged ranges sorted, not as written.
func inPriorOrder(ranges, prior []dhcpRange) []dhcpRange {
	if len(ranges) != len(prior) {
		return ranges
	}
	count := map[dhcpRange]int{}
	for _, rg := range ranges {
		count[rg]++
	}
	for _, rg := range prior {
		if count[rg] == 0 {
			return ranges
		}
		count[rg]--
	}
	return prior
}

func rangesValue(ranges []dhcpRange) types.List {
	if len(ranges) == 0 {
		return types.ListNull(dhcpRangeType)
	}
	elems := make([]attr.Value, len(ranges))
	for i, rg := range ranges {
		elems[i] = types.ObjectValueMust(dhcpRangeType.AttrTypes, map[string]attr.Value{
			attrStart: types.StringValue(rg.start), attrEnd: types.StringValue(rg.end)})
	}
	return types.ListValueMust(dhcpRangeType, elems)
}

func sameRanges(a, b []dhcpRange) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func subnetSDNID(vnet, cidr types.String) types.String {
	if vnet.IsUnknown() || cidr.IsUnknown() {
		return types.StringUnknown()
	}
	return types.StringValue(pveapi.SDNSubnetID(vnet.ValueString(), cidr.ValueString()))
}

func (r *subnetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var vnet, cidr types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrCIDR), &cidr)...)
	setSDNIDInPlan(ctx, req, resp, subnetSDNID(vnet, cidr))
}

func (r *subnetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var vnet, cidr types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrCIDR), &cidr)...)
	plan := readOptions(ctx, req.Plan, wire.SDNSubnetOptions, &resp.Diagnostics)
	ranges, _ := readRanges(ctx, req.Plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	form := createForm(plan)
	for _, rg := range ranges {
		form.Add(wire.SDNKeyDHCPRange, rg.wire())
	}
	v, c := vnet.ValueString(), cidr.ValueString()
	err := r.session.Write(ctx, pveapi.SDNSubnetID(v, c), func(ctx context.Context, token string) error {
		return r.client.CreateSDNSubnet(ctx, v, c, form, token)
	})
	if err != nil {
		r.writeFailed(&resp.Diagnostics, "Unable To Create SDN Subnet", err)
		return
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	if _, found := r.read(ctx, v, c, ranges, &resp.State, &resp.Diagnostics); !found && !resp.Diagnostics.HasError() {
		vanished(&resp.Diagnostics, "SDN Subnet", "SDN subnet "+c+" of vnet "+v)
	}
}

// read puts the staged subnet cidr of vnet into s, its DHCP ranges in the
// order of prior when they are the same. It returns PVE's id of the
// subnet ("<zone>-<ip>-<mask>"); found is false when PVE has none.
func (r *subnetResource) read(ctx context.Context, vnet, cidr string, prior []dhcpRange, s attrSetter, diags *diag.Diagnostics) (pveID string, found bool) {
	entries, err := r.client.SDNSubnetsPending(ctx, vnet)
	if err != nil {
		if pveapi.IsSDNNotFound(err) {
			return "", false
		}
		fwutil.AddAPIError(diags, "Unable To Read SDN Subnet", err)
		return "", false
	}
	var values map[string]any
	for _, e := range entries {
		if pveapi.SubnetCIDR(e.ID) == cidr {
			values, found = e.Effective()
			pveID = e.ID
			break
		}
	}
	if !found {
		return "", false
	}
	diags.Append(s.SetAttribute(ctx, path.Root(attrID), vnet+"/"+cidr)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrVnet), vnet)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrCIDR), cidr)...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrSDNID), pveapi.SDNSubnetID(vnet, cidr))...)
	diags.Append(s.SetAttribute(ctx, path.Root(attrDHCPRange), rangesValue(inPriorOrder(rangesFromAPI(values[wire.SDNKeyDHCPRange]), prior)))...)
	setOptions(ctx, s, wire.SDNSubnetOptions, optionsFromAPI(wire.SDNSubnetOptions, values), diags)
	return pveID, true
}

func (r *subnetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var vnet, cidr types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrCIDR), &cidr)...)
	prior, _ := readRanges(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, found := r.read(ctx, vnet.ValueString(), cidr.ValueString(), prior, &resp.State, &resp.Diagnostics); !found && !resp.Diagnostics.HasError() {
		resp.State.RemoveResource(ctx)
	}
}

// pveID finds PVE's id of the subnet cidr of vnet (it embeds the zone).
func (r *subnetResource) pveID(ctx context.Context, vnet, cidr string) (string, bool, error) {
	entries, err := r.client.SDNSubnetsPending(ctx, vnet)
	if err != nil {
		if pveapi.IsSDNNotFound(err) {
			return "", false, nil
		}
		return "", false, err
	}
	for _, e := range entries {
		if pveapi.SubnetCIDR(e.ID) == cidr {
			return e.ID, e.State != pveapi.SDNStateDeleted, nil
		}
	}
	return "", false, nil
}

func (r *subnetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var vnet, cidr types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root(attrCIDR), &cidr)...)
	plan := readOptions(ctx, req.Plan, wire.SDNSubnetOptions, &resp.Diagnostics)
	state := readOptions(ctx, req.State, wire.SDNSubnetOptions, &resp.Diagnostics)
	planRanges, _ := readRanges(ctx, req.Plan, &resp.Diagnostics)
	stateRanges, _ := readRanges(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	v, c := vnet.ValueString(), cidr.ValueString()
	form, changed := updateForm(wire.SDNSubnetOptions, state, plan)
	if !sameRanges(planRanges, stateRanges) {
		changed = true
		if len(planRanges) == 0 {
			del := form.Get("delete")
			if del != "" {
				del += ","
			}
			form.Set("delete", del+wire.SDNKeyDHCPRange)
		}
		for _, rg := range planRanges {
			form.Add(wire.SDNKeyDHCPRange, rg.wire())
		}
	}
	if changed {
		err := r.session.Write(ctx, pveapi.SDNSubnetID(v, c), func(ctx context.Context, token string) error {
			id, found, err := r.pveID(ctx, v, c)
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("sdn subnet '%s' of vnet '%s' does not exist", c, v)
			}
			return r.client.UpdateSDNSubnet(ctx, v, id, form, token)
		})
		if err != nil {
			r.writeFailed(&resp.Diagnostics, "Unable To Update SDN Subnet", err)
			return
		}
	}
	resp.State.Raw = req.Plan.Raw.Copy()
	if _, found := r.read(ctx, v, c, planRanges, &resp.State, &resp.Diagnostics); !found && !resp.Diagnostics.HasError() {
		vanished(&resp.Diagnostics, "SDN Subnet", "SDN subnet "+c+" of vnet "+v)
	}
}

func (r *subnetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var vnet, cidr types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrVnet), &vnet)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(attrCIDR), &cidr)...)
	if resp.Diagnostics.HasError() {
		return
	}
	v, c := vnet.ValueString(), cidr.ValueString()
	err := r.session.Write(ctx, pveapi.SDNSubnetID(v, c), func(ctx context.Context, token string) error {
		id, found, err := r.pveID(ctx, v, c)
		if err != nil || !found {
			return err
		}
		err = r.client.DeleteSDNSubnet(ctx, v, id, token)
		if pveapi.IsSDNNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		r.writeFailed(&resp.Diagnostics, "Unable To Delete SDN Subnet", err)
	}
}

func (r *subnetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	vnet, cidr, ok := strings.Cut(req.ID, "/")
	canon, canonOK := wire.CanonicalCIDR(cidr)
	if !ok || !wire.IsSDNZoneID(vnet) || !canonOK || canon != cidr {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_sdn_subnet as VNET/CIDR (for example \"web/10.0.0.0/24\"), got "+quoted(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrVnet), vnet)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrCIDR), cidr)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrID), req.ID)...)
}
