package qemu_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A refresh of a VM HA moved after its node failed warns once, keeps the
// declared node in state and plans nothing; the next refresh is quiet. A
// change of started of the HA-managed VM warns that HA's resource state
// governs its power.
func TestVMMovedByHAWarnsOnceAndPlansNothing(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolVM(t, p)
	ctx := context.Background()
	state := p.Import(t, "pve_vm", "100")
	if err := p.Client.Post(ctx, "/cluster/ha/resources", url.Values{"sid": {"vm:100"}}, nil); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		p.Sim.HAStep()
	}
	if err := p.Sim.SetNodeOffline("pve1"); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		p.Sim.HAStep()
	}
	if g, _ := p.Sim.Guest(100); g.Node == "pve1" {
		t.Fatal("HA did not recover the VM")
	}

	first := p.ReadResponse(t, "pve_vm", state, nil)
	acctest.WantAll(t, "the move warning", acctest.Warning(first.Diagnostics, "VM 100 Moved By HA"),
		"HA moved VM 100 from pve1 to pve2", "plans no migration back", "`node` stays pve1", "requested through HA")
	var attrs map[string]tftypes.Value
	if err := p.StateValue(t, "pve_vm", first.NewState).As(&attrs); err != nil {
		t.Fatal(err)
	}
	var node string
	if err := attrs["node"].As(&node); err != nil || node != "pve1" {
		t.Fatalf("state node = %q (%v), want the declared pve1", node, err)
	}

	second := p.ReadResponse(t, "pve_vm", first.NewState, first.Private)
	if w := acctest.Warning(second.Diagnostics, "VM 100 Moved By HA"); w != "" {
		t.Errorf("the second refresh warns again: %s", w)
	}

	config := p.ConfigFromState(t, "pve_vm", second.NewState)
	plan := p.PlanResponseWithPrivate(t, "pve_vm", second.NewState, config, second.Private)
	if len(plan.RequiresReplace) != 0 {
		t.Fatalf("plan replaces: %v", plan.RequiresReplace)
	}
	planned := p.StateValue(t, "pve_vm", plan.PlannedState)
	if prior := p.StateValue(t, "pve_vm", second.NewState); !planned.Equal(prior) {
		t.Errorf("plan after HA's move is not empty:\nprior   %v\nplanned %v", prior, planned)
	}

	stop := p.PlanResponseWithPrivate(t, "pve_vm", second.NewState,
		p.WithAttribute(t, "pve_vm", config, "started", tftypes.NewValue(tftypes.Bool, false)), second.Private)
	acctest.WantAll(t, "the power warning", acctest.Warning(stop.Diagnostics, "VM Power Is Governed By HA"),
		"VM 100 is HA-managed", "sets the HA resource's state to stopped", "pve_ha_resource")
}

// A destroy whose stop PVE passed to HA, while the VM's HA resource is
// removed before HA carried it out (its pve_ha_resource destroyed in
// parallel): the provider sees HA let go and stops the VM itself.
func TestVMDestroyStopsItWhenHALetsGo(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolVM(t, p)
	ctx := context.Background()
	state := p.Import(t, "pve_vm", "100")
	if err := p.Client.Post(ctx, "/cluster/ha/resources", url.Values{"sid": {"vm:100"}}, nil); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		p.Sim.HAStep()
	}
	read := p.ReadResponse(t, "pve_vm", state, nil)
	// From now on HA acts only when told to: the stop request waits.
	p.Sim.SetHARoundInterval(1 << 40)
	removed := make(chan error, 1)
	go func() {
		// Once PVE has passed the shutdown to HA.
		for deadline := time.Now().Add(30 * time.Second); shutdowns(p) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				removed <- errors.New("no shutdown request within 30s")
				return
			}
		}
		removed <- p.Client.Delete(ctx, "/cluster/ha/resources/vm:100", nil, nil)
	}()
	null := p.NullState(t, "pve_vm")
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "pve_vm", PriorState: read.NewState, PlannedState: null, Config: null, PlannedPrivate: read.Private,
	})
	if err != nil || len(resp.Diagnostics) != 0 {
		t.Fatalf("destroy: %v %v", err, resp.Diagnostics)
	}
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Sim.Guest(100); ok {
		t.Fatal("VM 100 still exists")
	}
	if stops := shutdowns(p); stops != 2 {
		t.Errorf("%d shutdown requests, want 2: one PVE passed to HA, one after HA let go", stops)
	}
}

func shutdowns(p *acctest.Protocol) int {
	n := 0
	for _, r := range p.Sim.Requests() {
		if r.Method == http.MethodPost && r.Path == "/nodes/pve1/qemu/100/status/shutdown" {
			n++
		}
	}
	return n
}
