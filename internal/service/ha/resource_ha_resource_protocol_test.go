package ha_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// haProtocolResource is a pve_ha_resource for vm:100 made outside
// Terraform and imported, with its configuration.
func haProtocolResource(t *testing.T) (p *acctest.Protocol, state, config *tfprotov6.DynamicValue) {
	t.Helper()
	p = acctest.NewProtocol(t)
	if err := p.Sim.AddGuest(pvesim.Guest{VMID: 100, Node: "pve1", Type: pvesim.QEMU, Status: "stopped",
		Config: map[string]string{"name": "web"}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.CreateHAResource(context.Background(), "vm:100", pveapi.HAResourceParams{}); err != nil {
		t.Fatal(err)
	}
	state = p.Import(t, "pve_ha_resource", "vm:100")
	return p, state, p.ConfigFromState(t, "pve_ha_resource", state)
}

func haAttributeError(diags []*tfprotov6.Diagnostic, summary string) *tfprotov6.Diagnostic {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError && d.Summary == summary {
			return d
		}
	}
	return nil
}

// On PVE 9 whose groups are migrated to rules, group is refused at plan
// time, on the attribute, pointing to pve_ha_rule.
func TestHAResourcePlanRefusesGroupOnMigratedPVE9(t *testing.T) {
	t.Parallel()
	p, state, config := haProtocolResource(t)
	// What PVE 9 answers on the group endpoints once its groups are
	// migrated (pve-ha-manager src/PVE/API2/HA/Groups.pm index).
	if err := p.Sim.InjectFault(pvesim.Fault{Method: "GET", Path: "/cluster/ha/groups", Action: pvesim.FaultRespond,
		Status: 500, Message: "cannot index groups: ha groups have been migrated to rules"}); err != nil {
		t.Fatal(err)
	}
	config = p.WithAttribute(t, "pve_ha_resource", config, "group", tftypes.NewValue(tftypes.String, "prefer1"))
	resp := p.PlanResponse(t, "pve_ha_resource", state, config)
	d := haAttributeError(resp.Diagnostics, "HA Groups Are Migrated To Rules")
	if d == nil {
		t.Fatalf("no refusal: %v", resp.Diagnostics)
	}
	if d.Attribute == nil || !strings.Contains(d.Attribute.String(), "group") || !strings.Contains(d.Detail, "pve_ha_rule") {
		t.Errorf("refusal %+v", d)
	}
	// Without group the plan does not ask about groups.
	p.Sim.ResetCounters()
	resp = p.PlanResponse(t, "pve_ha_resource", state, p.ConfigFromState(t, "pve_ha_resource", state))
	if len(resp.Diagnostics) != 0 || p.Sim.Count("GET", "/cluster/ha/groups") != 0 {
		t.Errorf("plan without group: %v, %d group reads", resp.Diagnostics, p.Sim.Count("GET", "/cluster/ha/groups"))
	}
}

// A state and a comment PVE cannot store are refused before any request.
func TestHAResourceValidatesValues(t *testing.T) {
	t.Parallel()
	p, state, config := haProtocolResource(t)
	for name, v := range map[string]tftypes.Value{
		"state":   tftypes.NewValue(tftypes.String, "enabled"),
		"comment": tftypes.NewValue(tftypes.String, "two\nlines"),
		"group":   tftypes.NewValue(tftypes.String, "1group"),
	} {
		bad := p.WithAttribute(t, "pve_ha_resource", config, name, v)
		resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
			TypeName: "pve_ha_resource", Config: bad,
		})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError && d.Attribute != nil && strings.Contains(d.Attribute.String(), name) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s = %v accepted: %v", name, v, resp.Diagnostics)
		}
	}
	_ = state
}

// The digest covers every HA resource: another resource's write makes an
// update with the earlier digest fail as a mismatch.
func TestHAResourceDigestCoversAllResources(t *testing.T) {
	t.Parallel()
	p, _, _ := haProtocolResource(t)
	ctx := context.Background()
	res, _, err := p.Client.GetHAResource(ctx, "vm:100")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Sim.AddGuest(pvesim.Guest{VMID: 102, Node: "pve2", Type: pvesim.QEMU, Config: map[string]string{"name": "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.CreateHAResource(ctx, "vm:102", pveapi.HAResourceParams{}); err != nil {
		t.Fatal(err)
	}
	stopped := "stopped"
	err = p.Client.UpdateHAResource(ctx, "vm:100", pveapi.HAResourceParams{State: &stopped}, nil, res.Digest)
	if !pveapi.IsHADigestMismatch(err) {
		t.Fatalf("stale digest: %v", err)
	}
}
