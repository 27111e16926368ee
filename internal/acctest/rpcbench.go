package acctest

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// BenchmarkGuestRPCs runs, each as its own sub-benchmark, the four RPCs
// Terraform sends for one resource instance in a plan of an unchanged
// configuration: ValidateResourceConfig of the configuration,
// UpgradeResourceState of the stored state, ReadResource (the refresh) and
// PlanResourceChange of the configuration against the refreshed state.
// state and private are what the last refresh returned; the configuration
// is derived from state (ConfigFromState). Run with -benchmem, the
// allocations per op are those of one guest in one RPC; where p has a
// simulator, the PVE requests per op are reported too.
func BenchmarkGuestRPCs(b *testing.B, p *Protocol, typeName string, state *tfprotov6.DynamicValue, private []byte) {
	config := p.ConfigFromState(b, typeName, state)
	stateJSON := p.StateJSON(b, typeName, state)
	version := p.SchemaVersion(b, typeName)
	// The RPCs must see the inputs Terraform would give them: a state that
	// upgrades to itself and a plan with no change.
	if !p.StateValue(b, typeName, p.Upgrade(b, typeName, version, stateJSON)).Equal(p.StateValue(b, typeName, state)) {
		b.Fatal("the stored state does not upgrade to itself")
	}
	if !p.StateValue(b, typeName, p.Plan(b, typeName, state, config)).Equal(p.StateValue(b, typeName, state)) {
		b.Fatal("the plan of an unchanged configuration is not a no-op")
	}

	b.Run("Validate", func(b *testing.B) {
		p.benchRequests(b, func() { p.Validate(b, typeName, config) })
	})
	b.Run("Upgrade", func(b *testing.B) {
		p.benchRequests(b, func() { p.Upgrade(b, typeName, version, stateJSON) })
	})
	b.Run("Read", func(b *testing.B) {
		p.benchRequests(b, func() { p.ReadResponse(b, typeName, state, private) })
	})
	b.Run("Plan", func(b *testing.B) {
		p.benchRequests(b, func() { p.Plan(b, typeName, state, config) })
	})
}

// benchRequests runs rpc b.N times and reports the PVE requests it sent,
// when p has a simulator to count them.
func (p *Protocol) benchRequests(b *testing.B, rpc func()) {
	b.ReportAllocs()
	if p.Sim == nil {
		for b.Loop() {
			rpc()
		}
		return
	}
	var reads, writes, n int
	for b.Loop() {
		b.StopTimer()
		p.Sim.ResetCounters()
		b.StartTimer()
		rpc()
		// Counting copies the simulator's log: not the RPC's allocations.
		b.StopTimer()
		r, w := p.Requests()
		reads += r
		writes += w
		n++
		b.StartTimer()
	}
	b.ReportMetric(float64(reads)/float64(n), "reads/op")
	b.ReportMetric(float64(writes)/float64(n), "writes/op")
}
