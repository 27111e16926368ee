package qemu_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// Moving a VM into a pool PVE does not have warns at plan time, naming
// the pool and what to do; a pool that exists plans quietly.
func TestVMPoolChangeWarnsWhenPoolMissing(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	protocolVM(t, p)
	if err := p.Client.CreatePool(context.Background(), "web", ""); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_vm", "100")
	base := p.ConfigFromState(t, "pve_vm", state)

	missing := p.PlanResponse(t, "pve_vm", state, p.WithAttribute(t, "pve_vm", base, "pool", tftypes.NewValue(tftypes.String, "nope")))
	acctest.WantAll(t, "the pool warning", acctest.Warning(missing.Diagnostics, "Pool Not Found"),
		`Pool "nope" does not exist`, "pve_pool", "the VM depends on", "create the pool first or correct the name")

	existing := p.PlanResponse(t, "pve_vm", state, p.WithAttribute(t, "pve_vm", base, "pool", tftypes.NewValue(tftypes.String, "web")))
	if w := acctest.Warning(existing.Diagnostics, "Pool Not Found"); w != "" {
		t.Errorf("a plan into an existing pool warns: %s", w)
	}
}
