package lxc_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A refresh of a container HA recovered after its node failed warns once,
// keeps the declared node and plans nothing.
func TestContainerMovedByHAWarnsOnceAndPlansNothing(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolCT(t, p)
	ctx := context.Background()
	state := p.Import(t, "pve_container", "100")
	if err := p.Client.Post(ctx, "/cluster/ha/resources", url.Values{"sid": {"ct:100"}}, nil); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		p.Sim.HAStep()
	}
	state = p.Read(t, "pve_container", state, nil)
	if err := p.Sim.SetNodeOffline("pve1"); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		p.Sim.HAStep()
	}

	first := p.ReadResponse(t, "pve_container", state, nil)
	acctest.WantAll(t, "the move warning", acctest.Warning(first.Diagnostics, "Container 100 Moved By HA"),
		"HA moved container 100 from pve1 to pve2", "`node` stays pve1")
	second := p.ReadResponse(t, "pve_container", first.NewState, first.Private)
	if w := acctest.Warning(second.Diagnostics, "Container 100 Moved By HA"); w != "" {
		t.Errorf("the second refresh warns again: %s", w)
	}
	var attrs map[string]tftypes.Value
	if err := p.StateValue(t, "pve_container", second.NewState).As(&attrs); err != nil {
		t.Fatal(err)
	}
	var node string
	if err := attrs["node"].As(&node); err != nil || node != "pve1" {
		t.Fatalf("state node = %q (%v), want the declared pve1", node, err)
	}
	plan := p.PlanResponseWithPrivate(t, "pve_container", second.NewState, p.ConfigFromState(t, "pve_container", second.NewState), second.Private)
	if planned, prior := p.StateValue(t, "pve_container", plan.PlannedState), p.StateValue(t, "pve_container", second.NewState); !planned.Equal(prior) {
		t.Errorf("plan after HA's move is not empty:\nprior   %v\nplanned %v", prior, planned)
	}

}
