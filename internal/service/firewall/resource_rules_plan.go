package firewall

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ruleAttrOf maps PVE's rule parameter names to the attributes.
var ruleAttrOf = map[string]string{
	"type": "type", "action": "action", "macro": "macro", "iface": "iface", "source": "source", "dest": "dest",
	"proto": "proto", "dport": "dport", "sport": "sport", "icmp-type": "icmp_type", "log": "log", "comment": "comment",
	"enable": "enabled",
}

func (r *rulesResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config rulesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if at, msg, conflict := conflictingScope(config.Node, config.VMID); conflict {
		resp.Diagnostics.AddAttributeError(at, "Conflicting Firewall Scope", msg)
	}
	if !config.SecurityGroup.IsNull() && (!config.Node.IsNull() || !config.VMID.IsNull()) {
		resp.Diagnostics.AddAttributeError(path.Root("security_group"), "Conflicting Firewall Scope",
			"A security group's rules belong to the group alone: set security_group without node and vmid. "+
				"To use the group in a firewall, add a rule with type = \"group\" and action = the group's name there.")
	}
	if g := config.SecurityGroup; !g.IsNull() && !g.IsUnknown() {
		if err := wire.ValidateFirewallName(wire.FirewallGroupName, g.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("security_group"), "Invalid Security Group Name", err.Error())
		} else if lower := strings.ToLower(g.ValueString()); lower != g.ValueString() {
			resp.Diagnostics.AddAttributeError(path.Root("security_group"), "Invalid Security Group Name", fmt.Sprintf(
				"PVE stores security group names in lowercase and finds a group only by that name: write %q.", lower))
		}
	}
	if config.Rules.IsUnknown() || config.Rules.IsNull() {
		return
	}
	env := ruleListOf(config).env()
	for i, elem := range config.Rules.Elements() {
		if elem.IsUnknown() {
			continue
		}
		var rule ruleModel
		if diags := configRule(ctx, elem, &rule); diags.HasError() {
			continue
		}
		fields, unknown := ruleFieldsForCheck(rule)
		if fields.Type == "group" && !unknown["action"] && fields.Action != strings.ToLower(fields.Action) {
			// The rule file keeps the name as written while the group is
			// read back lowercased, so such a rule would never match.
			resp.Diagnostics.AddAttributeError(path.Root("rules").AtListIndex(i).AtName("action"), "Invalid Firewall Rule", fmt.Sprintf(
				"rules[%d].action: PVE stores security group names in lowercase and a rule must name the group that way: write %q.",
				i, strings.ToLower(fields.Action)))
		}
		for _, p := range wire.FirewallRuleProblems(fields, wire.FirewallRuleEnv(env)) {
			name := ruleAttrOf[p.Field]
			if name == "" {
				name = "type"
			}
			if unknown[name] {
				continue // checked once the value is known
			}
			resp.Diagnostics.AddAttributeError(path.Root("rules").AtListIndex(i).AtName(name), "Invalid Firewall Rule",
				fmt.Sprintf("rules[%d].%s: %s", i, name, p.Message))
		}
	}
}

// configRule decodes one rule of the configuration.
func configRule(ctx context.Context, elem attr.Value, rule *ruleModel) diag.Diagnostics {
	obj, ok := elem.(types.Object)
	if !ok {
		var diags diag.Diagnostics
		diags.AddError("Unexpected Rule Value", fmt.Sprintf("a rule is %T, not an object", elem))
		return diags
	}
	return obj.As(ctx, rule, basetypes.ObjectAsOptions{})
}

// ruleFieldsForCheck is a configured rule for the grammar checks, and the
// attributes not known yet, whose problems wait until they are. An unknown
// action stands in as a valid one, so the rest of the rule is checked.
func ruleFieldsForCheck(m ruleModel) (wire.FirewallRuleFields, map[string]bool) {
	unknown := map[string]bool{}
	get := func(name string, v types.String) string {
		if v.IsUnknown() {
			unknown[name] = true
		}
		return knownString(v)
	}
	fields := wire.FirewallRuleFields{
		Type: get("type", m.Type), Action: get("action", m.Action), Macro: get("macro", m.Macro), Iface: get("iface", m.Iface),
		Source: get("source", m.Source), Dest: get("dest", m.Dest), Proto: get("proto", m.Proto), Dport: get("dport", m.Dport),
		Sport: get("sport", m.Sport), Log: get("log", m.Log), ICMPType: get("icmp_type", m.ICMPType), Comment: get("comment", m.Comment),
	}
	if unknown["action"] {
		fields.Action = "ACCEPT"
		if fields.Type == "group" {
			fields.Action = "placeholder"
		}
	}
	return fields, unknown
}

// ModifyPlan refuses, before anything is applied, rules that name an
// alias, IP set or security group PVE does not have. PVE itself refuses a
// missing alias or IP set only when the rule is written, and accepts a rule
// for a security group that does not exist, which then never matches.
// Names not known yet (another resource's ref) are left to the apply.
func (r *rulesResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.client == nil {
		return
	}
	if !req.State.Raw.IsNull() && req.State.Raw.Equal(req.Plan.Raw) {
		return
	}
	var plan rulesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The id names the list; a security group renamed in place renames it.
	if !plan.SecurityGroup.IsUnknown() && !plan.Node.IsUnknown() && !plan.VMID.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), ruleListOf(plan).id())...)
	}
	if plan.Rules.IsUnknown() {
		return
	}
	var rules []ruleModel
	for _, elem := range plan.Rules.Elements() {
		var rule ruleModel
		if elem.IsUnknown() || configRule(ctx, elem, &rule).HasError() {
			rules = append(rules, ruleModel{})
			continue
		}
		rules = append(rules, rule)
	}
	where := ruleListOf(plan)
	if where.scope.kind() == guestScope && plan.VMID.IsUnknown() {
		return
	}
	refs := referencesOf(rules)
	if refs.empty() {
		return
	}
	checker := referenceChecker{client: r.client, where: where}
	checker.check(ctx, refs, &resp.Diagnostics)
}

// ruleReference is a name a rule uses, with where it is used.
type ruleReference struct {
	index int
	attr  string
	value string
}

type ruleReferences struct {
	addresses []ruleReference // aliases and IP sets in source and dest
	groups    []ruleReference // security groups of type = group rules
}

func (r ruleReferences) empty() bool { return len(r.addresses) == 0 && len(r.groups) == 0 }

// referencesOf collects the known names the rules use.
func referencesOf(rules []ruleModel) ruleReferences {
	var out ruleReferences
	for i, rule := range rules {
		if rule.Type.ValueString() == "group" && !rule.Action.IsUnknown() && !rule.Action.IsNull() {
			out.groups = append(out.groups, ruleReference{i, "action", rule.Action.ValueString()})
			continue
		}
		for attr, v := range map[string]string{"source": knownString(rule.Source), "dest": knownString(rule.Dest)} {
			if wire.IsFirewallReference(v) {
				out.addresses = append(out.addresses, ruleReference{i, attr, v})
			}
		}
	}
	return out
}

func knownString(v interface {
	IsNull() bool
	IsUnknown() bool
	ValueString() string
}) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

type referenceChecker struct {
	client *pveapi.Client
	where  ruleList
}

func (c referenceChecker) check(ctx context.Context, refs ruleReferences, diags *diag.Diagnostics) {
	if len(refs.groups) > 0 {
		groups, err := c.client.SecurityGroups(ctx)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To List Security Groups", err)
			return
		}
		for _, ref := range refs.groups {
			if !slices.ContainsFunc(groups, func(g pveapi.SecurityGroup) bool { return g.Group == ref.value }) {
				diags.AddAttributeError(path.Root("rules").AtListIndex(ref.index).AtName(ref.attr), "Security Group Not Found", fmt.Sprintf(
					"rules[%d].action: PVE has no security group %q; PVE would accept the rule and it would never match. If this configuration creates the group, "+
						"write action = pve_firewall_security_group.NAME.ref so Terraform creates it first.", ref.index, ref.value))
			}
		}
	}
	if len(refs.addresses) == 0 {
		return
	}
	// A guest's references are its own and the cluster's (pve-firewall
	// PVE/API2/Firewall/VM.pm refs); everyone else's are the cluster's.
	scope := pveapi.FirewallScope{}
	if c.where.group == "" && c.where.scope.kind() == guestScope {
		var found bool
		var err error
		scope, found, err = c.where.scope.resolve(ctx, c.client)
		if err != nil || !found {
			return // the guest comes with this apply, or the apply reports it
		}
	}
	known, err := c.client.FirewallRefs(ctx, scope, "")
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Firewall Aliases And IP Sets", err)
		return
	}
	for _, ref := range refs.addresses {
		kind, name, scope := wire.ParseFirewallReference(ref.value)
		if !slices.ContainsFunc(known, func(k pveapi.FirewallRef) bool {
			return k.Type == kind && strings.EqualFold(k.Name, name) && (scope == "" || scope == k.Scope)
		}) {
			noun := map[string]string{"alias": "alias", "ipset": "IP set"}[kind]
			diags.AddAttributeError(path.Root("rules").AtListIndex(ref.index).AtName(ref.attr), "Firewall Reference Not Found", fmt.Sprintf(
				"rules[%d].%s: %s has no %s %q that a rule here may use. If this configuration creates it, write %s = pve_firewall_%s.NAME.ref so Terraform creates it first.",
				ref.index, ref.attr, fwutil.Capitalize(c.where.describe()), noun, name, ref.attr, kind))
		}
	}
}
