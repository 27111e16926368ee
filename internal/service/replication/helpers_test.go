package replication_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// addZFS gives the simulated cluster a "local-zfs" zfspool storage on every
// node, as a PVE install on ZFS has; the seeded cluster has none.
func addZFS(t testing.TB, sim *pvesim.Sim) {
	t.Helper()
	if err := sim.AddZFSStorage(); err != nil {
		t.Fatal(err)
	}
}

// createVM makes a VM on pve1 with one disk in create form ("local-zfs:4")
// through the API, outside Terraform.
func createVM(t testing.TB, client *pveapi.Client, vmid int, disk string) {
	t.Helper()
	ctx := context.Background()
	upid, err := client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, vmid, url.Values{"scsi0": {disk}, "memory": {"512"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
}
