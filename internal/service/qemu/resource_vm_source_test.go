package qemu_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func expectUpdateOnly() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
	}
}

// A clone source that changes (full, storage, the template) or is removed
// is only recorded: an update that sends nothing to PVE, never a
// replacement; the inherited disk and settings stay, in PVE and out of
// the plan, and the plan after each apply is empty.
func TestAccVMCloneSourceOnlyRecorded(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeTemplate(t, tg, "pve1", "local-lvm")
	vm := newVMRef(tg)
	watch := acctest.NewWriteWatch(tg, func() string { return fmt.Sprintf("/nodes/%s/qemu/%d", vm.Node, vm.VMID) })
	config := func(clone string) string {
		return vmConfig(tg, fmt.Sprintf(`
  node  = "pve1"
  name  = "app-1"
  cpu   = { cores = 4 }
  disks = { scsi0 = { storage = "local-lvm", size = 4 } }
%s`, clone))
	}
	inherited := vm.configCheck(func(c map[string]string) error {
		if c["memory"] != "1024" || c["tags"] != "base" || c["description"] != "golden image" {
			return fmt.Errorf("inherited values changed: memory=%q tags=%q description=%q", c["memory"], c["tags"], c["description"])
		}
		return nil
	})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(fmt.Sprintf("  clone = { source_vmid = %d }", templateVMID)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					inherited,
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(fmt.Sprintf("  clone = { source_vmid = %d, full = false, storage = \"local-zfs\" }", templateVMID+1)),
				ConfigPlanChecks: expectUpdateOnly(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					vm.keeps("scsi0", "scsi1"),
					inherited,
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("clone").AtMapKey("source_vmid"), knownvalue.Int64Exact(templateVMID+1)),
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(""),
				ConfigPlanChecks: expectUpdateOnly(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					vm.keeps("scsi0", "scsi1"),
					inherited,
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("clone"), acctest.NullOrLacks("source_vmid")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks"), acctest.NullOrLacks("scsi1")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("memory"), knownvalue.Null()),
				},
			},
			{
				// Without the source the guest still inherits: a refresh
				// and a declared change leave the undeclared alone.
				Config:           config("  memory = { size = 2048 }"),
				ConfigPlanChecks: expectUpdateOnly(),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1"),
					vm.configHas(map[string]string{"memory": "2048", "tags": "base"}),
				},
			},
		},
	})
}

// A restored VM whose archive changes or goes is only recorded the same
// way: the archive's disks and settings stay.
func TestAccVMRestoreSourceOnlyRecorded(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	vm := newVMRef(tg)
	watch := acctest.NewWriteWatch(tg, func() string { return fmt.Sprintf("/nodes/%s/qemu/%d", vm.Node, vm.VMID) })
	config := func(restore string) string {
		return vmConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  name    = "web-restored"
  cpu     = { cores = 4 }
  disks   = { scsi0 = { storage = "local-lvm", size = 20 } }
%s`, restore))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(fmt.Sprintf("  restore = { archive = %q, storage = \"local-lvm\" }", vmArchive)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					archiveKept(vm, "4"),
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(`  restore = { archive = "local:backup/vzdump-qemu-120-2026_12_01-00_00_00.vma.zst", unique = true }`),
				ConfigPlanChecks: expectUpdateOnly(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					vm.keeps("scsi0", "scsi1"),
					archiveKept(vm, "4"),
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(""),
				ConfigPlanChecks: expectUpdateOnly(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					vm.keeps("scsi0", "scsi1"),
					archiveKept(vm, "4"),
				},
			},
		},
	})
}
