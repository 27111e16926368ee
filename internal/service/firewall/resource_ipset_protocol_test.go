package firewall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// rpcResource drives one resource type over the plugin protocol, keeping
// private state the way Terraform does, so tests can change PVE between a
// refresh and an apply.
type rpcResource struct {
	p   *acctest.Protocol
	typ string
}

func (r rpcResource) objectType(tb testing.TB) tftypes.Object {
	tb.Helper()
	return r.p.StateValue(tb, r.typ, r.p.NullState(tb, r.typ)).Type().(tftypes.Object)
}

// config is a configuration with the given attributes, every other one
// null.
func (r rpcResource) config(tb testing.TB, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	typ := r.objectType(tb)
	values := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(t, nil)
	}
	for name, v := range attrs {
		values[name] = v
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		tb.Fatalf("configuration: %v", err)
	}
	return &dv
}

// importID imports and refreshes, keeping the private state.
func (r rpcResource) importID(tb testing.TB, id string) (*tfprotov6.DynamicValue, []byte) {
	tb.Helper()
	imp, err := r.p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: r.typ, ID: id})
	if err != nil || len(imp.ImportedResources) != 1 {
		tb.Fatalf("import %s: %v %v", id, err, imp.Diagnostics)
	}
	return r.read(tb, imp.ImportedResources[0].State, imp.ImportedResources[0].Private)
}

func (r rpcResource) read(tb testing.TB, state *tfprotov6.DynamicValue, private []byte) (*tfprotov6.DynamicValue, []byte) {
	tb.Helper()
	resp := r.p.ReadResponse(tb, r.typ, state, private)
	if resp.NewState == nil {
		tb.Fatalf("read %s: resource gone", r.typ)
	}
	return resp.NewState, resp.Private
}

// apply plans config against prior and applies the plan, as `terraform
// apply -refresh=false` does after the refresh that gave prior and
// private.
func (r rpcResource) apply(tb testing.TB, prior *tfprotov6.DynamicValue, private []byte, config *tfprotov6.DynamicValue) (*tfprotov6.DynamicValue, []byte, []*tfprotov6.Diagnostic) {
	tb.Helper()
	ctx := context.Background()
	plan, err := r.p.Server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: r.typ, PriorState: prior, ProposedNewState: config, Config: config, PriorPrivate: private,
	})
	if err != nil || diagError(plan.Diagnostics) != "" {
		tb.Fatalf("plan %s: %v %s", r.typ, err, diagError(plan.Diagnostics))
	}
	resp, err := r.p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: r.typ, PriorState: prior, PlannedState: plan.PlannedState, Config: config, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		tb.Fatalf("apply %s: %v", r.typ, err)
	}
	return resp.NewState, resp.Private, resp.Diagnostics
}

// destroy applies the deletion of state, kept with private.
func (r rpcResource) destroy(tb testing.TB, state *tfprotov6.DynamicValue, private []byte) []*tfprotov6.Diagnostic {
	tb.Helper()
	null := r.p.NullState(tb, r.typ)
	resp, err := r.p.Server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: r.typ, PriorState: state, PlannedState: null, Config: null, PlannedPrivate: private,
	})
	if err != nil {
		tb.Fatalf("destroy %s: %v", r.typ, err)
	}
	return resp.Diagnostics
}

// isNoop tells whether planning config against state changes nothing.
func (r rpcResource) isNoop(tb testing.TB, state *tfprotov6.DynamicValue, private []byte, config *tfprotov6.DynamicValue) bool {
	tb.Helper()
	plan, err := r.p.Server.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: r.typ, PriorState: state, ProposedNewState: config, Config: config, PriorPrivate: private,
	})
	if err != nil || diagError(plan.Diagnostics) != "" {
		tb.Fatalf("plan %s: %v %s", r.typ, err, diagError(plan.Diagnostics))
	}
	return r.p.StateValue(tb, r.typ, plan.PlannedState).Equal(r.p.StateValue(tb, r.typ, state))
}

func diagError(diags []*tfprotov6.Diagnostic) string {
	var texts []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			texts = append(texts, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(texts, "\n")
}

var entryObject = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"nomatch": tftypes.Bool, "comment": tftypes.String,
}}

// entriesValue is a configured entries map: "CIDR", "!CIDR" (nomatch) or
// "CIDR # comment".
func entriesValue(lines ...string) tftypes.Value {
	elems := make(map[string]tftypes.Value, len(lines))
	for _, line := range lines {
		cidr, comment, _ := strings.Cut(line, " # ")
		nomatch := tftypes.NewValue(tftypes.Bool, nil)
		if strings.HasPrefix(cidr, "!") {
			cidr, nomatch = cidr[1:], tftypes.NewValue(tftypes.Bool, true)
		}
		c := tftypes.NewValue(tftypes.String, nil)
		if comment != "" {
			c = tftypes.NewValue(tftypes.String, comment)
		}
		elems[cidr] = tftypes.NewValue(entryObject, map[string]tftypes.Value{"nomatch": nomatch, "comment": c})
	}
	return tftypes.NewValue(tftypes.Map{ElementType: entryObject}, elems)
}

func ipsetRPCConfig(tb testing.TB, r rpcResource, name string, lines ...string) *tfprotov6.DynamicValue {
	tb.Helper()
	return r.config(tb, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, name), "entries": entriesValue(lines...)})
}

// manyAddresses are n distinct addresses.
func manyAddresses(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf("10.%d.%d.%d", i/65536, (i/256)%256, i%256)
	}
	return out
}

// fillIPSet creates a set of the cluster's firewall holding addresses.
func fillIPSet(tb testing.TB, client *pveapi.Client, name string, addresses []string) {
	tb.Helper()
	ctx := context.Background()
	if err := client.CreateIPSet(ctx, clusterFW, name, ""); err != nil {
		tb.Fatalf("create IP set: %v", err)
	}
	for _, a := range addresses {
		if err := client.AddIPSetEntry(ctx, clusterFW, name, pveapi.IPSetEntry{CIDR: a}); err != nil {
			tb.Fatalf("add %s: %v", a, err)
		}
	}
}

// writesOf lists the simulator's write requests since its counters were
// reset, as "METHOD PATH".
func writesOf(p *acctest.Protocol) []string {
	var out []string
	for _, rec := range p.Sim.Requests() {
		if rec.Method != "GET" {
			out = append(out, rec.Method+" "+rec.Path)
		}
	}
	return out
}

// Adding one address to a set of 5,000 is one POST: no request for the
// unchanged entries, no read, and the next plan is empty.
func TestIPSetAddOneOf5000Requests(t *testing.T) {
	t.Parallel()
	// Planning 5000 entries makes a lot of short-lived garbage in the
	// plugin framework (it copies the map of entries for each entry it
	// walks): collecting half as often takes about a third off the test's
	// CPU time, for about 100 MB more. GOGC set by the developer wins.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	p := acctest.NewProtocol(t)
	r := rpcResource{p: p, typ: "pve_firewall_ipset"}
	addresses := manyAddresses(5000)
	fillIPSet(t, p.Client, "big", addresses)
	state, private := r.importID(t, "cluster/big")

	config := ipsetRPCConfig(t, r, "big", append(addresses, "192.0.2.1")...)
	p.Sim.ResetCounters()
	state, private, diags := r.apply(t, state, private, config)
	if msg := diagError(diags); msg != "" {
		t.Fatal(msg)
	}
	reads, writes := p.Requests()
	if got := writesOf(p); writes != 1 || len(got) != 1 || got[0] != "POST /cluster/firewall/ipset/big" {
		t.Errorf("adding one address sent %d writes %v, want one POST /cluster/firewall/ipset/big", writes, got)
	}
	if reads != 0 {
		t.Errorf("adding one address sent %d reads, want none", reads)
	}
	if !r.isNoop(t, state, private, config) {
		t.Error("the plan after the apply is not empty")
	}
	refreshed, _ := r.read(t, state, private)
	if !p.StateValue(t, r.typ, refreshed).Equal(p.StateValue(t, r.typ, state)) {
		t.Error("a refresh after the apply changes the state")
	}
}

// A series of guarded changes goes without a read in between: after each
// write the resource knows the digest PVE will give the set.
func TestIPSetDigestPredictedAcrossChanges(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	r := rpcResource{p: p, typ: "pve_firewall_ipset"}
	fillIPSet(t, p.Client, "series", []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.10", "10.0.0.20"})
	state, private := r.importID(t, "cluster/series")

	config := ipsetRPCConfig(t, r, "series",
		"10.0.0.3 # kept, with a comment", "!10.0.0.10", "10.0.0.20/32", "10.0.1.0/24", "2001:db8::5/64 # six")
	p.Sim.ResetCounters()
	state, private, diags := r.apply(t, state, private, config)
	if msg := diagError(diags); msg != "" {
		t.Fatal(msg)
	}
	reads, writes := p.Requests()
	// Two DELETEs, two PUTs, two POSTs; a wrong digest would have cost a
	// refused write and a read.
	if reads != 0 || writes != 6 {
		t.Errorf("the changes sent %d reads and %d writes %v, want 0 and 6", reads, writes, writesOf(p))
	}
	if !r.isNoop(t, state, private, config) {
		t.Error("the plan after the apply is not empty")
	}
	// A second series starts from the digest the first one predicted.
	config = ipsetRPCConfig(t, r, "series", "10.0.0.3", "2001:db8::/64 # six")
	p.Sim.ResetCounters()
	_, _, diags = r.apply(t, state, private, config)
	if msg := diagError(diags); msg != "" {
		t.Fatal(msg)
	}
	if reads, writes := p.Requests(); reads != 0 || writes != 4 {
		t.Errorf("the second series sent %d reads and %d writes %v, want 0 and 4", reads, writes, writesOf(p))
	}
}

// An entry changed outside Terraform between the refresh and the apply:
// PVE refuses the digest, the resource reads the set once, sees the change
// and stops with an error that says so; nothing else is written.
func TestIPSetRefusesConcurrentChange(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	r := rpcResource{p: p, typ: "pve_firewall_ipset"}
	fillIPSet(t, p.Client, "shared", []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"})
	state, private := r.importID(t, "cluster/shared")

	if err := p.Client.UpdateIPSetEntry(context.Background(), clusterFW, "shared", pveapi.IPSetEntry{CIDR: "10.0.0.2", Comment: "theirs"}, ""); err != nil {
		t.Fatal(err)
	}
	p.Sim.ResetCounters()
	_, _, diags := r.apply(t, state, private, ipsetRPCConfig(t, r, "shared", "10.0.0.2", "10.0.0.3", "10.0.0.4"))
	msg := diagError(diags)
	acctest.WantAll(t, "the error", msg, "Changed Outside Terraform", "IP set shared of the cluster's firewall",
		`10.0.0.2 now has nomatch false and comment "theirs"`, "run terraform plan again")
	if got := writesOf(p); len(got) != 1 || !strings.HasPrefix(got[0], "DELETE ") {
		t.Errorf("writes %v, want the one refused DELETE", got)
	}
	lines, err := pveEntries(p.Client, clusterFW, "shared")
	if err != nil || strings.Join(lines, ",") != "10.0.0.1,10.0.0.2 # theirs,10.0.0.3" {
		t.Errorf("the set holds %v (%v), want it as the other client left it", lines, err)
	}
}

// The set list's digest covers every set of the firewall: a set created by
// someone else since the refresh does not stop a rename.
func TestIPSetRenameAfterAnotherSetChanged(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	r := rpcResource{p: p, typ: "pve_firewall_ipset"}
	fillIPSet(t, p.Client, "before", []string{"10.0.0.1"})
	state, private := r.importID(t, "cluster/before")
	if err := p.Client.CreateIPSet(context.Background(), clusterFW, "other", "someone else's"); err != nil {
		t.Fatal(err)
	}
	_, _, diags := r.apply(t, state, private, ipsetRPCConfig(t, r, "after", "10.0.0.1"))
	if msg := diagError(diags); msg != "" {
		t.Fatal(msg)
	}
	if lines, err := pveEntries(p.Client, clusterFW, "after"); err != nil || strings.Join(lines, ",") != "10.0.0.1" {
		t.Errorf("renamed set holds %v (%v)", lines, err)
	}
}

// BenchmarkIPSetAddOneOf5000 measures one apply that adds an address to a
// set of 5,000: the requests it sends (one write) and its cost in the
// provider.
func BenchmarkIPSetAddOneOf5000(b *testing.B) {
	p := acctest.NewProtocol(b)
	r := rpcResource{p: p, typ: "pve_firewall_ipset"}
	addresses := manyAddresses(5000)
	fillIPSet(b, p.Client, "big", addresses)
	state, private := r.importID(b, "cluster/big")

	var reads, writes, n int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		addresses = append(addresses, fmt.Sprintf("192.0.%d.%d", 2+i/256, i%256))
		config := ipsetRPCConfig(b, r, "big", addresses...)
		p.Sim.ResetCounters()
		b.StartTimer()
		var diags []*tfprotov6.Diagnostic
		state, private, diags = r.apply(b, state, private, config)
		b.StopTimer()
		if msg := diagError(diags); msg != "" {
			b.Fatal(msg)
		}
		rd, wr := p.Requests()
		reads += rd
		writes += wr
		n++
		b.StartTimer()
	}
	b.ReportMetric(float64(writes)/float64(n), "writes/op")
	b.ReportMetric(float64(reads)/float64(n), "reads/op")
}

// A digest PVE refuses while the set is exactly as expected (a kept digest
// that is wrong): one read, and the change goes on with PVE's digest.
func TestIPSetRecoversFromAWrongDigest(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	r := rpcResource{p: p, typ: "pve_firewall_ipset"}
	fillIPSet(t, p.Client, "kept", []string{"10.0.0.1", "10.0.0.2"})
	state, _ := r.importID(t, "cluster/kept")
	// Private state as Terraform keeps it: keys to JSON values.
	private, err := json.Marshal(map[string][]byte{"digests": []byte(`{"entries":"0000000000000000000000000000000000000000"}`)})
	if err != nil {
		t.Fatal(err)
	}

	p.Sim.ResetCounters()
	_, _, diags := r.apply(t, state, private, ipsetRPCConfig(t, r, "kept", "10.0.0.2 # commented", "10.0.0.3"))
	if msg := diagError(diags); msg != "" {
		t.Fatal(msg)
	}
	reads, _ := p.Requests()
	if got := writesOf(p); reads != 1 || len(got) != 4 {
		t.Errorf("sent %d reads and writes %v, want 1 read and 4 writes (refused DELETE, DELETE, PUT, POST)", reads, got)
	}
	if lines, err := pveEntries(p.Client, clusterFW, "kept"); err != nil || strings.Join(lines, ",") != "10.0.0.2 # commented,10.0.0.3" {
		t.Errorf("the set holds %v (%v)", lines, err)
	}
}
