package qemu_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// disksBody is a stopped VM with the given disks block.
func disksBody(extra, disks string) string {
	return `
  node          = "pve1"
  name          = "tfacc-disks"
  started       = false
  scsi_hardware = "virtio-scsi-single"
` + extra + `
  disks = {
` + disks + `
  }
`
}

func TestAccVM_shrinkRefusedAtPlanW22(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config:            vmConfig(tg, disksBody("", `    scsi0 = { storage = "local-lvm", size = 8 }`)),
				ConfigStateChecks: []statecheck.StateCheck{vm.record()},
			},
			{
				// W22: a smaller size is a plan-time error naming the disk and
				// its current size, never a new volume.
				Config:      vmConfig(tg, disksBody("", `    scsi0 = { storage = "local-lvm", size = "4G" }`)),
				ExpectError: regexp.MustCompile(`(?s)Disk Cannot Shrink.*Disk\s+scsi0\s+is\s+8\s+GiB`),
			},
			{
				// The same size in other units is no change at all.
				Config: vmConfig(tg, disksBody("", `    scsi0 = { storage = "local-lvm", size = "8192M" }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.keeps("scsi0")},
			},
		},
	})
}

func TestAccVM_storageMoveKeepsDataW23(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	var oldVolume string

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    scsi1 = { storage = "local-lvm", size = 2, backup = false }`)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					acctest.CheckState(func(*tfjson.State) error {
						oldVolume = vm.volumes["scsi1"]
						return nil
					}),
				},
			},
			{
				// W23: a storage change is move_disk, in place; the disk keeps
				// its slot, size and options; the old volume is gone.
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    scsi1 = { storage = "shared-nfs", size = 2, backup = false }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi1").AtMapKey("volume")),
						plancheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("volume"), knownvalue.NotNull()),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					diskSize(vm, "scsi1", "2G"),
					acctest.CheckState(func(*tfjson.State) error {
						config, err := vm.config()
						if err != nil {
							return err
						}
						drive, err := wire.ParseDrive(config["scsi1"])
						if err != nil || drive.Storage != "shared-nfs" || drive.Options["backup"] != "0" {
							return fmt.Errorf("scsi1 after the move: %q (%w)", config["scsi1"], err)
						}
						for key, value := range config {
							if wire.IsUnusedSlot(key) {
								return fmt.Errorf("the move left %s = %s behind", key, value)
							}
						}
						exists, err := vm.volumeExists(oldVolume)
						if err != nil {
							return err
						}
						if exists {
							return fmt.Errorf("old volume %s still exists after the move", oldVolume)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi1").AtMapKey("volume"),
						knownvalue.StringRegexp(regexp.MustCompile(`^shared-nfs:`))),
				},
			},
		},
	})
}

func TestAccVM_removedDiskDetachesW24(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	var detached, purged string

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    scsi1 = { storage = "local-lvm", size = 2 }
    scsi2 = { storage = "local-lvm", size = 1 }`)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					acctest.CheckState(func(*tfjson.State) error {
						detached, purged = vm.volumes["scsi1"], vm.volumes["scsi2"]
						return nil
					}),
				},
			},
			{
				// W24: removing a disk detaches it; PVE keeps it as unusedN
				// and its volume stays.
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    scsi2 = { storage = "local-lvm", size = 1 }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi2"),
					unusedHolds(vm, &detached, true),
					volumeExists(vm, &detached, true),
				},
			},
			{
				// Purging is opt-in: with purge_removed_disks the removed
				// disk's volume is destroyed, and the one detached before
				// stays untouched.
				Config: vmConfig(tg, disksBody("  purge_removed_disks = true", `
    scsi0 = { storage = "local-lvm", size = 8 }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					unusedHolds(vm, &purged, false),
					volumeExists(vm, &purged, false),
					unusedHolds(vm, &detached, true),
					volumeExists(vm, &detached, true),
				},
			},
		},
	})
}

// unusedHolds asserts whether an unusedN key of the VM holds *volid.
func unusedHolds(vm *vmRef, volid *string, want bool) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		config, err := vm.config()
		if err != nil {
			return err
		}
		found := ""
		for key, value := range config {
			if !wire.IsUnusedSlot(key) {
				continue
			}
			if d, err := wire.ParseDrive(value); err == nil && d.VolumeID() == *volid {
				found = key
			}
		}
		if (found != "") != want {
			return fmt.Errorf("unusedN holding %s: %q, want present=%v", *volid, found, want)
		}
		return nil
	})
}

func volumeExists(vm *vmRef, volid *string, want bool) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		exists, err := vm.volumeExists(*volid)
		if err != nil {
			return err
		}
		if exists != want {
			return fmt.Errorf("volume %s exists=%v, want %v", *volid, exists, want)
		}
		return nil
	})
}

func TestAccVM_diskGuardsAtPlan(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    scsi1 = { storage = "local-lvm", size = 2 }`)),
				ConfigStateChecks: []statecheck.StateCheck{vm.record()},
			},
			{
				// Moving a live disk to another bus would allocate an empty
				// volume: refused with guidance.
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    virtio1 = { storage = "local-lvm", size = 2 }`)),
				ExpectError: regexp.MustCompile(`(?s)Disk Cannot Move Between Slots.*Keep\s+the\s+disk\s+in\s+scsi1`),
			},
			{
				// A slot cannot turn from a disk into a CD-ROM in one step.
				Config: vmConfig(tg, disksBody(`  cdroms = { scsi1 = { file = "none" } }`, `
    scsi0 = { storage = "local-lvm", size = 8 }`)),
				ExpectError: regexp.MustCompile(`Slot Cannot Change Device Kind In One Step`),
			},
			{
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 8 }
    scsi1 = { storage = "local-lvm", size = 2 }`)),
				PlanOnly: true,
			},
		},
	})
}

func TestAccVM_importFromImageW25(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	image := "local:import/debian-13-genericcloud-amd64.qcow2"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				// W25: created as STORAGE:0,import-from=...; the one with a
				// size is grown afterwards (W22); the other keeps the size
				// of the disk the image holds (3G), not the image file's
				// (332M).
				Config: vmConfig(tg, disksBody("", fmt.Sprintf(`
    scsi0 = { storage = "local-lvm", import_from = %q, size = 4 }
    scsi1 = { storage = "local-lvm", import_from = %q }`, image, image))),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					diskSize(vm, "scsi0", "4G"),
					diskSize(vm, "scsi1", "3G"),
					acctest.CheckState(func(*tfjson.State) error {
						config, err := vm.config()
						if err != nil {
							return err
						}
						if strings.Contains(config["scsi0"], "import-from") {
							return fmt.Errorf("PVE reports import-from: %s", config["scsi0"])
						}
						return nil
					}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("size"), knownvalue.StringExact("4")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi1").AtMapKey("size"), knownvalue.StringExact("3")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi1").AtMapKey("import_from"), knownvalue.StringExact(image)),
				},
			},
			{
				// import_from is create-time only: a new image is recorded
				// with a warning, the live disks keep their volumes and data.
				Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", import_from = "local:import/other.qcow2", size = 4 }
    scsi1 = { storage = "local-lvm", import_from = "local:import/debian-13-genericcloud-amd64.qcow2" }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					vm.keeps("scsi1"),
					diskSize(vm, "scsi0", "4G"),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("import_from"), knownvalue.StringExact("local:import/other.qcow2")),
				},
			},
		},
	})
}

// W25, W22: a disk imported from an image has the size of the disk the
// image holds (3G for the seeded cloud image, a 332M file); a declared
// size below it would shrink the disk, which PVE cannot do: the apply
// fails and says so.
func TestAccVM_importBelowImageSizeFailsW25(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", import_from = "local:import/debian-13-genericcloud-amd64.qcow2", size = 2 }`)),
			ExpectError: errorLike("disk scsi0: the volume is 3 in PVE, larger than the planned 2; PVE cannot shrink a volume"),
		}},
	})
}

func TestAccVM_declaredBootOrderSurvivesNewCDROMW28(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	body := func(cdroms string) string {
		return disksBody(`  boot_order = ["scsi0", "net0"]
  network    = { net0 = { bridge = "vmbr0" } }
`+cdroms, `    scsi0 = { storage = "local-lvm", size = 2 }`)
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, body("")), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// W28: PVE appends a new CD-ROM to the boot order; the declared
				// order is written back after the device request.
				Config: vmConfig(tg, body(`  cdroms = { ide2 = { file = "local:iso/debian-13-netinst.iso" } }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					vm.configHas(map[string]string{"boot": "order=scsi0;net0"}),
				},
			},
		},
	})
}
