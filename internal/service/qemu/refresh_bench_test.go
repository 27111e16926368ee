package qemu_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// benchVM creates a VM with two disks and two NICs directly through the API
// and imports it, returning the state a refresh starts from.
func benchVM(tb testing.TB) (*acctest.Protocol, *tfprotov6.DynamicValue) {
	tb.Helper()
	p := acctest.NewProtocol(tb)
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, 100, url.Values{
		"name":   {"bench"},
		"memory": {"1024"},
		"cores":  {"2"},
		"scsi0":  {"local-lvm:4,discard=on"},
		"scsi1":  {"local-lvm:8"},
		"net0":   {"virtio,bridge=vmbr0"},
		"net1":   {"virtio,bridge=vmbr0,tag=20"},
		"tags":   {"bench;prod"},
	})

	if err != nil {
		tb.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		tb.Fatal(err)
	}
	return p, p.Import(tb, "pve_vm", "pve1/100")
}

// A refresh of a VM is GET config + GET status/current, and a no-op plan
// writes nothing.
func BenchmarkVMRefresh(b *testing.B) {
	p, state := benchVM(b)
	var reads, writes int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		p.Sim.ResetCounters()
		b.StartTimer()
		state = p.Read(b, "pve_vm", state, nil)
		r, w := p.Requests()
		reads += r
		writes += w
	}
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
}

func BenchmarkVMNoopPlan(b *testing.B) {
	p, state := benchVM(b)
	config := p.ConfigFromState(b, "pve_vm", state)
	var reads, writes int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		p.Sim.ResetCounters()
		b.StartTimer()
		state = p.Read(b, "pve_vm", state, nil)
		planned := p.Plan(b, "pve_vm", state, config)
		r, w := p.Requests()
		reads += r
		writes += w
		b.StopTimer()
		if !p.StateValue(b, "pve_vm", planned).Equal(p.StateValue(b, "pve_vm", state)) {
			b.Fatal("the plan of an unchanged configuration is not a no-op")
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
}
