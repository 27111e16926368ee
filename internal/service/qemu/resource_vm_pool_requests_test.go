package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// pooledVMs creates VMs 100-105 on pve1, the even ones in pool "a" and
// the odd ones in pool "b", and returns their imported states.
func pooledVMs(t testing.TB, p *acctest.Protocol) map[int]*tfprotov6.DynamicValue {
	t.Helper()
	ctx := context.Background()
	for _, pool := range []string{"a", "b"} {
		if err := p.Client.CreatePool(ctx, pool, ""); err != nil {
			t.Fatal(err)
		}
	}
	states := map[int]*tfprotov6.DynamicValue{}
	for vmid := 100; vmid < 106; vmid++ {
		upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, vmid, url.Values{
			"name": {fmt.Sprintf("pooled-%d", vmid)}, "scsi0": {"local-lvm:1"}, "pool": {poolOf(vmid)},
		})

		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Client.WaitTask(ctx, upid); err != nil {
			t.Fatal(err)
		}
	}
	// The guests exist before the import command starts.
	p.Reconfigure(t)
	for vmid := 100; vmid < 106; vmid++ {
		states[vmid] = p.Import(t, "pve_vm", fmt.Sprint(vmid))
	}
	return states
}

func poolOf(vmid int) string {
	if vmid%2 == 0 {
		return "a"
	}
	return "b"
}

// poolReads counts the simulator's reads of each pool, and every read of
// the node list.
func poolReads(p *acctest.Protocol) (pools map[string]int, nodes int) {
	pools = map[string]int{}
	for _, r := range p.Sim.Requests() {
		switch {
		case r.Method == "GET" && r.Path == "/pools":
			pools[r.Params["poolid"][0]]++
		case r.Method == "GET" && r.Path == "/nodes":
			nodes++
		}
	}
	return pools, nodes
}

// refreshAll refreshes the guests ten at a time, as Terraform does, and
// returns the new states.
func refreshAll(t testing.TB, p *acctest.Protocol, states map[int]*tfprotov6.DynamicValue) map[int]*tfprotov6.DynamicValue {
	t.Helper()
	var mu sync.Mutex
	out := map[int]*tfprotov6.DynamicValue{}
	var wg sync.WaitGroup
	for vmid, state := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := p.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: "pve_vm", CurrentState: state})
			mu.Lock()
			defer mu.Unlock()
			if err != nil || len(resp.Diagnostics) > 0 || resp.NewState == nil {
				t.Errorf("refresh of VM %d: %v %v", vmid, err, resp.Diagnostics)
				return
			}
			out[vmid] = resp.NewState
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

func poolIn(t testing.TB, p *acctest.Protocol, state *tfprotov6.DynamicValue) string {
	t.Helper()
	var attrs map[string]tftypes.Value
	if err := p.StateValue(t, "pve_vm", state).As(&attrs); err != nil {
		t.Fatal(err)
	}
	var pool *string
	if err := attrs["pool"].As(&pool); err != nil {
		t.Fatal(err)
	}
	if pool == nil {
		return ""
	}
	return *pool
}

// A no-op plan of six pooled VMs in two pools, refreshed concurrently,
// reads each pool once: two requests per VM (config and status) plus one
// per pool, and no write.
func TestVMPoolMembershipReadOncePerPool(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	states := pooledVMs(t, p)

	p.Reconfigure(t) // the next command
	p.Sim.ResetCounters()
	refreshed := refreshAll(t, p, states)
	for vmid, state := range refreshed {
		if got := poolIn(t, p, state); got != poolOf(vmid) {
			t.Errorf("VM %d: pool %q after refresh, want %q", vmid, got, poolOf(vmid))
		}
		p.Plan(t, "pve_vm", state, p.ConfigFromState(t, "pve_vm", state))
	}
	pools, nodes := poolReads(p)
	reads, writes := p.Requests()
	if pools["a"] != 1 || pools["b"] != 1 || nodes != 0 {
		t.Errorf("pool reads %v and %d node list reads; want one per pool and none", pools, nodes)
	}
	if want := 2*len(states) + 2; reads != want || writes != 0 {
		t.Errorf("the plan made %d reads and %d writes, want %d and 0", reads, writes, want)
	}
}

// Plans that create guests on a node and in a pool ask for the node list
// once and for each pool once, however many guests there are.
func TestVMCreatePlansReadNodesAndPoolsOnce(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	states := pooledVMs(t, p)

	p.Reconfigure(t)
	p.Sim.ResetCounters()
	for vmid, state := range states {
		config := p.WithAttribute(t, "pve_vm", p.ConfigFromState(t, "pve_vm", state), "vmid", tftypes.NewValue(tftypes.Number, vmid+100))
		resp := p.PlanResponse(t, "pve_vm", p.NullState(t, "pve_vm"), config)
		for _, d := range resp.Diagnostics {
			t.Errorf("create plan of VM %d: %s: %s", vmid+100, d.Summary, d.Detail)
		}
	}
	pools, nodes := poolReads(p)
	if pools["a"] != 1 || pools["b"] != 1 || nodes != 1 {
		t.Errorf("pool reads %v and %d node list reads; want one per pool and one", pools, nodes)
	}
}

// A membership changed outside Terraform between two commands is seen by
// the next one; within the command that read it, it is not read again.
func TestVMPoolChangedOutsideSeenByNextCommand(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	states := pooledVMs(t, p)

	p.Reconfigure(t)
	refreshed := refreshAll(t, p, states)
	if err := p.Client.UpdatePool(context.Background(), pveapi.PoolUpdate{PoolID: "a", VMs: []int{100}, Delete: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.UpdatePool(context.Background(), pveapi.PoolUpdate{PoolID: "a", VMs: []int{101}, AllowMove: true}); err != nil {
		t.Fatal(err)
	}
	p.Reconfigure(t)
	again := refreshAll(t, p, refreshed)
	if got := poolIn(t, p, again[100]); got != "" {
		t.Errorf("VM 100 left pool a outside Terraform; refresh keeps pool %q", got)
	}
	if got := poolIn(t, p, again[101]); got != "" {
		t.Errorf("VM 101 moved from b to a outside Terraform; refresh keeps pool %q", got)
	}
	if got := poolIn(t, p, again[102]); got != "a" {
		t.Errorf("VM 102 stayed in pool a; refresh says %q", got)
	}
}

// BenchmarkVMPooledNoopPlan is a command's refresh and no-op plan of six
// VMs in two pools: 2 requests per guest plus one pool read per pool,
// whatever the number of guests in a pool.
func BenchmarkVMPooledNoopPlan(b *testing.B) {
	p := acctest.NewProtocol(b)
	states := pooledVMs(b, p)
	var reads, writes, poolRequests int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		p.Reconfigure(b) // each iteration is a new command
		p.Sim.ResetCounters()
		b.StartTimer()
		for _, state := range refreshAll(b, p, states) {
			p.Plan(b, "pve_vm", state, p.ConfigFromState(b, "pve_vm", state))
		}
		b.StopTimer()
		r, w := p.Requests()
		reads, writes = reads+r, writes+w
		pools, _ := poolReads(p)
		for _, n := range pools {
			poolRequests += n
		}
		b.StartTimer()
	}
	guests := float64(len(states) * b.N)
	b.ReportMetric(float64(reads)/guests, "reads/guest")
	b.ReportMetric(float64(writes)/guests, "writes/guest")
	b.ReportMetric(float64(poolRequests)/float64(b.N), "pool-reads/op")
}
