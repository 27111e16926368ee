package firewall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	_ resource.Resource                   = (*rulesResource)(nil)
	_ resource.ResourceWithConfigure      = (*rulesResource)(nil)
	_ resource.ResourceWithImportState    = (*rulesResource)(nil)
	_ resource.ResourceWithValidateConfig = (*rulesResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*rulesResource)(nil)
)

// NewRulesResource is the pve_firewall_rules constructor registered with
// the provider.
func NewRulesResource() resource.Resource {
	return fwutil.WithIdentity(&rulesResource{}, rulesIdentity)
}

// rulesIdentity is firewallIdentity for a firewall's rules: the rules of a
// security group renamed in place go with it, and their identity follows.
var rulesIdentity = fwutil.Identity{Attributes: firewallIdentity.Attributes, Mutable: true}

// firewallIdentity is the key of what a firewall holds once (its rules,
// its options): the firewall's id, the import id.
var firewallIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "firewall", State: "id",
	Description: "The firewall's id, as `id`: `cluster`, `node/NODE`, `guest/VMID` or, for the rules of a security group, `group/NAME`.",
}}}

type rulesResource struct {
	client *pveapi.Client
}

func (r *rulesResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firewall_rules"
}

var logLevels = []string{"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", "nolog"}

func (r *rulesResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := scopeAttributes("the rules", true)
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "The rule list: `cluster`, `node/NODE`, `guest/VMID` or `group/NAME`.",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	attrs["security_group"] = schema.StringAttribute{
		MarkdownDescription: "The security group whose rules these are (refer to it as `pve_firewall_security_group.NAME.name`). " +
			"Not together with `node` or `vmid`. When the group is renamed in place, its rules go with it.",
		Optional: true,
	}
	attrs["rules"] = schema.ListNestedAttribute{
		MarkdownDescription: "The complete rule list, in the order PVE evaluates it (the first matching rule decides). " +
			"Terraform owns the whole list: a rule added outside Terraform shows as a change that removes it. " +
			"An edit moves, inserts, rewrites or deletes single rules by position; PVE refuses it when the list changed since the plan, " +
			"so no edit ever lands on the wrong rule. An empty list manages a firewall with no rules.",
		Required: true,
		NestedObject: schema.NestedAttributeObject{
			Attributes: ruleAttributes(),
		},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The ordered rule list of one firewall: the cluster's, a node's own, a guest's, or a security group's. " +
			"Rules are edited in place, one request per rule that changes; a move is one request.\n\n" +
			"Privileges: `Sys.Modify` on `/` for the cluster's rules and security groups, `Sys.Modify` on `/nodes/NODE` for a node's, " +
			"`VM.Config.Network` on `/vms/VMID` for a guest's; reading needs `Sys.Audit` or `VM.Audit` on the same paths.\n\n" +
			"A guest's firewall is deleted with the guest, and an update of the guest leaves it alone. When the guest may be replaced " +
			"(a new VMID, a new clone source), let its rules follow: `lifecycle { replace_triggered_by = [pve_vm.NAME.id] }` " +
			"(the id is new only when the guest is).\n\n" +
			"**Changes that replace the resource:** `node`, `vmid`.",
		Attributes: attrs,
	}
}

func ruleAttributes() map[string]schema.Attribute {
	optional := func(desc string, validators ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Optional: true, Validators: validators}
	}
	return map[string]schema.Attribute{
		"type": schema.StringAttribute{
			MarkdownDescription: "`in`, `out`, `forward` (cluster and node firewalls, PVE 8.3 and later), or `group` to apply a security group.",
			Required:            true,
			Validators:          []validator.String{stringvalidator.OneOf("in", "out", "forward", "group")},
		},
		"action": schema.StringAttribute{
			MarkdownDescription: "`ACCEPT`, `DROP` or `REJECT`; for `type = \"group\"` the security group's name.",
			Required:            true,
		},
		"macro": optional("A predefined PVE macro (for example `SSH`, `HTTPS`, `Ping`), which sets protocol and ports; " +
			"the list is the data source `pve_firewall_macros`. PVE matches the name whatever its case."),
		"iface": optional("Network interface: the guest's NIC slot (`net0`) for a guest's rules, any interface name for the cluster's and a node's. " +
			"Not in a security group."),
		"source": optional("Source address: an IP, CIDR, range (`10.0.0.1-10.0.0.9`), a comma list of them, an alias, or an IP set (`+name`). " +
			"Refer to an alias or IP set of this configuration through its `ref` attribute, so Terraform creates it first."),
		"dest":  optional("Destination address, written like `source`."),
		"proto": optional("IP protocol by name (`tcp`, `udp`, `icmp`, ...) or number, as in `/etc/protocols`."),
		"dport": optional("Destination ports (needs a `proto` with ports): numbers, ranges `80:85` and service names, comma separated, at most 15 numbers " +
			"(a range counts two)."),
		"sport":     optional("Source ports, written like `dport`."),
		"icmp_type": optional("ICMP type (for `proto` `icmp`, `icmpv6` or `ipv6-icmp`), for example `echo-request`; not together with `dport`."),
		"log": optional("Log level for packets the rule matches: "+strings.Join(logLevels, ", ")+".",
			stringvalidator.OneOf(logLevels...)),
		"comment": optional("Comment shown in PVE. One line: the firewall file is line based."),
		"enabled": schema.BoolAttribute{
			MarkdownDescription: "Whether the rule is active. Defaults to true (PVE's own default for a new rule is disabled).",
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(true),
		},
	}
}

func (r *rulesResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// ruleList is where the model's rules live.
type ruleList struct {
	scope scopeRef
	group string
}

func ruleListOf(m rulesModel) ruleList {
	return ruleList{scope: scopeFromModel(m.Node, m.VMID), group: m.SecurityGroup.ValueString()}
}

func (l ruleList) id() string {
	if l.group != "" {
		return "group/" + l.group
	}
	return l.scope.String()
}

func (l ruleList) describe() string {
	if l.group != "" {
		return fmt.Sprintf("security group %s", l.group)
	}
	return l.scope.describe()
}

// env is the rule environment PVE checks a rule of this list in.
func (l ruleList) env() string {
	if l.group != "" {
		return "group"
	}
	switch l.scope.kind() {
	case guestScope:
		return "vm"
	case nodeScope:
		return "host"
	default:
		return "cluster"
	}
}

// resolveForWrite finds where PVE serves the list a write goes to; a guest
// that does not exist is an error pointing at vmid.
func (l ruleList) resolveForWrite(ctx context.Context, client *pveapi.Client, diags *diag.Diagnostics) (pveapi.FirewallRuleList, bool) {
	if l.group != "" {
		return pveapi.FirewallRuleList{Group: l.group}, true
	}
	scope, ok := resolveOrReport(ctx, client, l.scope, ruleListLookupSummary, "Guest Not Found", diags)
	return pveapi.FirewallRuleList{Scope: scope}, ok
}

// resolveExisting finds the list of rules the state holds, for Read and
// Delete (see the package's resolveExisting).
func (l ruleList) resolveExisting(ctx context.Context, client *pveapi.Client, diags *diag.Diagnostics, gone func()) (pveapi.FirewallRuleList, bool) {
	if l.group != "" {
		return pveapi.FirewallRuleList{Group: l.group}, true
	}
	scope, ok := resolveExisting(ctx, client, l.scope, ruleListLookupSummary, diags, gone)
	return pveapi.FirewallRuleList{Scope: scope}, ok
}

// ruleListLookupSummary reports a failed lookup of a guest's rule list.
const ruleListLookupSummary = "Unable To Find The Firewall"

func (r *rulesResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan rulesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	where := ruleListOf(plan)
	list, desired, ok := r.prepareWrite(ctx, where, plan, &resp.Diagnostics)
	if !ok {
		return
	}

	live, err := readRules(ctx, r.client, list)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Firewall Rules", err)
		return
	}
	// The list's rules are someone's: taking them over silently would
	// delete them. Import makes them Terraform's knowingly.
	if len(live.Rules) > 0 {
		resp.Diagnostics.AddError("Firewall Rules Exist Already", fmt.Sprintf(
			"%s already has %d rules that this configuration did not create. pve_firewall_rules manages a complete list, so creating it "+
				"would delete them. Import the list to manage it (terraform import ADDRESS %s, or an import block), then edit the rules.",
			fwutil.Capitalize(where.describe()), len(live.Rules), where.id()))
		return
	}
	// From an empty list, creating the rules last first puts each at its
	// place: PVE inserts a new rule at the top.
	for i := len(desired) - 1; i >= 0; i-- {
		if err := r.client.CreateFirewallRule(ctx, list, desired[i]); err != nil {
			fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("rules").AtListIndex(i), "Unable To Create Firewall Rule", err)
			if i < len(desired)-1 {
				resp.Diagnostics.AddError("Firewall Rules Partly Created", fmt.Sprintf(
					"Rules %d to %d were created in %s before the failure; they are not in Terraform's state. Remove them in PVE, or import the list, before applying again.",
					i+1, len(desired)-1, where.describe()))
			}
			return
		}
	}
	r.readBack(ctx, list, where, &plan, resp.Private, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// prepareWrite finds the list to write and the planned rules as PVE's
// parameters; a guest that does not exist is an error.
func (r *rulesResource) prepareWrite(ctx context.Context, where ruleList, plan rulesModel, diags *diag.Diagnostics) (pveapi.FirewallRuleList, []map[string]string, bool) {
	list, ok := where.resolveForWrite(ctx, r.client, diags)
	if !ok {
		return list, nil, false
	}
	desired, ok := r.desired(ctx, plan, diags)
	return list, desired, ok
}

// desired is the planned rules as PVE's parameters.
func (r *rulesResource) desired(ctx context.Context, m rulesModel, diags *diag.Diagnostics) ([]map[string]string, bool) {
	rules, ok := rulesFromList(ctx, m.Rules, diags)
	if !ok {
		if !diags.HasError() {
			diags.AddAttributeError(path.Root("rules"), "Rules Not Known", "The rules must be known when they are applied.")
		}
		return nil, false
	}
	out := make([]map[string]string, len(rules))
	for i, rule := range rules {
		out[i] = rule.fields()
	}
	return out, true
}

// readBack reads the list after a write into m, keeping the configured
// spelling, and records it for the next edit.
func (r *rulesResource) readBack(ctx context.Context, list pveapi.FirewallRuleList, where ruleList, m *rulesModel, private privateSetter, diags *diag.Diagnostics) {
	live, err := readRules(ctx, r.client, list)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Firewall Rules After Writing Them", err)
		return
	}
	configured, _ := rulesFromList(ctx, m.Rules, diags)
	m.Rules = rulesList(ctx, keepSpelling(live.Rules, configured), diags)
	m.ID = types.StringValue(where.id())
	saveSnapshot(ctx, private, live, diags)
}

func (r *rulesResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state rulesModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	where := ruleListOf(state)
	list, ok := where.resolveExisting(ctx, r.client, &resp.Diagnostics, func() { resp.State.RemoveResource(ctx) })
	if !ok {
		return
	}
	live, err := readRules(ctx, r.client, list)
	if pveapi.IsNoSuchSecurityGroup(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Firewall Rules", err)
		return
	}
	configured, _ := rulesFromList(ctx, state.Rules, &resp.Diagnostics)
	state.Rules = rulesList(ctx, keepSpelling(live.Rules, configured), &resp.Diagnostics)
	state.ID = types.StringValue(where.id())
	saveSnapshot(ctx, resp.Private, live, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
}

func (r *rulesResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state rulesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	where := ruleListOf(plan)
	list, desired, ok := r.prepareWrite(ctx, where, plan, &resp.Diagnostics)
	if !ok {
		return
	}
	prior, _ := r.desired(ctx, state, &resp.Diagnostics)
	seen, haveSeen := loadSnapshot(ctx, req.Private)
	if haveSeen && !slices.Equal(ruleKeys(seen.Rules), ruleKeys(prior)) {
		haveSeen = false
	}
	if state.SecurityGroup.ValueString() != plan.SecurityGroup.ValueString() {
		// The group was renamed (its rules came along) or the list moved
		// to another group: either way the list to edit is read anew and
		// must be the state's.
		haveSeen = false
	}
	writer := newRuleWriter(r.client, list, where.describe(), seen, haveSeen)
	if err := writer.apply(ctx, prior, desired); err != nil {
		fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("rules"), "Unable To Update Firewall Rules", err)
		return
	}
	r.readBack(ctx, list, where, &plan, resp.Private, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *rulesResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state rulesModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	where := ruleListOf(state)
	list, ok := where.resolveExisting(ctx, r.client, &resp.Diagnostics, nil)
	if !ok {
		return // the lookup failed, or the guest and its firewall are gone
	}
	prior, _ := r.desired(ctx, state, &resp.Diagnostics)
	seen, haveSeen := loadSnapshot(ctx, req.Private)
	if haveSeen && !slices.Equal(ruleKeys(seen.Rules), ruleKeys(prior)) {
		haveSeen = false
	}
	writer := newRuleWriter(r.client, list, where.describe(), seen, haveSeen)
	err := writer.apply(ctx, prior, nil)
	var changed errChangedOutside
	if errors.As(err, &changed) && writer.lastRead != nil {
		// The list changed since the plan: delete the rules this
		// resource knows and leave the others where they are.
		err = r.deleteKnown(ctx, list, where, prior, *writer.lastRead, &resp.Diagnostics)
	}
	if pveapi.IsNoSuchSecurityGroup(err) {
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Firewall Rules", err)
	}
}

// deleteKnown deletes from live the rules that are in known (each once),
// leaving the rest, and warns about what it left.
func (r *rulesResource) deleteKnown(ctx context.Context, list pveapi.FirewallRuleList, where ruleList, known []map[string]string, live listSnapshot, diags *diag.Diagnostics) error {
	remaining := map[string]int{}
	for _, key := range ruleKeys(known) {
		remaining[key]++
	}
	var keep []map[string]string
	for _, rule := range live.Rules {
		if key := ruleKey(rule); remaining[key] > 0 {
			remaining[key]--
			continue
		}
		keep = append(keep, rule)
	}
	writer := newRuleWriter(r.client, list, where.describe(), live, true)
	if err := writer.apply(ctx, live.Rules, keep); err != nil {
		return err
	}
	if len(keep) > 0 {
		diags.AddWarning("Firewall Rules Left In Place", fmt.Sprintf(
			"%s had %d rules that were not in Terraform's state when it was destroyed (added or changed outside Terraform); they were left in place.",
			fwutil.Capitalize(where.describe()), len(keep)))
	}
	return nil
}

func (r *rulesResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if group, ok := strings.CutPrefix(req.ID, "group/"); ok && group != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("security_group"), group)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("rules"), rulesList(ctx, nil, &resp.Diagnostics))...)
		return
	}
	scope, rest, err := parseScope(req.ID)
	if err != nil || rest != "" {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import pve_firewall_rules as cluster, node/NODE, guest/VMID or group/NAME (a security group), got "+req.ID+".")
		return
	}
	if scope.Node != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node"), scope.Node)...)
	}
	if scope.VMID != 0 {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(scope.VMID))...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), scope.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("rules"), rulesList(ctx, nil, &resp.Diagnostics))...)
}
