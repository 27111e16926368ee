package qemu_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// createVMOutside makes a VM with the API, as an operator would, and
// returns its VMID; the test destroys it at the end.
func createVMOutside(t *testing.T, tg *acctest.Target, node string, form url.Values) int {
	t.Helper()
	ctx := context.Background()
	vmid, err := tg.Client.AllocateVMID(ctx, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	upid, err := tg.Client.CreateGuest(ctx, node, pveapi.GuestTypeQemu, vmid, form)
	if err == nil {
		_, err = tg.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatalf("create VM outside Terraform: %v", err)
	}
	t.Cleanup(func() {
		if upid, err := tg.Client.DeleteGuest(context.Background(), node, pveapi.GuestTypeQemu, vmid, true, true); err == nil {
			_, _ = tg.Client.WaitTask(context.Background(), upid)
		}
	})
	return vmid
}

// An import block with generated configuration plans no change: nothing
// PVE cannot report (W31: the cipassword mask) lands in the configuration,
// and nothing generated conflicts. The end-to-end tests go on to apply the
// generated configuration; this one also runs against a live node.
func TestAccVM_importBlockGeneratedConfigW31(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vmid := createVMOutside(t, tg, "pve1", url.Values{
		"name":       {acctest.Name("tfacc-adopted")},
		"tags":       {"Adopted"},
		"memory":     {"1024"},
		"scsihw":     {"virtio-scsi-single"},
		"scsi0":      {"local-lvm:4,discard=on"},
		"net0":       {"virtio,bridge=vmbr0"},
		"ide2":       {"local-lvm:cloudinit"},
		"ciuser":     {"ops"},
		"cipassword": {"set-by-hand"},
		"ipconfig0":  {"ip=dhcp"},
		"serial0":    {"socket"},
	})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:          tg.Config(""),
			ResourceName:    vmAddr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			ImportStateId:   "pve1/" + strconv.Itoa(vmid),
			GenerateConfig:  true,
		}},
	})
}
