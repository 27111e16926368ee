package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const vmTemplateAddr = "pve_vm_template.test"

// vmTemplateConfig wraps attribute lines into the test template resource;
// extra is appended as is (other resources).
func vmTemplateConfig(tg *acctest.Target, body, extra string) string {
	return tg.Config("resource \"pve_vm_template\" \"test\" {\n" + body + "\n}\n" + extra)
}

// templateBody is a template with one disk of cores cores.
func templateBody(cores int, size string) string {
	return fmt.Sprintf(`
  node          = "pve1"
  name          = "tfacc-tpl"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = %d }
  memory = { size = 1024 }
  agent  = { enabled = true }
  disks = {
    scsi0 = { storage = "local-lvm", size = %s, discard = true }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
`, cores, size)
}

// isTemplate checks that PVE holds the guest as a template whose disk is a
// base volume, and that state records that volume (W17).
func isTemplate(v *vmRef, slot string) statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		if err := v.Load(state); err != nil {
			return err
		}
		config, err := v.config()
		if err != nil {
			return err
		}
		if config["template"] != "1" {
			return fmt.Errorf("VM %d is not a template: template = %q", v.VMID, config["template"])
		}
		want := fmt.Sprintf("local-lvm:base-%d-disk-", v.VMID)
		if !strings.HasPrefix(config[slot], want) {
			return fmt.Errorf("%s is %q, want a base volume %s*", slot, config[slot], want)
		}
		volume, err := acctest.StringAt(state, v.Addr, tfjsonpath.New("disks").AtMapKey(slot).AtMapKey("volume"))
		if err != nil {
			return err
		}
		if !strings.HasPrefix(config[slot], volume+",") {
			return fmt.Errorf("state records volume %q, PVE has %q", volume, config[slot])
		}
		return nil
	})
}

// W17: a template from scratch is created stopped and marked a template;
// its disk becomes a base volume that state follows. Hardware changes,
// growing the base disk and a node move are in place, and an import round
// trip plans empty.
func TestAccVMTemplate_fromScratchW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tpl := newVMRefAt(tg, vmTemplateAddr)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(tpl),
		Steps: []resource.TestStep{
			{
				Config: vmTemplateConfig(tg, templateBody(2, "4"), ""),
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					statecheck.ExpectKnownValue(vmTemplateAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("size"), knownvalue.StringExact("4")),
				},
			},
			{
				// Changes PVE accepts on a template are made in place.
				Config: vmTemplateConfig(tg, templateBody(4, "4")+"  description = \"golden image\"\n", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmTemplateAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					acctest.CheckState(func(*tfjson.State) error {
						config, err := tpl.config()
						if err != nil {
							return err
						}
						if config["cores"] != "4" || config["description"] != "golden image" {
							return fmt.Errorf("cores %q description %q", config["cores"], config["description"])
						}
						return nil
					}),
				},
			},
			{
				// A template's disk grows in place: PVE's resize checks no
				// template flag and grows the base volume (qemu-server
				// API2/Qemu.pm resize_vm, pve-storage volume_resize).
				Config: vmTemplateConfig(tg, templateBody(4, "8")+"  description = \"golden image\"\n", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmTemplateAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					acctest.CheckState(func(*tfjson.State) error {
						config, err := tpl.config()
						if err != nil {
							return err
						}
						if !strings.HasSuffix(config["scsi0"], ",size=8G") {
							return fmt.Errorf("scsi0 = %q, want the base volume grown to 8G", config["scsi0"])
						}
						return nil
					}),
				},
			},
			{
				// A template moves to another node in place, base volumes and all.
				Config: vmTemplateConfig(tg, strings.Replace(templateBody(4, "8"), `"pve1"`, `"pve2"`, 1)+"  description = \"golden image\"\n", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmTemplateAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					acctest.CheckState(func(*tfjson.State) error {
						if tpl.Node != "pve2" {
							return fmt.Errorf("template is on %s", tpl.Node)
						}
						return nil
					}),
				},
			},
			{
				ResourceName:      vmTemplateAddr,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return fmt.Sprintf("%s/%d", tpl.Node, tpl.VMID), nil },
			},
			{
				// An import block adopts the template with an empty plan.
				Config:            vmTemplateConfig(tg, strings.Replace(templateBody(4, "8"), `"pve1"`, `"pve2"`, 1)+"  description = \"golden image\"\n", ""),
				ResourceName:      vmTemplateAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(tpl.VMID), nil },
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmTemplateAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

// W17, W25: a template whose disk is seeded from an uploaded disk image
// (pve_disk_image + import_from), grown to its configured size before it
// becomes a base volume.
func TestAccVMTemplate_fromDiskImageW25(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tpl := newVMRefAt(tg, vmTemplateAddr)
	source := filepath.Join(t.TempDir(), "cloud.qcow2")
	image := make([]byte, 65536)
	copy(image, "QFI\xfb")
	if err := os.WriteFile(source, image, 0o600); err != nil {
		t.Fatal(err)
	}
	fileName := acctest.Name("tfacc") + ".qcow2"
	config := vmTemplateConfig(tg, `
  node          = "pve1"
  name          = "tfacc-cloud-tpl"
  scsi_hardware = "virtio-scsi-single"
  disks = {
    scsi0 = { storage = "local-lvm", import_from = pve_disk_image.cloud.volume, size = 2 }
  }
  network = { net0 = { bridge = "vmbr0" } }
  cloud_init = {
    storage = "local-lvm"
    user    = "debian"
  }
`, fmt.Sprintf(`
resource "pve_disk_image" "cloud" {
  node        = "pve1"
  storage     = "local"
  file_name   = %q
  source_file = %q
}
`, fileName, source))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(tpl),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					diskSizeOf(tpl, "scsi0", "2G"),
					statecheck.ExpectKnownValue(vmTemplateAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("size"), knownvalue.StringExact("2")),
				},
			},
			{
				ResourceName:            vmTemplateAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"disks.scsi0.import_from"},
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return strconv.Itoa(tpl.VMID), nil },
			},
		},
	})
}

// diskSizeOf checks the size PVE reports for a template's disk.
func diskSizeOf(v *vmRef, slot, want string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		config, err := v.config()
		if err != nil {
			return err
		}
		if !strings.Contains(config[slot], ",size="+want) {
			return fmt.Errorf("%s is %q, want size=%s", slot, config[slot], want)
		}
		return nil
	})
}

// W17: a template imported as pve_vm, or a VM imported as
// pve_vm_template, is refused: neither becomes the other in place.
func TestAccVMTemplate_wrongKindImportW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tpl := newVMRefAt(tg, vmTemplateAddr)
	vm := newVMRef(tg)
	plainVM := `
resource "pve_vm" "test" {
  node    = "pve1"
  name    = "tfacc-plain"
  started = false
  memory  = { size = 512 }
}
`
	config := vmTemplateConfig(tg, templateBody(1, "1"), plainVM)
	other := `
resource "pve_vm" "other" {
  node = "pve1"
}
resource "pve_vm_template" "other" {
  node = "pve1"
}
`

	tg.Run(t, resource.TestCase{
		CheckDestroy: resource.ComposeTestCheckFunc(checkVMDestroyed(tpl), checkVMDestroyed(vm)),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					vm.record(),
				},
			},
			{
				Config:            config + other,
				ResourceName:      "pve_vm.other",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(tpl.VMID), nil },
				ExpectError:       regexp.MustCompile(`(?s)VM Is A Template.*pve_vm_template`),
			},
			{
				Config:            config + other,
				ResourceName:      "pve_vm_template.other",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
				ExpectError:       regexp.MustCompile(`(?s)Not A VM Template.*import it as pve_vm`),
			},
		},
	})
}

// W17: destroying a template whose base volume backs a linked clone fails
// with PVE's error and says what to do; once the clone is gone it works.
func TestAccVMTemplate_deleteWithLinkedCloneW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tpl := newVMRefAt(tg, vmTemplateAddr)
	config := vmTemplateConfig(tg, templateBody(1, "1"), "")
	var cloneID int

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(tpl),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					isTemplate(tpl, "scsi0"),
					acctest.CheckState(func(*tfjson.State) error {
						id, err := linkedClone(tg.Client, tpl)
						cloneID = id
						return err
					}),
				},
			},
			{
				Config:      config,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)still in use by linked\s+cloned.*VM Template Still Has Linked Clones`),
			},
			{
				PreConfig: func() {
					upid, err := tg.Client.DeleteGuest(context.Background(), tpl.Node, pveapi.GuestTypeQemu, cloneID, true, false)
					if err == nil {
						_, err = tg.Client.WaitTask(context.Background(), upid)
					}
					if err != nil {
						t.Fatalf("delete linked clone %d: %v", cloneID, err)
					}
				},
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{isTemplate(tpl, "scsi0")},
			},
		},
	})
}

// linkedClone makes a linked clone of the template outside Terraform.
func linkedClone(client *pveapi.Client, tpl *vmRef) (int, error) {
	ctx := context.Background()
	id, err := client.NextID(ctx)
	if err != nil {
		return 0, err
	}
	upid, err := client.CloneGuest(ctx, tpl.Node, pveapi.GuestTypeQemu, tpl.VMID, url.Values{"newid": {strconv.Itoa(id)}, "full": {"0"}, "name": {"tfacc-linked"}})
	if err != nil {
		return 0, err
	}
	_, err = client.WaitTask(ctx, upid)
	return id, err
}
