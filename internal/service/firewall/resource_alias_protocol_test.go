package firewall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func aliasRPCConfig(tb testing.TB, r rpcResource, name, cidr, comment string) *tfprotov6.DynamicValue {
	tb.Helper()
	attrs := map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, name),
		"cidr": tftypes.NewValue(tftypes.String, cidr),
	}
	if comment != "" {
		attrs["comment"] = tftypes.NewValue(tftypes.String, comment)
	}
	return r.config(tb, attrs)
}

// The alias list's digest covers every alias of the firewall: another
// alias changed since the refresh does not stop a change of this one (the
// resource reads the list, finds its alias as it was, and goes on), but a
// change of this alias does.
func TestAliasDigestGuard(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	r := rpcResource{p: p, typ: "pve_firewall_alias"}
	ctx := context.Background()
	for _, name := range []string{"mine", "theirs"} {
		if err := p.Client.CreateFirewallAlias(ctx, clusterFW, name, "192.0.2.1", ""); err != nil {
			t.Fatal(err)
		}
	}
	state, private := r.importID(t, "cluster/mine")

	if err := p.Client.UpdateFirewallAlias(ctx, clusterFW, "theirs", "", "192.0.2.2", "", ""); err != nil {
		t.Fatal(err)
	}
	p.Sim.ResetCounters()
	state, private, diags := r.apply(t, state, private, aliasRPCConfig(t, r, "mine", "192.0.2.10", "moved"))
	if msg := diagError(diags); msg != "" {
		t.Fatalf("another alias's change stopped this one's: %s", msg)
	}
	if got := writesOf(p); len(got) != 2 {
		t.Errorf("writes %v, want the refused PUT and the one with the new digest", got)
	}
	if a, found, err := pveAlias(p.Client, clusterFW, "mine"); err != nil || !found || a.CIDR != "192.0.2.10" || a.Comment != "moved" {
		t.Errorf("PVE has %+v (found %t, %v)", a, found, err)
	}

	// This alias changed outside Terraform after the last refresh.
	if err := p.Client.UpdateFirewallAlias(ctx, clusterFW, "mine", "", "192.0.2.10", "edited", ""); err != nil {
		t.Fatal(err)
	}
	p.Sim.ResetCounters()
	_, _, diags = r.apply(t, state, private, aliasRPCConfig(t, r, "mine", "192.0.2.11", "moved"))
	acctest.WantAll(t, "the error", diagError(diags), "Changed Outside Terraform", "Alias mine of the cluster's firewall",
		`comment "edited"`, "run terraform plan again")
	if got := writesOf(p); len(got) != 1 || !strings.HasPrefix(got[0], "PUT ") {
		t.Errorf("writes %v, want the one refused PUT", got)
	}
	if a, _, _ := pveAlias(p.Client, clusterFW, "mine"); a.CIDR != "192.0.2.10" || a.Comment != "edited" {
		t.Errorf("PVE has %+v, want the other client's change kept", a)
	}

	// Nor is it deleted on the strength of the stale state.
	acctest.WantAll(t, "the destroy's error", diagError(r.destroy(t, state, private)), "Changed Outside Terraform", `comment "edited"`)
	if _, found, _ := pveAlias(p.Client, clusterFW, "mine"); !found {
		t.Error("the alias changed outside Terraform was deleted")
	}
	// After a refresh the delete goes through.
	state, private = r.read(t, state, private)
	if msg := diagError(r.destroy(t, state, private)); msg != "" {
		t.Fatal(msg)
	}
	if _, found, _ := pveAlias(p.Client, clusterFW, "mine"); found {
		t.Error("the alias is still there after the destroy")
	}
}
