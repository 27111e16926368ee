package qemu_test

import (
	"context"
	"net/url"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A VM with replication jobs: a new disk on a storage that cannot
// replicate is refused at plan time, naming the disk, the storage and the
// jobs, as PVE refuses it at apply; a disk on ZFS, or one that opts out
// with replicate = false, is planned.
func TestVM_replicatedRefusesDiskItCannotReplicate(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	if err := p.Sim.AddZFSStorage(); err != nil {
		t.Fatal(err)
	}
	const vmid = 140
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, vmid, url.Values{"name": {"replicated"}, "scsi0": {"local-zfs:2"}})
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err == nil {
		err = p.Client.CreateReplicationJob(ctx, "140-0", "pve2", nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_vm", "140")
	config := p.ConfigFromState(t, "pve_vm", state)

	onLVM := p.WithSlot(t, "pve_vm", config, "disks", "scsi0", "scsi1", map[string]any{"storage": "local-lvm", "volume": nil})
	diags := p.PlanDiagnostics(t, "pve_vm", state, onLVM)
	acctest.WantError(t, diags, "",
		regexp.MustCompile(`VM 140 has replication jobs \(140-0\).*scsi1 goes on storage "local-lvm" of type lvmthin, which cannot replicate.*replicate = false`))
	at := tftypes.NewAttributePath().WithAttributeName("disks").WithElementKeyString("scsi1").WithAttributeName("storage")
	if len(diags) != 1 || !diags[0].Attribute.Equal(at) {
		t.Errorf("want one error at %v, got %v", at, diags)
	}

	p.Sim.ResetCounters()
	for name, cfg := range map[string]map[string]any{
		"on ZFS":     {"storage": "local-zfs", "volume": nil},
		"opting out": {"storage": "local-lvm", "volume": nil, "replicate": false},
		"on shared":  {"storage": "shared-nfs", "volume": nil},
	} {
		plan := p.WithSlot(t, "pve_vm", config, "disks", "scsi0", "scsi1", cfg)
		if diags := errorsOf(p.PlanDiagnostics(t, "pve_vm", state, plan)); len(diags) > 0 {
			t.Errorf("a new disk %s was refused: %v", name, diags)
		}
	}
	if _, writes := p.Requests(); writes != 0 {
		t.Errorf("plans wrote %d times", writes)
	}
}
