package storagecfg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// storage.cfg's digest covers every storage, so an update races with
// updates of other storages (Terraform applies several at once): PVE
// refuses a PUT whose digest went stale (pve-storage
// src/PVE/API2/Storage/Config.pm update, assert_if_modified). The update
// reads the definition again and sends again; a refusal that keeps coming
// ends in the error.
func TestStorageUpdateRetriesStaleDigest(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	rt := resType("dir")
	base := map[string]any{"storage": "stale", "path": "/srv/stale"}
	state, _ := apply(t, p, rt, p.NullState(t, rt), config(t, p, rt, base))
	stale := pvesim.Fault{Method: "PUT", Path: "/storage/stale", Action: pvesim.FaultRespond, Status: 500,
		Message: "update storage failed: detected modified configuration - file changed by other user? Try again.", Count: 2}
	if err := p.Sim.InjectFault(stale); err != nil {
		t.Fatal(err)
	}
	_, writesBefore := p.Requests()
	updated := config(t, p, rt, with(base, "disable", true))
	state, _ = apply(t, p, rt, state, updated)
	if _, writes := p.Requests(); writes-writesBefore != 3 {
		t.Errorf("%d writes, want two refused PUTs and one that passed", writes-writesBefore)
	}
	if cfg, _, _ := p.Client.GetStorageConfig(context.Background(), "stale"); cfg.Options["disable"] != "1" {
		t.Errorf("PVE has %v", cfg.Options)
	}
	wantNoChange(t, p, rt, state, updated, "after the retried update")

	stale.Count = 0
	if err := p.Sim.InjectFault(stale); err != nil {
		t.Fatal(err)
	}
	back := config(t, p, rt, base)
	plan := p.PlanResponse(t, rt, state, back)
	resp, err := p.Server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: rt, PriorState: state, PlannedState: plan.PlannedState, Config: back, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg := errorsOf(resp.Diagnostics); !strings.Contains(msg, "detected modified configuration") {
		t.Errorf("a digest that stays stale: %q", msg)
	}
}
