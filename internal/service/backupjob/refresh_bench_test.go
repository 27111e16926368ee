package backupjob_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A refresh of a backup job is one GET and never a write.
func TestBackupJobRefreshRequests(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	if err := p.Client.Post(context.Background(), "/cluster/backup", url.Values{
		"id": {"nightly"}, "schedule": {"21:00"}, "all": {"1"}, "storage": {"local"},
	}, nil); err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_backup_job", "nightly")
	p.Sim.ResetCounters()
	p.Read(t, "pve_backup_job", state, nil)
	reads, writes := p.Requests()
	if reads != 1 || writes != 0 {
		t.Fatalf("refresh made %d reads and %d writes, want 1 and 0", reads, writes)
	}
}
