package ha_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/ha"
)

// When PVE 9's HA manager migrates the groups (pve-ha-manager
// src/PVE/HA/Manager.pm try_persistent_group_migration), the refresh of a
// pve_ha_group forgets it and says where its settings went; the migrated
// rule imports into a pve_ha_rule without a diff.
func TestGroupForgottenAfterPVEMigration(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	if err := p.Sim.SetHAGroupsUnmigrated(); err != nil {
		t.Fatal(err)
	}
	restricted := true
	if err := p.Client.CreateHAGroup(ctx, "prod", pveapi.HAGroupConfig{Nodes: "pve1:2,pve2", Restricted: &restricted}); err != nil {
		t.Fatal(err)
	}
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.HA.Resources["vm:100"] = &pvesim.HAResource{SID: "vm:100", Props: map[string]string{"group": "prod"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_ha_group", "prod")
	if err := p.Sim.MigrateHAGroups(); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "pve_ha_group", CurrentState: state})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the migration warning", acctest.Warning(resp.Diagnostics, ha.GroupMigratedSummary),
		"ha-group-prod", "pve_ha_rule", "terraform import")
	if v := p.StateValue(t, "pve_ha_group", resp.NewState); !v.IsNull() {
		t.Errorf("group kept in state: %v", v)
	}

	rule := p.Import(t, "pve_ha_rule", "ha-group-prod")
	got := p.StateValue(t, "pve_ha_rule", rule)
	want := map[string]tftypes.Value{}
	if err := got.As(&want); err != nil {
		t.Fatal(err)
	}
	var nodes map[string]tftypes.Value
	if err := want["nodes"].As(&nodes); err != nil || len(nodes) != 2 {
		t.Errorf("migrated rule nodes = %v (%v)", want["nodes"], err)
	}
	var strict bool
	if err := want["strict"].As(&strict); err != nil || !strict {
		t.Errorf("migrated rule strict = %v", want["strict"])
	}
	cfg := p.ConfigFromState(t, "pve_ha_rule", rule)
	plan := p.PlanResponse(t, "pve_ha_rule", rule, cfg)
	if len(plan.RequiresReplace) != 0 || len(plan.Diagnostics) != 0 {
		t.Errorf("plan after import: %v %v", plan.RequiresReplace, plan.Diagnostics)
	}
}

// A rule that other rules made contradictory stays, and its refresh warns
// with PVE's reasons (pve-ha-manager src/PVE/API2/HA/Rules.pm read_rule
// "errors").
func TestRuleNotInEffectWarning(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		for _, sid := range []string{"vm:100", "vm:101"} {
			c.HA.Resources[sid] = &pvesim.HAResource{SID: sid, Props: map[string]string{}}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.CreateHARule(ctx, "r1", pveapi.HARuleConfig{Type: "node-affinity", Resources: "vm:100", Nodes: "pve1"}); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_ha_rule", "r1")
	// A second rule for the same resource, written straight into the
	// cluster's configuration (PVE refuses it through the API).
	if err := p.Sim.Update(func(c *pvesim.Cluster) error {
		c.HA.Rules["r2"] = &pvesim.HARule{ID: "r2", Type: "node-affinity", Order: 2, Props: map[string]string{"resources": "vm:100", "nodes": "pve2"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "pve_ha_rule", CurrentState: state})
	if err != nil {
		t.Fatal(err)
	}
	acctest.WantAll(t, "the warning", acctest.Warning(resp.Diagnostics, ha.RuleNotInEffectSummary),
		"r1", "resource 'vm:100' is already used in another node affinity rule")
}
