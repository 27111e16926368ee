package sdn_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// pluginWith copies base with the pairs key, value set (nil removes).
func pluginWith(base map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func pluginErrors(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "\n")
}

// planCreate is what `terraform plan` asks of the provider for a new
// resource, from a Terraform that supports write-only attributes:
// ValidateResourceConfig, then (without errors) PlanResourceChange.
func planCreate(tb testing.TB, p *acctest.Protocol, typeName string, attrs map[string]any) []*tfprotov6.Diagnostic {
	tb.Helper()
	cfg := p.Config(tb, typeName, attrs)
	v, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: typeName, Config: cfg,
		ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: true},
	})
	if err != nil {
		tb.Fatal(err)
	}
	if pluginErrors(v.Diagnostics) != "" {
		return v.Diagnostics
	}
	return p.PlanResponse(tb, typeName, p.NullState(tb, typeName), cfg).Diagnostics
}

// pluginWantError checks for an error matching want on attribute attr or
// one of its elements (a set's refused item).
func pluginWantError(tb testing.TB, diags []*tfprotov6.Diagnostic, attr string, want *regexp.Regexp) {
	tb.Helper()
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError || !want.MatchString(d.Summary+": "+d.Detail) {
			continue
		}
		if attr == "" {
			return
		}
		if d.Attribute == nil || len(d.Attribute.Steps()) == 0 || d.Attribute.Steps()[0] != tftypes.AttributeName(attr) {
			tb.Errorf("the error %q names %v, want attribute %s", d.Detail, d.Attribute, attr)
		}
		return
	}
	tb.Errorf("no error on %s matches %q; errors:\n%s", attr, want, pluginErrors(diags))
}

var (
	evpnCtl = map[string]any{"controller": "evpn1", "type": "evpn", "asn": 65000, "peers": []string{"10.0.0.1", "10.0.0.2"}}
	bgpCtl  = map[string]any{"controller": "bgp1", "type": "bgp", "asn": 65001, "peers": []string{"10.0.0.1"}, "node": "pve1"}
	isisCtl = map[string]any{"controller": "isis1", "type": "isis", "isis_domain": "d1", "isis_net": "49.0001.1921.6800.1002.00",
		"isis_ifaces": []string{"eth1"}, "node": "pve1"}
	netboxIPAM = map[string]any{"ipam": "netbox1", "type": "netbox", "url": "https://netbox.example.com/api", "token_wo": "nb-secret-1"}
	phpIPAM    = map[string]any{"ipam": "php1", "type": "phpipam", "url": "https://php.example.com/api/pve", "token_wo": "php-secret-1", "section": 1}
	pdns       = map[string]any{"dns": "pdns1", "type": "powerdns", "url": "http://10.0.0.53:8081/api/v1/servers/localhost", "key_wo": "pdns-key-1"}
)

// Every type's minimal configuration plans; bad input is refused at plan
// time naming the attribute: options of another type, missing required
// options (secrets included), EVPN's peers-or-fabric, ids and formats.
func TestSDNPluginPlanRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for rt, cfg := range map[string]map[string]any{
		"pve_sdn_controller": evpnCtl, "pve_sdn_dns": pdns, "pve_sdn_ipam": netboxIPAM,
	} {
		if msg := pluginErrors(planCreate(t, p, rt, cfg)); msg != "" {
			t.Errorf("%s: a valid configuration is refused: %s", rt, msg)
		}
	}
	for _, cfg := range []map[string]any{bgpCtl, isisCtl} {
		if msg := pluginErrors(planCreate(t, p, "pve_sdn_controller", cfg)); msg != "" {
			t.Errorf("%s: a valid configuration is refused: %s", cfg["type"], msg)
		}
	}
	for _, cfg := range []map[string]any{phpIPAM, {"ipam": "pve", "type": "pve"}} {
		if msg := pluginErrors(planCreate(t, p, "pve_sdn_ipam", cfg)); msg != "" {
			t.Errorf("%s: a valid configuration is refused: %s", cfg["type"], msg)
		}
	}
	for _, tc := range []struct {
		rt, attr string
		cfg      map[string]any
		want     string
	}{
		{"pve_sdn_controller", "controller", pluginWith(evpnCtl, "controller", "1evpn"), `not a valid controller id`},
		{"pve_sdn_controller", "controller", pluginWith(evpnCtl, "controller", strings.Repeat("a", 65)), `2 to 64 characters`},
		{"pve_sdn_controller", "type", pluginWith(evpnCtl, "type", "faucet"), `value must be one of`},
		{"pve_sdn_controller", "node", pluginWith(evpnCtl, "node", "pve1"), `type evpn does not take node; only bgp and isis do`},
		{"pve_sdn_controller", "ebgp", pluginWith(isisCtl, "ebgp", true), `type isis does not take ebgp`},
		{"pve_sdn_controller", "peers", pluginWith(bgpCtl, "peers", nil), `type bgp needs peers`},
		{"pve_sdn_controller", "isis_net", pluginWith(isisCtl, "isis_net", "49.0001"), `IS-IS network entity title`},
		{"pve_sdn_controller", "asn", pluginWith(evpnCtl, "asn", 4294967296), `at most 4294967295`},
		{"pve_sdn_controller", "peers", pluginWith(evpnCtl, "peers", nil), `Missing Peers`},
		{"pve_sdn_controller", "peers", pluginWith(evpnCtl, "fabric", "fab1"), `either peers or fabric`},
		{"pve_sdn_controller", "peers", pluginWith(evpnCtl, "peers", []string{"10.0.0.1,10.0.0.2"}), `must not contain`},
		{"pve_sdn_controller", "fabric", pluginWith(evpnCtl, "peers", nil, "fabric", "-bad"), `fabric id`},
		{"pve_sdn_ipam", "ipam", pluginWith(netboxIPAM, "ipam", "net-box"), `not a valid ipam id`},
		{"pve_sdn_ipam", "token_wo", pluginWith(netboxIPAM, "token_wo", nil), `type netbox needs token_wo`},
		{"pve_sdn_ipam", "section", pluginWith(phpIPAM, "section", nil), `type phpipam needs section`},
		{"pve_sdn_ipam", "section", pluginWith(netboxIPAM, "section", 3), `type netbox does not take section`},
		{"pve_sdn_ipam", "url", map[string]any{"ipam": "pve", "type": "pve", "url": "http://x"}, `type pve does not take url`},
		{"pve_sdn_ipam", "token_wo_version", map[string]any{"ipam": "pve", "type": "pve", "token_wo_version": 1}, `does not take token_wo_version`},
		{"pve_sdn_ipam", "fingerprint", pluginWith(netboxIPAM, "fingerprint", "aa:bb"), `32 hex byte pairs`},
		{"pve_sdn_dns", "key_wo", pluginWith(pdns, "key_wo", nil), `type powerdns needs key_wo`},
		{"pve_sdn_dns", "url", pluginWith(pdns, "url", nil), `type powerdns needs url`},
		{"pve_sdn_dns", "dns", pluginWith(pdns, "dns", "p_dns"), `not a valid dns id`},
	} {
		pluginWantError(t, planCreate(t, p, tc.rt, tc.cfg), tc.attr, regexp.MustCompile(tc.want))
	}
}

// The SDN id and the id are known at plan time, from the configuration
// alone, so that an applier listing the object plans with them.
func TestSDNPluginIDsKnownAtPlan(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for rt, tc := range map[string]struct {
		cfg      map[string]any
		id, want string
	}{
		"pve_sdn_controller": {evpnCtl, "evpn1", "controller/evpn1"},
		"pve_sdn_ipam":       {netboxIPAM, "netbox1", "ipam/netbox1"},
		"pve_sdn_dns":        {pdns, "pdns1", "dns/pdns1"},
	} {
		plan := p.PlanResponse(t, rt, p.NullState(t, rt), p.Config(t, rt, tc.cfg))
		if msg := pluginErrors(plan.Diagnostics); msg != "" {
			t.Fatalf("%s: %s", rt, msg)
		}
		v := p.StateValue(t, rt, plan.PlannedState)
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{"sdn_id": tc.want, "id": tc.id} {
			var got string
			if !attrs[name].IsKnown() || attrs[name].As(&got) != nil || got != want {
				t.Errorf("%s: planned %s %v, want %q", rt, name, attrs[name], want)
			}
		}
	}
}

// PVE 8.4 has no fabrics: an EVPN controller's fabric is refused at plan
// time there, naming the attribute.
func TestSDNControllerFabricNeedsPVE9(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "8.4")
	cfg := pluginWith(evpnCtl, "peers", nil, "fabric", "fab1")
	pluginWantError(t, planCreate(t, p, "pve_sdn_controller", cfg), "fabric", regexp.MustCompile(`exists from PVE 9.0 on; this cluster runs PVE 8.4`))
	p9 := acctest.NewProtocol(t)
	if msg := pluginErrors(planCreate(t, p9, "pve_sdn_controller", cfg)); msg != "" {
		t.Errorf("PVE 9 refuses an EVPN controller on a fabric: %s", msg)
	}
}
