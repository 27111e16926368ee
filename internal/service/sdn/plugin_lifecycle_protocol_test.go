package sdn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// pluginApply plans cfg against prior and applies it; it fails the test on
// errors and returns the new state and the plan.
func pluginApply(tb testing.TB, p *acctest.Protocol, typeName string, prior, cfg *tfprotov6.DynamicValue) (*tfprotov6.DynamicValue, *tfprotov6.PlanResourceChangeResponse) {
	tb.Helper()
	plan := p.PlanResponse(tb, typeName, prior, cfg)
	if msg := pluginErrors(plan.Diagnostics); msg != "" {
		tb.Fatalf("plan: %s", msg)
	}
	resp, err := p.Server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: prior, PlannedState: plan.PlannedState, Config: cfg, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		tb.Fatal(err)
	}
	if msg := pluginErrors(resp.Diagnostics); msg != "" {
		tb.Fatalf("apply: %s", msg)
	}
	return resp.NewState, plan
}

// pluginNoChange checks that planning cfg against state changes nothing.
func pluginNoChange(tb testing.TB, p *acctest.Protocol, typeName string, state, cfg *tfprotov6.DynamicValue, when string) {
	tb.Helper()
	plan := p.PlanResponse(tb, typeName, state, cfg)
	if msg := pluginErrors(plan.Diagnostics); msg != "" {
		tb.Fatalf("%s: plan: %s", when, msg)
	}
	before := p.StateValue(tb, typeName, state)
	after := p.StateValue(tb, typeName, plan.PlannedState)
	if !before.Equal(after) || len(plan.RequiresReplace) > 0 {
		diffs, _ := before.Diff(after)
		tb.Errorf("%s: the plan is not empty: %v (replace %v)", when, diffs, plan.RequiresReplace)
	}
}

func pluginAttr(tb testing.TB, p *acctest.Protocol, typeName string, state *tfprotov6.DynamicValue, name string) tftypes.Value {
	tb.Helper()
	var m map[string]tftypes.Value
	if err := p.StateValue(tb, typeName, state).As(&m); err != nil {
		tb.Fatal(err)
	}
	return m[name]
}

// pluginDestroy applies a destroy plan of state.
func pluginDestroy(tb testing.TB, p *acctest.Protocol, typeName string, state *tfprotov6.DynamicValue) {
	tb.Helper()
	plan := p.PlanResponse(tb, typeName, state, nil)
	if msg := pluginErrors(plan.Diagnostics); msg != "" {
		tb.Fatalf("destroy plan: %s", msg)
	}
	resp, err := p.Server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: state, PlannedState: plan.PlannedState, Config: p.NullState(tb, typeName),
	})
	if err != nil {
		tb.Fatal(err)
	}
	if msg := pluginErrors(resp.Diagnostics); msg != "" {
		tb.Fatalf("destroy: %s", msg)
	}
}

// sdnStaged returns the staged options of the SDN object kind/id in the
// simulator (nil when there is none).
func sdnStaged(p *acctest.Protocol, kind, id string) map[string]string {
	var out map[string]string
	p.Sim.View(func(c *pvesim.Cluster) {
		if obj := c.SDN.Get(kind, id); obj != nil {
			out = map[string]string{}
			for k, v := range obj.Props {
				out[k] = v
			}
		}
	})
	return out
}

// A controller of each type: create (staged: the pending view shows it
// new, and state holds the staged values), an empty plan, import round
// trip, in-place update of an option and removal of an optional one,
// refresh after a deletion outside Terraform, destroy.
func TestSDNControllerLifecycleEveryType(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		for _, tc := range []struct {
			base          map[string]any
			attr          string
			to            any
			optional      string
			optionalValue any
		}{
			{evpnCtl, "peers", []string{"10.0.0.3"}, "", nil},
			{bgpCtl, "asn", 65010, "ebgp_multihop", 3},
			{isisCtl, "isis_ifaces", []string{"eth1", "eth2"}, "loopback", "lo0"},
		} {
			name := tc.base["type"].(string) + "/" + version
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				p := acctest.NewProtocolOnPVE(t, version)
				if version == "" {
					p = acctest.NewProtocol(t)
				}
				rt := "pve_sdn_controller"
				id := tc.base["controller"].(string)
				cfg := p.Config(t, rt, tc.base)
				state, _ := pluginApply(t, p, rt, p.NullState(t, rt), cfg)
				if sdnStaged(p, pvesim.SDNControllers, id) == nil {
					t.Fatal("the controller is not in controllers.cfg")
				}
				p.Sim.View(func(c *pvesim.Cluster) {
					if c.SDN.RunningObject(pvesim.SDNControllers, id) != nil {
						t.Error("the create reached the running config without an SDN apply")
					}
				})
				pluginNoChange(t, p, rt, p.Read(t, rt, state, nil), cfg, "after create, staged")
				if err := p.Sim.Update(func(c *pvesim.Cluster) error { c.SDN.Commit(); return nil }); err != nil {
					t.Fatal(err)
				}
				pluginNoChange(t, p, rt, p.Read(t, rt, state, nil), cfg, "after the SDN apply")

				imported := p.Import(t, rt, id)
				if !p.StateValue(t, rt, imported).Equal(p.StateValue(t, rt, state)) {
					diffs, _ := p.StateValue(t, rt, state).Diff(p.StateValue(t, rt, imported))
					t.Errorf("the import differs: %v", diffs)
				}
				pluginNoChange(t, p, rt, imported, cfg, "after import")

				changed := pluginWith(tc.base, tc.attr, tc.to)
				if tc.optional != "" {
					changed = pluginWith(changed, tc.optional, tc.optionalValue)
				}
				ccfg := p.Config(t, rt, changed)
				state, plan := pluginApply(t, p, rt, state, ccfg)
				if len(plan.RequiresReplace) > 0 {
					t.Errorf("an option change replaces: %v", plan.RequiresReplace)
				}
				pluginNoChange(t, p, rt, p.Read(t, rt, state, nil), ccfg, "after update")
				if tc.optional != "" {
					state, _ = pluginApply(t, p, rt, state, p.Config(t, rt, pluginWith(changed, tc.optional, nil)))
					if v := pluginAttr(t, p, rt, state, tc.optional); !v.IsNull() {
						t.Errorf("%s is %v after its removal", tc.optional, v)
					}
					key := strings.ReplaceAll(tc.optional, "_", "-")
					if v, ok := sdnStaged(p, pvesim.SDNControllers, id)[key]; ok {
						t.Errorf("PVE still has %s=%s", key, v)
					}
				}

				if err := p.Sim.Update(func(c *pvesim.Cluster) error { c.SDN.Commit(); return nil }); err != nil {
					t.Fatal(err)
				}
				pluginDestroy(t, p, rt, state)
				// The deletion is staged: the running config still has it,
				// the pending view says deleted, and the resource is gone.
				if got := p.ReadResponse(t, rt, state, nil).NewState; got != nil && !p.StateValue(t, rt, got).IsNull() {
					t.Error("a controller staged for deletion still reads as present")
				}
			})
		}
	}
}

// On PVE 9 every write of a controller, IPAM, DNS server, fabric and
// fabric node carries the SDN lock's token as lock-token (never
// lock_token); on PVE 8.4, which has no lock, none does.
func TestSDNPluginWritesCarryTheLockToken(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		p := acctest.NewProtocolOnPVE(t, version)
		if version == "" {
			p = acctest.NewProtocol(t)
		}
		api := newStandIn(t, "Authorization")
		for _, c := range []struct {
			rt  string
			cfg map[string]any
		}{
			{"pve_sdn_controller", evpnCtl},
			{"pve_sdn_ipam", pluginWith(sdnSecretCases[0].base(api.URL), "token_wo", "t1")},
		} {
			pluginApply(t, p, c.rt, p.NullState(t, c.rt), p.Config(t, c.rt, c.cfg))
		}
		if version == "" {
			pluginApply(t, p, "pve_sdn_fabric", p.NullState(t, "pve_sdn_fabric"), p.Config(t, "pve_sdn_fabric", openFabric))
			pluginApply(t, p, "pve_sdn_fabric_node", p.NullState(t, "pve_sdn_fabric_node"), p.Config(t, "pve_sdn_fabric_node", fabricNode))
		}
		writes := 0
		for _, rec := range p.Sim.Requests() {
			if rec.Method == "GET" || !strings.HasPrefix(rec.Path, "/cluster/sdn/") || rec.Path == "/cluster/sdn/lock" {
				continue
			}
			writes++
			_, underscore := rec.Params["lock_token"]
			token, dash := rec.Params["lock-token"]
			switch {
			case underscore:
				t.Errorf("%s %s sends lock_token", rec.Method, rec.Path)
			case version == "" && (!dash || token[0] == ""):
				t.Errorf("PVE 9: %s %s has no lock-token", rec.Method, rec.Path)
			case version == "8.4" && dash:
				t.Errorf("PVE 8.4: %s %s sends lock-token", rec.Method, rec.Path)
			}
		}
		if want := map[string]int{"": 4, "8.4": 2}[version]; writes != want {
			t.Errorf("PVE %q: %d SDN writes, want %d", version, writes, want)
		}
	}
}
