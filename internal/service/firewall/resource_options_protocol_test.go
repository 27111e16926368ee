package firewall_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/firewall"
)

// optionsValue is a pve_firewall_options configuration with attrs set and
// every other attribute null.
func optionsValue(t *testing.T, p *acctest.Protocol, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	typ := p.StateValue(t, "pve_firewall_options", p.NullState(t, "pve_firewall_options")).Type().(tftypes.Object)
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

// Turning the cluster's firewall on with a dropping input policy warns at
// plan time, naming what PVE keeps open and from where.
func TestOptionsLockoutWarningInPlan(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	on := tftypes.NewValue(tftypes.Bool, true)
	null := p.NullState(t, "pve_firewall_options")

	resp := p.PlanResponse(t, "pve_firewall_options", null, optionsValue(t, p, map[string]tftypes.Value{
		"enabled": on, "policy_in": tftypes.NewValue(tftypes.String, "DROP"),
	}))
	acctest.WantAll(t, "the lock-out warning", acctest.Warning(resp.Diagnostics, firewall.LockoutWarningSummary),
		"input policy DROP", "IP set `management`", "(8006)", "SSH (22)", "`local_network`", "add its address to the IP set `management`")

	// Unset, PVE's own policy applies, DROP unless one is set.
	resp = p.PlanResponse(t, "pve_firewall_options", null, optionsValue(t, p, map[string]tftypes.Value{"enabled": on}))
	acctest.WantAll(t, "the lock-out warning", acctest.Warning(resp.Diagnostics, firewall.LockoutWarningSummary), "DROP unless policy_in is set")

	for what, attrs := range map[string]map[string]tftypes.Value{
		"ACCEPT policy":    {"enabled": on, "policy_in": tftypes.NewValue(tftypes.String, "ACCEPT")},
		"firewall off":     {"enabled": tftypes.NewValue(tftypes.Bool, false), "policy_in": tftypes.NewValue(tftypes.String, "DROP")},
		"a node's options": {"enabled": on, "node": tftypes.NewValue(tftypes.String, "pve1")},
	} {
		resp := p.PlanResponse(t, "pve_firewall_options", null, optionsValue(t, p, attrs))
		if w := acctest.Warning(resp.Diagnostics, firewall.LockoutWarningSummary); w != "" {
			t.Errorf("%s: unexpected warning: %s", what, w)
		}
	}
}
