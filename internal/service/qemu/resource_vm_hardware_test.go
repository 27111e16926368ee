package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func firmwareVM(efi, tpm string) string {
	return fmt.Sprintf(`
  node    = "pve1"
  name    = "tfacc-uefi"
  bios    = "ovmf"
  machine = "q35"
  started = false
  disks   = { scsi0 = { storage = "local-lvm", size = 2 } }
%s
%s
`, efi, tpm)
}

const (
	efiEnrolled = `  efi_disk  = { storage = "local-lvm", type = "4m", pre_enrolled_keys = true }`
	efiPlain    = `  efi_disk  = { storage = "local-lvm", type = "4m", pre_enrolled_keys = false }`
	tpmV2       = `  tpm_state = { storage = "local-lvm", version = "v2.0" }`
	tpmV12      = `  tpm_state = { storage = "local-lvm", version = "v1.2" }`
)

// liveValue checks a config key of the VM against a pattern.
func (v *vmRef) liveValue(key string, pattern *regexp.Regexp) statecheck.StateCheck {
	return v.Check(func() error {
		config, err := v.config()
		if err != nil {
			return err
		}
		if !pattern.MatchString(config[key]) {
			return fmt.Errorf("%s = %q, want %s", key, config[key], pattern)
		}
		return nil
	})
}

// W41: the EFI disk is created with Secure Boot keys, toggled in place on
// the same volume with PVE's ms-cert kept, imported with an empty plan;
// the TPM version cannot change.
func TestAccVM_efiDiskAndTPM(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	// Step two keeps the volumes of step one.
	efiVolume := statecheck.CompareValue(compare.ValuesSame())
	tpmVolume := statecheck.CompareValue(compare.ValuesSame())
	efiPath := tfjsonpath.New("efi_disk").AtMapKey("volume")
	tpmPath := tfjsonpath.New("tpm_state").AtMapKey("volume")
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, firmwareVM(efiEnrolled, tpmV2)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					statecheck.ExpectKnownValue(vmAddr, efiPath, knownvalue.StringRegexp(regexp.MustCompile(`.`))),
					statecheck.ExpectKnownValue(vmAddr, tpmPath, knownvalue.StringRegexp(regexp.MustCompile(`.`))),
					efiVolume.AddStateValue(vmAddr, efiPath),
					tpmVolume.AddStateValue(vmAddr, tpmPath),
					vm.liveValue("efidisk0", regexp.MustCompile(`^local-lvm:vm-\d+-disk-\d+,efitype=4m,ms-cert=[^,]+,pre-enrolled-keys=1,size=`)),
					vm.liveValue("tpmstate0", regexp.MustCompile(`^local-lvm:vm-\d+-disk-\d+,.*version=v2\.0`)),
				},
			},
			{
				Config: vmConfig(tg, firmwareVM(efiPlain, tpmV2)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				// Live form: same volume, ms-cert is PVE's and stays.
				ConfigStateChecks: []statecheck.StateCheck{
					efiVolume.AddStateValue(vmAddr, efiPath),
					tpmVolume.AddStateValue(vmAddr, tpmPath),
					vm.liveValue("efidisk0", regexp.MustCompile(`,ms-cert=[^,]+,pre-enrolled-keys=0,`)),
				},
			},
			{
				ResourceName:      vmAddr,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
			},
			{
				Config:            vmConfig(tg, firmwareVM(efiPlain, tpmV2)),
				ResourceName:      vmAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				Config:      vmConfig(tg, firmwareVM(efiPlain, tpmV12)),
				ExpectError: regexp.MustCompile(`TPM Version Cannot Change[\s\S]*secrets`),
			},
			{
				Config:      vmConfig(tg, firmwareVM(`  efi_disk = { storage = "local-lvm", type = "2m" }`, tpmV2)),
				ExpectError: regexp.MustCompile(`EFI Disk Type Cannot Change`),
			},
		},
	})
}

// Adding an EFI disk and a TPM to an existing VM is an update.
func TestAccVM_efiDiskAndTPMAddedInPlace(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, firmwareVM("", "")), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				Config: vmConfig(tg, firmwareVM(`  efi_disk = { storage = "local-lvm", pre_enrolled_keys = true }`, `  tpm_state = { storage = "local-lvm" }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0"),
					vm.liveValue("efidisk0", regexp.MustCompile(`^local-lvm:vm-\d+-disk-\d+,efitype=4m,ms-cert=`)),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("efi_disk").AtMapKey("type"), knownvalue.StringExact("4m")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("tpm_state").AtMapKey("version"), knownvalue.StringExact("v2.0")),
				},
			},
		},
	})
}

func pciVM(devices string) string {
	return fmt.Sprintf(`
  node    = "pve1"
  name    = "tfacc-gpu"
  machine = "q35"
  started = false
  pci_devices = {
%s
  }
`, devices)
}

// W49: under an API token a raw host device is refused at plan time with a
// pointer to resource mappings; a mapping is managed in place; a hostpci
// slot added outside Terraform is reported and never deleted (W42).
func TestAccVM_pciDevicesUnderToken(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if acctest.IsLive() {
		t.Skip("needs PCI resource mappings on the node")
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config:      vmConfig(tg, pciVM(`    hostpci0 = { device = "0000:17:00.0", pcie = true }`)),
				ExpectError: regexp.MustCompile(`Raw PCI Passthrough Needs root@pam[\s\S]*resource\s+mapping`),
			},
			{
				Config: vmConfig(tg, pciVM(`    hostpci0 = { mapping = "gpu0" }`)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					vm.configHas(map[string]string{"hostpci0": "mapping=gpu0"}),
				},
			},
			{
				Config: vmConfig(tg, pciVM(`    hostpci0 = { mapping = "gpu0", pcie = true, rombar = false }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"hostpci0": "mapping=gpu0,pcie=1,rombar=0"})},
			},
			{
				// Added behind Terraform's back: the plan stays empty (a
				// warning names it) and an apply leaves it alone.
				PreConfig: func() {
					if err := tg.Client.UpdateGuestConfig(context.Background(), vm.Node, pveapi.GuestTypeQemu, vm.VMID, url.Values{"hostpci1": {"mapping=nic0"}}); err != nil {
						t.Fatalf("add hostpci1 outside Terraform: %v", err)
					}
				},
				Config: vmConfig(tg, pciVM(`    hostpci0 = { mapping = "gpu0", pcie = true, rombar = false }`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"hostpci1": "mapping=nic0"})},
			},
			{
				Config:            vmConfig(tg, pciVM(`    hostpci0 = { mapping = "gpu0", pcie = true, rombar = false }`)+"  description = \"gpu box\"\n"),
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"hostpci1": "mapping=nic0", "description": "gpu box"})},
			},
		},
	})
}

// W42: with the root@pam password a raw device is passed through; PVE's
// spelling of the address and the configuration's compare equal, so an
// import plans nothing.
func TestAccVM_pciRawDeviceAsRoot(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	if acctest.IsLive() {
		t.Skip("needs a PCI device to pass through")
	}
	vm := newVMRef(tg)
	cfg := pciVM(`    hostpci0 = { device = "17:00.0", pcie = true, x_vga = true }`)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, cfg), ConfigStateChecks: []statecheck.StateCheck{vm.record(), vm.configHas(map[string]string{"hostpci0": "17:00.0,pcie=1,x-vga=1"})}},
			{
				Config:            vmConfig(tg, cfg),
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

func agentVM(agent, started string) string {
	return fmt.Sprintf(`
  node    = "pve1"
  name    = "tfacc-agent"
  started = %s
  agent   = %s
  disks   = { scsi0 = { storage = "local-lvm", size = 2 } }
  network = { net0 = { bridge = "vmbr0" } }
`, started, agent)
}

// The agent's addresses are filled at create (loopback and link-local left
// out) and when an update starts the VM; a refresh never asks the agent.
func TestAccVM_agentAddresses(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	dhcp := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(`^10\.99\.\d+\.\d+$`))})
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, agentVM(`{ enabled = true, wait_for_ip = true, timeout = "1m" }`, "true")),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("ipv4_addresses"), dhcp),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("ipv6_addresses"), knownvalue.ListExact(nil)),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("agent").AtMapKey("timeout"), knownvalue.StringExact("1m")),
				},
			},
			{
				Config: vmConfig(tg, agentVM(`{ enabled = true }`, "false")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("agent").AtMapKey("timeout"), knownvalue.StringExact("5m")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("stopped")),
				},
			},
			{
				Config: vmConfig(tg, agentVM(`{ enabled = true }`, "true")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("ipv4_addresses"), dhcp),
				},
			},
			{
				ResourceName:            vmAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"ipv4_addresses", "ipv6_addresses"},
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
			},
		},
	})
}
