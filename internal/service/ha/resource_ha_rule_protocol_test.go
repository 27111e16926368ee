package ha_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/ha"
)

// ruleConfigValue is a configuration of typeName with attrs set and every
// other attribute null.
func ruleConfigValue(t *testing.T, p *acctest.Protocol, typeName string, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	typ := p.StateValue(t, typeName, p.NullState(t, typeName)).Type().(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range attrs {
		values[name] = v
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func ruleStrV(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func ruleSetV(sids ...string) tftypes.Value {
	var vals []tftypes.Value
	for _, s := range sids {
		vals = append(vals, ruleStrV(s))
	}
	return tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, vals)
}

func ruleNodesV(nodes map[string]int64) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for n, p := range nodes {
		vals[n] = tftypes.NewValue(tftypes.Number, p)
	}
	return tftypes.NewValue(tftypes.Map{ElementType: tftypes.Number}, vals)
}

// ruleDiagError is the error of the given summary among diags, with its
// attribute path, "" when there is none.
func ruleDiagError(diags []*tfprotov6.Diagnostic, summary string) (detail, attr string) {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError && d.Summary == summary {
			if d.Attribute != nil {
				attr = d.Attribute.String()
			}
			return d.Detail, attr
		}
	}
	return "", ""
}

// Attributes of the other rule type, and required ones missing, are
// refused when the configuration is validated, naming the attribute.
func TestRuleTypeAttributesValidated(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range []struct {
		what    string
		attrs   map[string]tftypes.Value
		summary string
		attr    string
	}{
		{"affinity on node-affinity", map[string]tftypes.Value{
			"type": ruleStrV("node-affinity"), "nodes": ruleNodesV(map[string]int64{"pve1": 1}), "affinity": ruleStrV("positive"),
		}, "Attribute Not For This Rule Type", "affinity"},
		{"nodes missing", map[string]tftypes.Value{"type": ruleStrV("node-affinity")}, "Missing Attribute For This Rule Type", "nodes"},
		{"nodes on resource-affinity", map[string]tftypes.Value{
			"type": ruleStrV("resource-affinity"), "affinity": ruleStrV("negative"), "nodes": ruleNodesV(map[string]int64{"pve1": 1}),
		}, "Attribute Not For This Rule Type", "nodes"},
		{"strict on resource-affinity", map[string]tftypes.Value{
			"type": ruleStrV("resource-affinity"), "affinity": ruleStrV("negative"), "strict": tftypes.NewValue(tftypes.Bool, true),
		}, "Attribute Not For This Rule Type", "strict"},
		{"affinity missing", map[string]tftypes.Value{"type": ruleStrV("resource-affinity")}, "Missing Attribute For This Rule Type", "affinity"},
		{"one resource", map[string]tftypes.Value{
			"type": ruleStrV("resource-affinity"), "affinity": ruleStrV("positive"), "resources": ruleSetV("vm:100"),
		}, "Too Few Resources", "resources"},
	} {
		attrs := map[string]tftypes.Value{"rule": ruleStrV("r1"), "resources": ruleSetV("vm:100", "vm:101")}
		for k, v := range c.attrs {
			attrs[k] = v
		}
		resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
			TypeName: "pve_ha_rule", Config: ruleConfigValue(t, p, "pve_ha_rule", attrs),
		})
		if err != nil {
			t.Fatal(err)
		}
		if detail, attr := ruleDiagError(resp.Diagnostics, c.summary); detail == "" || attr != `AttributeName("`+c.attr+`")` {
			t.Errorf("%s: diagnostics %v", c.what, resp.Diagnostics)
		}
	}
}

// PVE 9 (fresh cluster: groups migrated): a group is refused at plan time
// with a pointer to pve_ha_rule and the migration PVE performs; on an
// upgraded cluster whose groups are not migrated yet, a group plans with a
// warning and a rule is refused (pve-ha-manager src/PVE/API2/HA/Rules.pm
// create_rule: "ha groups have not been migrated yet").
func TestGroupAndRuleSplitOnPVE9(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	group := ruleConfigValue(t, p, "pve_ha_group", map[string]tftypes.Value{
		"group": ruleStrV("prod"), "nodes": ruleNodesV(map[string]int64{"pve1": 2}),
	})
	rule := ruleConfigValue(t, p, "pve_ha_rule", map[string]tftypes.Value{
		"rule": ruleStrV("r1"), "type": ruleStrV("resource-affinity"), "resources": ruleSetV("vm:100", "vm:101"), "affinity": ruleStrV("positive"),
	})

	resp := p.PlanResponse(t, "pve_ha_group", p.NullState(t, "pve_ha_group"), group)
	detail, attr := ruleDiagError(resp.Diagnostics, ha.GroupsReplacedSummary)
	acctest.WantAll(t, "the group refusal", detail, "pve_ha_rule", `type = "node-affinity"`, "migrated", "ha-group-prod", "terraform import")
	if attr != `AttributeName("group")` {
		t.Errorf("refusal names %q", attr)
	}
	if resp := p.PlanResponse(t, "pve_ha_rule", p.NullState(t, "pve_ha_rule"), rule); len(resp.Diagnostics) != 0 {
		t.Errorf("rule plan on a migrated cluster: %v", resp.Diagnostics)
	}

	if err := p.Sim.SetHAGroupsUnmigrated(); err != nil {
		t.Fatal(err)
	}
	resp = p.PlanResponse(t, "pve_ha_group", p.NullState(t, "pve_ha_group"), group)
	acctest.WantAll(t, "the migration warning", acctest.Warning(resp.Diagnostics, ha.GroupMigrationSummary),
		"not migrated", "ha-group-prod", "nofailback", "failback", "pve_ha_rule")
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("group plan on an unmigrated cluster: %v", d)
		}
	}
	resp = p.PlanResponse(t, "pve_ha_rule", p.NullState(t, "pve_ha_rule"), rule)
	detail, _ = ruleDiagError(resp.Diagnostics, ha.RuleGroupsNotMigratedSummary)
	acctest.WantAll(t, "the rule refusal", detail, "migrated", "Apply again")
}
