package sdn_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func errorsOf(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "\n")
}

// wantErrorUnder checks for an error containing want on attribute attr or
// one of its elements.
func wantErrorUnder(tb testing.TB, diags []*tfprotov6.Diagnostic, attr, want string) {
	tb.Helper()
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError || !strings.Contains(d.Summary+": "+d.Detail, want) {
			continue
		}
		if d.Attribute == nil || len(d.Attribute.Steps()) == 0 || d.Attribute.Steps()[0] != tftypes.AttributeName(attr) {
			tb.Errorf("the error %q names %v, want attribute %s", d.Detail, d.Attribute, attr)
		}
		return
	}
	tb.Errorf("no error on %s contains %q; errors:\n%s", attr, want, errorsOf(diags))
}

// Bad input is refused at plan time, naming the attribute, before anything
// is sent: options a zone type does not take or lacks (pve-network's zone
// plugins' options()), a vxlan zone without exactly one of peers and
// fabric, ids PVE's schema refuses, and a subnet's addresses outside it.
func TestSDNPlanRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, tc := range []struct {
		typeName, attr string
		cfg            map[string]any
		want           string
	}{
		{"pve_sdn_zone", "zone", map[string]any{"zone": "1lab", "type": "simple"}, "must be 2 to 8"},
		{"pve_sdn_zone", "zone", map[string]any{"zone": "toolongid", "type": "simple"}, "must be 2 to 8"},
		{"pve_sdn_zone", "type", map[string]any{"zone": "lab", "type": "faucet"}, "value must be one of"},
		{"pve_sdn_zone", "bridge", map[string]any{"zone": "lab", "type": "simple", "bridge": "vmbr0"}, "does not apply to zone type simple"},
		{"pve_sdn_zone", "dhcp", map[string]any{"zone": "lab", "type": "vlan", "bridge": "vmbr0", "dhcp": "dnsmasq"}, "does not apply to zone type vlan"},
		{"pve_sdn_zone", "bridge", map[string]any{"zone": "lab", "type": "vlan"}, "Zone type vlan requires attribute bridge"},
		{"pve_sdn_zone", "tag", map[string]any{"zone": "lab", "type": "qinq", "bridge": "vmbr0"}, "Zone type qinq requires attribute tag"},
		{"pve_sdn_zone", "controller", map[string]any{"zone": "lab", "type": "evpn", "vrf_vxlan": 10}, "Zone type evpn requires attribute controller"},
		{"pve_sdn_zone", "peers", map[string]any{"zone": "lab", "type": "vxlan"}, "exactly one of peers"},
		{"pve_sdn_zone", "vlan_protocol", map[string]any{"zone": "lab", "type": "qinq", "bridge": "vmbr0", "tag": 10, "vlan_protocol": "802.1x"}, "value must be one of"},
		{"pve_sdn_zone", "vxlan_port", map[string]any{"zone": "lab", "type": "vxlan", "peers": []string{"10.0.0.1"}, "vxlan_port": 70000}, "at most 65536"},
		{"pve_sdn_zone", "dnszone", map[string]any{"zone": "lab", "type": "simple", "dnszone": "lab.example"}, "dnszone needs dns"},
		{"pve_sdn_vnet", "vnet", map[string]any{"vnet": "a-b", "zone": "lab"}, "must be 2 to 8"},
		{"pve_sdn_vnet", "tag", map[string]any{"vnet": "web", "zone": "lab", "tag": 0}, "at least 1"},
		{"pve_sdn_subnet", "cidr", map[string]any{"vnet": "web", "cidr": "10.0.0.1/24"}, `use "10.0.0.0/24"`},
		{"pve_sdn_subnet", "cidr", map[string]any{"vnet": "web", "cidr": "10.0.0.0"}, "not a CIDR"},
		{"pve_sdn_subnet", "gateway", map[string]any{"vnet": "web", "cidr": "10.0.0.0/24", "gateway": "10.0.1.1"}, "not in subnet 10.0.0.0/24"},
		{"pve_sdn_subnet", "gateway", map[string]any{"vnet": "web", "cidr": "10.0.0.0/24", "gateway": "gw"}, "must be an IP address"},
		{"pve_sdn_subnet", "dhcp_range", map[string]any{"vnet": "web", "cidr": "10.0.0.0/24",
			"dhcp_range": []map[string]any{{"start_address": "10.0.0.10", "end_address": "10.0.2.20"}}}, "not in subnet"},
		{"pve_sdn_subnet", "dhcp_range", map[string]any{"vnet": "web", "cidr": "10.0.0.0/24",
			"dhcp_range": []map[string]any{{"start_address": "10.0.0.30", "end_address": "10.0.0.20"}}}, "must not be after"},
	} {
		wantErrorUnder(t, p.PlanCreate(t, tc.typeName, tc.cfg), tc.attr, tc.want)
	}
	for typeName, cfg := range map[string]map[string]any{
		"pve_sdn_zone":   {"zone": "lab", "type": "qinq", "bridge": "vmbr0", "tag": 10, "vlan_protocol": "802.1ad"},
		"pve_sdn_vnet":   {"vnet": "web", "zone": "lab", "tag": 10},
		"pve_sdn_subnet": {"vnet": "web", "cidr": "fd00:10::/64", "gateway": "fd00:10::1"},
	} {
		if msg := errorsOf(p.PlanCreate(t, typeName, cfg)); msg != "" {
			t.Errorf("%s: a valid configuration is refused: %s", typeName, msg)
		}
	}
}

// A malformed import id is refused with the expected form.
func TestSDNImportIDs(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for typeName, id := range map[string]string{"pve_sdn_zone": "a", "pve_sdn_vnet": "web/x", "pve_sdn_subnet": "web/10.0.0.1/24"} {
		if msg := errorsOf(p.ImportDiagnostics(t, typeName, id)); !strings.Contains(msg, "Invalid Import ID") {
			t.Errorf("%s %q: %s", typeName, id, msg)
		}
	}
}

// PVE 8.4 has no fabrics: a vxlan zone on a fabric is refused at plan.
func TestSDNZoneFabric_pve84(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "8.4")
	wantErrorUnder(t, p.PlanCreate(t, "pve_sdn_zone", map[string]any{"zone": "vx", "type": "vxlan", "fabric": "f1"}),
		"fabric", "exists from PVE 9.0 on")
}
