package replication_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A refresh of a replication job is one GET and never a write.
func TestReplicationJobRefreshRequests(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	addZFS(t, p.Sim)
	createVM(t, p.Client, 100, "local-zfs:4")
	if err := p.Client.Post(context.Background(), "/cluster/replication", url.Values{
		"id": {"100-0"}, "type": {"local"}, "target": {"pve2"},
	}, nil); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_replication_job", "100-0")
	p.Sim.ResetCounters()
	p.Read(t, "pve_replication_job", state, nil)
	reads, writes := p.Requests()
	if reads != 1 || writes != 0 {
		t.Fatalf("refresh made %d reads and %d writes, want 1 and 0", reads, writes)
	}
}
