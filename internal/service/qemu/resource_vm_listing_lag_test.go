package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// /cluster/resources lists name, status and the template flag as pvestatd
// last reported them, up to one cycle (10 s) old; these tests hold the
// cycle back (SetStatsInterval) and let it run only where they say
// (ReportStats), so the provider meets the listing a real node shows.

// W11, W13: a half-made VM reported by pvestatd while its create task ran
// is listed under the made-up "VM N" of its nameless placeholder config
// until the next cycle; the next apply still recognises and adopts it.
func TestAccVMCreateAdoptsHalfMadeListedUnderPlaceholderNameW11(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	sim.SetStatsInterval(time.Hour)
	ctx := context.Background()
	const halfMade = 150
	upid, err := tg.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, halfMade, url.Values{
		"name":        {"half-2"},
		"memory":      {"512"},
		"scsihw":      {"virtio-scsi-single"},
		"scsi0":       {"local-lvm:2"},
		"net0":        {"virtio,bridge=vmbr0"},
		"description": {guestops.WithCloneMarker("", guestops.CreateMarker(guestops.VM, "half-2"))},
	})

	if err != nil {
		t.Fatal(err)
	}
	sim.ReportStats() // mid-create: the placeholder has no name
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, `
  node          = "pve1"
  name          = "half-2"
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 512 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 2 }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
`),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.configCheck(func(map[string]string) error {
					if vm.VMID != halfMade {
						return fmt.Errorf("VMID %d: want the half-made VM %d adopted", vm.VMID, halfMade)
					}
					if n := sim.Count("POST", "/nodes/{node}/qemu"); n != 1 {
						return fmt.Errorf("%d create requests: want only the planted one", n)
					}
					return nil
				}),
			},
		}},
	})
}

// W11, W13: a clone reported mid-clone is listed as "VM N" (its "lock:
// clone" placeholder has no name) until the next cycle; the next apply
// still adopts it instead of cloning onto the taken VMID.
func TestAccVMCloneAdoptsHalfMadeListedUnderPlaceholderNameW11(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	sim.SetStatsInterval(time.Hour)
	ctx := context.Background()
	upid, err := tg.Client.CloneGuest(ctx, "pve1", pveapi.GuestTypeQemu, templateVMID, url.Values{
		"newid":       {"150"},
		"name":        {"crash-2"},
		"full":        {"1"},
		"description": {guestops.WithCloneMarker("golden image", guestops.CloneMarker(guestops.VM, templateVMID))},
	})

	if err != nil {
		t.Fatal(err)
	}
	sim.ReportStats() // mid-clone: the placeholder has no name
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "crash-2"
  clone = { source_vmid = %d }
`, templateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.configCheck(func(c map[string]string) error {
					if vm.VMID != 150 || c["description"] != "golden image" {
						return fmt.Errorf("VMID %d, description %q: want the adopted 150 without its marker", vm.VMID, c["description"])
					}
					if n := sim.Count("POST", "/nodes/{node}/qemu/{vmid}/clone"); n != 1 {
						return fmt.Errorf("want only the crashed apply's clone request, got %d", n)
					}
					return nil
				}),
			},
		}},
	})
}

// W17: a template made a moment ago is not yet listed as one; importing it
// goes by its config, not by the listing's template flag.
func TestAccVMTemplateImportBeforeListingCatchesUpW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	sim.SetStatsInterval(time.Hour)
	tpl := newVMRefAt(tg, vmTemplateAddr)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(tpl),
		Steps: []resource.TestStep{
			{
				Config:            vmTemplateConfig(tg, templateBody(2, "4"), ""),
				ConfigStateChecks: []statecheck.StateCheck{isTemplate(tpl, "scsi0")},
			},
			{
				ResourceName:      vmTemplateAddr,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return fmt.Sprintf("%s/%d", tpl.Node, tpl.VMID), nil },
			},
		},
	})
}
