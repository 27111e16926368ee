package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// W11, W13: an apply killed while PVE created a VM whose VMID it had
// allocated leaves a VM with the planned name and the create marker that
// no state records. The next apply, with no vmid configured, adopts it
// (reconfigured to the plan, marker removed) instead of creating another.
func TestAccVMCreateAdoptsHalfMadeVMW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ctx := context.Background()
	const halfMade = 150
	upid, err := tg.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, halfMade, url.Values{
		"name":        {"half-1"},
		"memory":      {"512"},
		"scsihw":      {"virtio-scsi-single"},
		"scsi0":       {"local-lvm:2"},
		"net0":        {"virtio,bridge=vmbr0"},
		"description": {guestops.WithCloneMarker("", guestops.CreateMarker(guestops.VM, "half-1"))},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, `
  node          = "pve1"
  name          = "half-1"
  description   = "adopted"
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 1024 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 2 }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
`),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.configCheck(func(c map[string]string) error {
					if vm.VMID != halfMade {
						return fmt.Errorf("VMID %d: want the half-made VM %d adopted", vm.VMID, halfMade)
					}
					if c["description"] != "adopted" || c["memory"] != "1024" {
						return fmt.Errorf("description %q, memory %q: want the plan's, without the marker", c["description"], c["memory"])
					}
					if _, extra := c["unused0"]; extra || c["scsi1"] != "" {
						return fmt.Errorf("adopting changed the disks: unused0 %q, scsi1 %q", c["unused0"], c["scsi1"])
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

// W13: a VM that only shares the planned name, without the create marker,
// is someone else's and is left alone: a new VM is created beside it.
func TestAccVMCreateLeavesUnmarkedNamesakeW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ctx := context.Background()
	const namesake = 150
	upid, err := tg.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeQemu, namesake, url.Values{"name": {"twin-1"}, "description": {"not ours"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, `
  node = "pve1"
  name = "twin-1"
`),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.configCheck(func(c map[string]string) error {
					if vm.VMID == namesake {
						return fmt.Errorf("the unmarked VM %d was adopted", namesake)
					}
					if _, marked := c["description"]; marked {
						return fmt.Errorf("description %q left on the new VM", c["description"])
					}
					other, ok := sim.GuestConfig(namesake)
					if !ok || other["description"] != "not ours" {
						return fmt.Errorf("the namesake %d changed: %v", namesake, other)
					}
					return nil
				}),
			},
		}},
	})
}
