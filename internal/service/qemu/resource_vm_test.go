package qemu_test

import (
	"context"
	"fmt"
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
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

const vmAddr = "pve_vm.test"

// vmConfig wraps attribute lines into the test VM resource.
func vmConfig(tg *acctest.Target, body string) string {
	return tg.Config("resource \"pve_vm\" \"test\" {\n" + body + "\n}\n")
}

// twoDisksTwoNICs is the VM most tests start from.
const twoDisksTwoNICs = `
  node          = "pve1"
  name          = "tfacc-web"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 2, sockets = 1 }
  memory = { size = 2048 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = true, iothread = true }
    scsi1 = { storage = "local-lvm", size = 4, backup = false }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net1 = { bridge = "vmbr1", model = "e1000", vlan_tag = 20 }
  }
`

// vmRef follows the VM a test created: its vmid and node come from state
// (acctest.Guest), its disks from PVE.
type vmRef struct {
	*acctest.Guest
	tg      *acctest.Target
	volumes map[string]string // slot -> volid, as last recorded
}

func newVMRef(tg *acctest.Target) *vmRef { return newVMRefAt(tg, vmAddr) }

// newVMRefAt follows the VM at another resource address.
func newVMRefAt(tg *acctest.Target, addr string) *vmRef {
	return &vmRef{Guest: acctest.NewGuest(addr), tg: tg, volumes: map[string]string{}}
}

func (v *vmRef) config() (pveapi.GuestConfig, error) {
	return v.tg.Client.GuestConfig(context.Background(), v.Node, pveapi.GuestTypeQemu, v.VMID)
}

// diskVolumes lists the volid of every data disk slot in PVE's config.
func (v *vmRef) diskVolumes() (map[string]string, error) {
	config, err := v.config()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for key, value := range config {
		if !wire.IsDiskSlot(key) {
			continue
		}
		drive, err := wire.ParseDrive(value)
		if err != nil || wire.IsCDROM(drive) || drive.IsCloudInit() || drive.VolumeID() == "" {
			continue
		}
		out[key] = drive.VolumeID()
	}
	return out, nil
}

// record remembers the volids of the VM's disks.
func (v *vmRef) record() statecheck.StateCheck {
	return v.Check(func() error {
		vols, err := v.diskVolumes()
		if err != nil {
			return err
		}
		v.volumes = vols
		return nil
	})
}

// keeps asserts that the listed disks still have the volids recorded
// before, then records the current ones: an update must never give a kept
// disk a new volume (W21).
func (v *vmRef) keeps(slots ...string) statecheck.StateCheck {
	return v.Check(func() error {
		vols, err := v.diskVolumes()
		if err != nil {
			return err
		}
		for _, slot := range slots {
			if vols[slot] == "" || vols[slot] != v.volumes[slot] {
				return fmt.Errorf("disk %s: volume was %q, now %q", slot, v.volumes[slot], vols[slot])
			}
		}
		v.volumes = vols
		return nil
	})
}

// configHas asserts config keys of the VM in PVE.
func (v *vmRef) configHas(want map[string]string) statecheck.StateCheck {
	return v.Check(func() error {
		config, err := v.config()
		if err != nil {
			return err
		}
		for k, w := range want {
			got, ok := config[k]
			switch {
			case w == "" && ok:
				return fmt.Errorf("config key %s = %q, want it absent", k, got)
			case w != "" && got != w:
				return fmt.Errorf("config key %s = %q, want %q", k, got, w)
			}
		}
		return nil
	})
}

// volumeExists reports whether a volid is on its storage on the VM's node.
func (v *vmRef) volumeExists(volid string) (bool, error) {
	storage, _, _ := strings.Cut(volid, ":")
	vols, err := v.tg.Client.StorageContent(context.Background(), v.Node, storage, "images")
	if err != nil {
		return false, err
	}
	for _, vol := range vols {
		if vol.VolID == volid {
			return true, nil
		}
	}
	return false, nil
}

func checkVMDestroyed(v *vmRef) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if v.VMID == 0 {
			return nil
		}
		_, err := v.config()
		if pveapi.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("VM %d still exists after destroy", v.VMID)
	}
}

func TestAccVM_createTwoDisksTwoNICsAndImport(t *testing.T) {
	t.Parallel()
	testVMCreateAndImport(t, acctest.New(t))
}

// testVMCreateAndImport is TestAccVM_createTwoDisksTwoNICsAndImport on a given target; the PVE 8.4 smoke tests run it too.
func testVMCreateAndImport(t *testing.T, tg *acctest.Target) {
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, twoDisksTwoNICs),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					vm.configHas(map[string]string{"name": "tfacc-web", "cores": "2", "memory": "2048", "onboot": ""}),
					acctest.CheckState(func(*tfjson.State) error {
						if len(vm.volumes) != 2 {
							return fmt.Errorf("want 2 data disks in PVE, got %v", vm.volumes)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("started"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("size"), knownvalue.StringExact("8")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("volume"),
						knownvalue.StringRegexp(regexp.MustCompile(`^local-lvm:vm-\d+-disk-\d+$`))),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("network").AtMapKey("net0").AtMapKey("model"), knownvalue.StringExact("virtio")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("network").AtMapKey("net0").AtMapKey("mac_address"),
						knownvalue.StringRegexp(regexp.MustCompile(`^[0-9A-F]{2}(:[0-9A-F]{2}){5}$`))),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("boot_order"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("tags"), knownvalue.Null()),
				},
			},
			{
				ResourceName:      vmAddr,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
			},
			{
				ResourceName:      vmAddr,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return fmt.Sprintf("%s/%d", vm.Node, vm.VMID), nil },
			},
			{
				// An import block adopts the VM with an empty plan.
				Config:            vmConfig(tg, twoDisksTwoNICs),
				ResourceName:      vmAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

func TestAccVM_inPlaceUpdates(t *testing.T) {
	t.Parallel()
	testVMInPlaceUpdates(t, acctest.New(t))
}

// testVMInPlaceUpdates is TestAccVM_inPlaceUpdates on a given target; the PVE 8.4 smoke tests run it too.
func testVMInPlaceUpdates(t *testing.T, tg *acctest.Target) {
	vm := newVMRef(tg)
	pool := acctest.Name("tfacc")
	update := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config:            vmConfig(tg, twoDisksTwoNICs),
				ConfigStateChecks: []statecheck.StateCheck{vm.record()},
			},
			{
				// Hardware, identity and tags (W19: case folds, no diff).
				Config: vmConfig(tg, `
  node          = "pve1"
  name          = "tfacc-web-2"
  description   = "managed by terraform\nsecond line\n"
  tags          = ["Web", "prod"]
  on_boot       = true
  bios          = "ovmf"
  machine       = "q35"
  os_type       = "l26"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 4, sockets = 1, type = "x86-64-v2-AES", units = 200 }
  memory = { size = 4096, balloon = 1024 }
  agent  = { enabled = true, trim = true }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = true, iothread = true }
    scsi1 = { storage = "local-lvm", size = 4, backup = false }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net1 = { bridge = "vmbr1", model = "e1000", vlan_tag = 20 }
  }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1"),
					vm.configHas(map[string]string{
						"name": "tfacc-web-2", "cores": "4", "memory": "4096", "balloon": "1024", "onboot": "1",
						"tags": "prod;web", "cpu": "x86-64-v2-AES", "cpuunits": "200", "bios": "ovmf",
						"agent": "1,fstrim_cloned_disks=1",
					}),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("tags"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("Web"), knownvalue.StringExact("prod")})),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("description"), knownvalue.StringExact("managed by terraform\nsecond line\n")),
				},
			},
			{
				// Attributes removed from configuration return to PVE's
				// defaults; a NIC goes, another comes.
				Config: vmConfig(tg, `
  node          = "pve1"
  name          = "tfacc-web-2"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 4 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = true, iothread = true }
    scsi1 = { storage = "local-lvm", size = 4, backup = false }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net2 = { bridge = "vmbr2", mtu = 1400 }
  }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1"),
					vm.configHas(map[string]string{
						"net1": "", "tags": "", "onboot": "", "memory": "", "balloon": "", "agent": "", "cpu": "",
						"cpuunits": "", "bios": "", "description": "",
					}),
				},
			},
			{
				// A new disk in an empty slot, option changes of a live disk.
				Config: vmConfig(tg, `
  node          = "pve1"
  name          = "tfacc-web-2"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 4 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = false, ssd = true, cache = "writeback" }
    scsi1 = { storage = "local-lvm", size = 4, backup = false }
    virtio0 = { storage = "local-lvm", size = "512M" }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net2 = { bridge = "vmbr2", mtu = 1400 }
  }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1"),
					acctest.CheckState(func(*tfjson.State) error {
						if vm.volumes["virtio0"] == "" {
							return fmt.Errorf("virtio0 has no volume: %v", vm.volumes)
						}
						config, err := vm.config()
						if err != nil {
							return err
						}
						drive, err := wire.ParseDrive(config["scsi0"])
						if err != nil {
							return err
						}
						if drive.Options["discard"] != "ignore" || drive.Options["ssd"] != "1" || drive.Options["cache"] != "writeback" || drive.Options["iothread"] != "" {
							return fmt.Errorf("scsi0 options: %v", drive.Options)
						}
						return nil
					}),
				},
			},
			{
				// W22: growth is a resize of the same volume.
				Config: vmConfig(tg, `
  node          = "pve1"
  name          = "tfacc-web-2"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 4 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = false, ssd = true, cache = "writeback" }
    scsi1 = { storage = "local-lvm", size = 6, backup = false }
    virtio0 = { storage = "local-lvm", size = "1G" }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net2 = { bridge = "vmbr2", mtu = 1400 }
  }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1", "virtio0"),
					diskSize(vm, "scsi1", "6G"),
					diskSize(vm, "virtio0", "1G"),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks").AtMapKey("virtio0").AtMapKey("size"), knownvalue.StringExact("1G")),
				},
			},
			{
				// Power off, join a pool: both in place.
				Config: tg.Config(fmt.Sprintf(`
resource "pve_pool" "a" {
  poolid = %q
}
resource "pve_vm" "test" {
  node          = "pve1"
  name          = "tfacc-web-2"
  started       = false
  pool          = pve_pool.a.poolid
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 4 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = false, ssd = true, cache = "writeback" }
    scsi1 = { storage = "local-lvm", size = 6, backup = false }
    virtio0 = { storage = "local-lvm", size = "1G" }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net2 = { bridge = "vmbr2", mtu = 1400 }
  }
}
`, pool)),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1", "virtio0"),
					inPool(vm, pool, true),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("stopped")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("pool"), knownvalue.StringExact(pool)),
				},
			},
			{
				// Leave the pool (W48), start again.
				Config: tg.Config(fmt.Sprintf(`
resource "pve_pool" "a" {
  poolid = %q
}
resource "pve_vm" "test" {
  node          = "pve1"
  name          = "tfacc-web-2"
  scsi_hardware = "virtio-scsi-single"
  cpu    = { cores = 4 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 8, discard = false, ssd = true, cache = "writeback" }
    scsi1 = { storage = "local-lvm", size = 6, backup = false }
    virtio0 = { storage = "local-lvm", size = "1G" }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
    net2 = { bridge = "vmbr2", mtu = 1400 }
  }
}
`, pool)),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1", "virtio0"),
					inPool(vm, pool, false),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("pool"), knownvalue.Null()),
				},
			},
		},
	})
}

// diskSize asserts the size= PVE reports for a disk.
func diskSize(vm *vmRef, slot, want string) statecheck.StateCheck {
	return vm.Check(func() error {
		config, err := vm.config()
		if err != nil {
			return err
		}
		drive, err := wire.ParseDrive(config[slot])
		if err != nil {
			return fmt.Errorf("%s: %w", slot, err)
		}
		if drive.Options["size"] != want {
			return fmt.Errorf("%s size = %q, want %q", slot, drive.Options["size"], want)
		}
		return nil
	})
}

// inPool asserts the VM's pool membership as the pools API reports it.
func inPool(vm *vmRef, poolID string, want bool) statecheck.StateCheck {
	return vm.Check(func() error {
		p, found, err := vm.tg.Client.GetPool(context.Background(), poolID)
		if err != nil || !found {
			return fmt.Errorf("pool %s: found=%v err=%w", poolID, found, err)
		}
		member := false
		for _, m := range p.Members {
			if m.VMID.Int() == vm.VMID {
				member = true
			}
		}
		if member != want {
			return fmt.Errorf("VM %d in pool %s: %v, want %v", vm.VMID, poolID, member, want)
		}
		return nil
	})
}
