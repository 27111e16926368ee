package pool_test

import (
	"context"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A refresh of a pool is one GET and never a write.
func TestPoolRefreshRequests(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	if err := p.Client.CreatePool(context.Background(), "bench", "x"); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_pool", "bench")

	p.Sim.ResetCounters()
	p.Read(t, "pve_pool", state, nil)
	reads, writes := p.Requests()
	if reads != 1 || writes != 0 {
		t.Fatalf("refresh made %d reads and %d writes, want 1 and 0", reads, writes)
	}
}

func BenchmarkPoolRefresh(b *testing.B) {
	p := acctest.NewProtocol(b)
	if err := p.Client.CreatePool(context.Background(), "bench", "x"); err != nil {
		b.Fatal(err)
	}
	state := p.Import(b, "pve_pool", "bench")

	var reads, writes int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		p.Sim.ResetCounters()
		b.StartTimer()
		state = p.Read(b, "pve_pool", state, nil)
		r, w := p.Requests()
		reads += r
		writes += w
	}
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
}
