package ha_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A refresh of an HA resource, rule or group is one GET and never a write.
func TestHARefreshRequests(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, 100, url.Values{"name": {"web"}})
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Client.Post(ctx, "/cluster/ha/resources", url.Values{"sid": {"vm:100"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.Post(ctx, "/cluster/ha/rules", url.Values{"rule": {"prefer"}, "type": {"node-affinity"},
		"resources": {"vm:100"}, "nodes": {"pve1:2,pve2"}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ typeName, id string }{
		{"pve_ha_resource", "vm:100"},
		{"pve_ha_rule", "prefer"},
	} {
		state := p.Import(t, tc.typeName, tc.id)
		p.Sim.ResetCounters()
		p.Read(t, tc.typeName, state, nil)
		reads, writes := p.Requests()
		if reads != 1 || writes != 0 {
			t.Errorf("refresh of %s made %d reads and %d writes, want 1 and 0", tc.typeName, reads, writes)
		}
	}
}
