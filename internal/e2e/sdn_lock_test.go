package e2e_test

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// A run that stages SDN changes without applying them (no pve_sdn_applier
// lists the zone) leaves PVE 9's SDN lock to the provider process, which
// releases it when Terraform shuts the plugin down: the next run, and
// anyone else, can take it. The staged zone stays pending.
func TestSDNLockReleasedWhenTheProviderExits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.write(e.dir, `
resource "pve_sdn_zone" "lab" {
  zone = "lab"
  type = "simple"
}
`)
	e.mustApply(e.dir, 10)
	if tok := e.sim.SDNLockToken(); tok != "" {
		t.Fatal("the SDN lock is still held after terraform exited")
	}
	if n := e.sim.Count("POST", "/cluster/sdn/lock"); n != 1 {
		t.Errorf("the run took the lock %d times, want once", n)
	}
	if n := e.sim.Count("DELETE", "/cluster/sdn/lock"); n != 1 {
		t.Errorf("the lock was released %d times, want once (at the end)", n)
	}
	staged := false
	for _, z := range e.sim.SDNEntries(pvesim.SDNZones, pvesim.SDNViewPending) {
		staged = staged || (z.ID == "lab" && z.State == "new")
	}
	if !staged {
		t.Error("the zone is not staged")
	}
	e.mustPlanEmpty(e.dir)
}
