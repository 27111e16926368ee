package sdn_test

import (
	"context"
	"reflect"
	"regexp"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

var (
	openFabric = map[string]any{"fabric": "fab1", "protocol": "openfabric", "ip_prefix": "10.10.0.0/24", "ip6_prefix": "2001:db8:10::/64"}
	ospfFabric = map[string]any{"fabric": "ospf1", "protocol": "ospf", "ip_prefix": "10.20.0.0/24", "area": "0"}
	fabricNode = map[string]any{"fabric": "fab1", "node": "pve1", "ip": "10.10.0.1", "ip6": "2001:db8:10::1",
		"interfaces": map[string]map[string]any{"ens19": {}, "ens20": {"hello_multiplier": 3}}}
)

// Bad fabric input is refused at plan time, naming the attribute: options
// of the other protocol, a missing prefix or area, prefixes and addresses
// not in the form PVE stores them.
func TestSDNFabricPlanRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for rt, cfg := range map[string]map[string]any{"pve_sdn_fabric": openFabric, "pve_sdn_fabric_node": fabricNode} {
		if msg := pluginErrors(planCreate(t, p, rt, cfg)); msg != "" {
			t.Errorf("%s: a valid configuration is refused: %s", rt, msg)
		}
	}
	if msg := pluginErrors(planCreate(t, p, "pve_sdn_fabric", ospfFabric)); msg != "" {
		t.Errorf("ospf: a valid configuration is refused: %s", msg)
	}
	for _, tc := range []struct {
		rt, attr string
		cfg      map[string]any
		want     string
	}{
		{"pve_sdn_fabric", "fabric", pluginWith(openFabric, "fabric", "toolongid"), `not a fabric id`},
		{"pve_sdn_fabric", "protocol", pluginWith(openFabric, "protocol", "wireguard"), `value must be one of`},
		{"pve_sdn_fabric", "ip_prefix", pluginWith(openFabric, "ip_prefix", "10.10.0.5/24"), `write 10.10.0.0/24`},
		{"pve_sdn_fabric", "ip6_prefix", pluginWith(openFabric, "ip6_prefix", "2001:0db8:10::/64"), `write 2001:db8:10::/64`},
		{"pve_sdn_fabric", "ip_prefix", pluginWith(openFabric, "ip_prefix", nil, "ip6_prefix", nil), `needs ip_prefix, ip6_prefix or both`},
		{"pve_sdn_fabric", "area", pluginWith(openFabric, "area", "0"), `protocol openfabric does not take area`},
		{"pve_sdn_fabric", "area", pluginWith(ospfFabric, "area", nil), `needs area`},
		{"pve_sdn_fabric", "area", pluginWith(ospfFabric, "area", "007"), `as 7`},
		{"pve_sdn_fabric", "hello_interval", pluginWith(ospfFabric, "hello_interval", 3), `protocol ospf does not take hello_interval`},
		{"pve_sdn_fabric", "ip6_prefix", pluginWith(ospfFabric, "ip6_prefix", "2001:db8::/64"), `protocol ospf does not take ip6_prefix`},
		{"pve_sdn_fabric", "csnp_interval", pluginWith(openFabric, "csnp_interval", 601), `between 1 and 600`},
		{"pve_sdn_fabric_node", "ip", pluginWith(fabricNode, "ip", "10.10.0.1/24"), `not an IPv4 address`},
		{"pve_sdn_fabric_node", "ip6", pluginWith(fabricNode, "ip6", "2001:db8:10:0::1"), `2001:db8:10::1`},
		{"pve_sdn_fabric_node", "interfaces", pluginWith(fabricNode, "interfaces", map[string]map[string]any{"1bad": {}}), `interface name`},
		{"pve_sdn_fabric_node", "interfaces", pluginWith(fabricNode, "interfaces", map[string]map[string]any{"ens19": {"hello_multiplier": 1}}), `between 2 and 100`},
	} {
		pluginWantError(t, planCreate(t, p, tc.rt, tc.cfg), tc.attr, regexp.MustCompile(tc.want))
	}
}

// PVE 8.4 has no fabrics: a fabric or fabric node is refused at plan time.
func TestSDNFabricNeedsPVE9(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "8.4")
	for rt, cfg := range map[string]map[string]any{"pve_sdn_fabric": openFabric, "pve_sdn_fabric_node": fabricNode} {
		pluginWantError(t, planCreate(t, p, rt, cfg), "", regexp.MustCompile(`SDN fabrics exist from PVE 9.0 on; this cluster runs PVE 8.4`))
	}
}

// A fabric and a node: create (staged), empty plans before and after the
// SDN apply, import round trips, in-place updates (an interval removed,
// interfaces and addresses changed), the prefix removal refused, a node
// deleted outside Terraform, destroy.
func TestSDNFabricLifecycle(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ft, nt := "pve_sdn_fabric", "pve_sdn_fabric_node"
	fcfg := p.Config(t, ft, pluginWith(openFabric, "hello_interval", 5))
	fstate, _ := pluginApply(t, p, ft, p.NullState(t, ft), fcfg)
	ncfg := p.Config(t, nt, fabricNode)
	nstate, _ := pluginApply(t, p, nt, p.NullState(t, nt), ncfg)
	pluginNoChange(t, p, ft, p.Read(t, ft, fstate, nil), fcfg, "fabric after create")
	pluginNoChange(t, p, nt, p.Read(t, nt, nstate, nil), ncfg, "node after create")
	if err := p.Sim.Update(func(c *pvesim.Cluster) error { c.SDN.Commit(); return nil }); err != nil {
		t.Fatal(err)
	}
	pluginNoChange(t, p, ft, p.Read(t, ft, fstate, nil), fcfg, "fabric after the SDN apply")
	pluginNoChange(t, p, nt, p.Read(t, nt, nstate, nil), ncfg, "node after the SDN apply")
	for rt, tc := range map[string]struct {
		id    string
		state *tfprotov6.DynamicValue
	}{ft: {"fab1", fstate}, nt: {"fab1/pve1", nstate}} {
		imported := p.Import(t, rt, tc.id)
		if !p.StateValue(t, rt, imported).Equal(p.StateValue(t, rt, tc.state)) {
			diffs, _ := p.StateValue(t, rt, tc.state).Diff(p.StateValue(t, rt, imported))
			t.Errorf("%s: the import differs: %v", rt, diffs)
		}
	}

	fcfg2 := p.Config(t, ft, pluginWith(openFabric, "csnp_interval", 10))
	fstate, plan := pluginApply(t, p, ft, fstate, fcfg2)
	if len(plan.RequiresReplace) > 0 {
		t.Errorf("an interval change replaces: %v", plan.RequiresReplace)
	}
	if v := pluginAttr(t, p, ft, fstate, "hello_interval"); !v.IsNull() {
		t.Errorf("hello_interval %v after its removal", v)
	}
	pluginNoChange(t, p, ft, p.Read(t, ft, fstate, nil), fcfg2, "fabric after update")

	ncfg2 := p.Config(t, nt, pluginWith(fabricNode, "ip6", "2001:db8:10::7", "ip", "10.10.0.7",
		"interfaces", map[string]map[string]any{"ens19": {"ip": "10.10.1.1/31"}, "ens21": {}}))
	nstate, plan = pluginApply(t, p, nt, nstate, ncfg2)
	if len(plan.RequiresReplace) > 0 {
		t.Errorf("a node change replaces: %v", plan.RequiresReplace)
	}
	pluginNoChange(t, p, nt, p.Read(t, nt, nstate, nil), ncfg2, "node after update")

	pluginWantError(t, p.PlanResponse(t, ft, fstate, p.Config(t, ft, pluginWith(openFabric, "csnp_interval", 10, "ip6_prefix", nil))).Diagnostics,
		"ip6_prefix", regexp.MustCompile(`PVE cannot remove ip6_prefix from fabric fab1`))

	pluginDestroy(t, p, nt, nstate)
	if got := p.ReadResponse(t, nt, nstate, nil).NewState; got != nil && !p.StateValue(t, nt, got).IsNull() {
		t.Error("a node staged for deletion still reads as present")
	}
	pluginDestroy(t, p, ft, fstate)
	if got := p.ReadResponse(t, ft, fstate, nil).NewState; got != nil && !p.StateValue(t, ft, got).IsNull() {
		t.Error("a fabric staged for deletion still reads as present")
	}
}

// The pending view of fabrics and their nodes names them by sdn_id, new
// ones (whose ids PVE shows only under pending) included, until the SDN
// apply; PVE 8.4 has none.
func TestSDNFabricsPending(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	pending := func() []string {
		entries, err := p.Client.SDNFabricsPending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.SDNID()+"="+e.State)
		}
		sort.Strings(out)
		return out
	}
	ft, nt := "pve_sdn_fabric", "pve_sdn_fabric_node"
	pluginApply(t, p, ft, p.NullState(t, ft), p.Config(t, ft, openFabric))
	nstate, _ := pluginApply(t, p, nt, p.NullState(t, nt), p.Config(t, nt, fabricNode))
	if got := pending(); !reflect.DeepEqual(got, []string{"fabric-node/fab1/pve1=new", "fabric/fab1=new"}) {
		t.Errorf("pending after create: %v", got)
	}
	if err := p.Sim.Update(func(c *pvesim.Cluster) error { c.SDN.Commit(); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := pending(); len(got) != 0 {
		t.Errorf("pending after the SDN apply: %v", got)
	}
	pluginDestroy(t, p, nt, nstate)
	if got := pending(); !reflect.DeepEqual(got, []string{"fabric-node/fab1/pve1=deleted"}) {
		t.Errorf("pending after the node's deletion: %v", got)
	}
	p84 := acctest.NewProtocolOnPVE(t, "8.4")
	if entries, err := p84.Client.SDNFabricsPending(ctx); err != nil || len(entries) != 0 {
		t.Errorf("PVE 8.4: %v %v", entries, err)
	}
}
