package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

// W49: under an API token (even root@pam's) a raw USB host device is
// refused at plan time, naming the attribute and the mapping alternative;
// "spice" and a mapping plan cleanly.
func TestVMUSBRawHostRefusedUnderToken(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	vm := func(usb map[string]map[string]any) map[string]any {
		return map[string]any{"node": "pve1", "name": "usb", "started": false, "usb_devices": usb}
	}
	diags := p.PlanCreate(t, "pve_vm", vm(map[string]map[string]any{"usb0": {"host": "046d:c52b", "usb3": true}}))
	acctest.WantError(t, diags, "", regexp.MustCompile(`Raw USB Passthrough Needs root@pam: [\s\S]*usb0[\s\S]*pve_usb_mapping[\s\S]*Mapping\.Use on /mapping/usb/NAME[\s\S]*mapping = "NAME"`))
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError && !strings.Contains(fmt.Sprint(d.Attribute), "usb_devices") {
			t.Errorf("the refusal names %v, want usb_devices[usb0].host", d.Attribute)
		}
	}
	for _, usb := range []map[string]any{{"host": "spice"}, {"mapping": "stick"}} {
		for _, d := range p.PlanCreate(t, "pve_vm", vm(map[string]map[string]any{"usb0": usb})) {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				t.Errorf("usb0 = %v: %s: %s", usb, d.Summary, d.Detail)
			}
		}
	}
}

func guestDevVM(usb, virtiofs string) string {
	return fmt.Sprintf(`
  node    = "pve1"
  name    = "tfacc-devices"
  machine = "q35"
  os_type = "l26"
  started = false
  usb_devices = {
%s
  }
  virtiofs = {
%s
  }
`, usb, virtiofs)
}

// USB devices and virtio-fs shares are added, changed in place and removed
// (the slot's key deleted); a host device works as root@pam and its id
// spelled another way plans nothing; a slot added outside Terraform is left
// alone; an import reads every slot and plans nothing.
func TestAccVM_usbAndVirtiofs(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	if acctest.IsLive() {
		t.Skip("needs USB and directory resource mappings on the node")
	}
	vm := newVMRef(tg)
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)}}
	final := guestDevVM(`    usb0 = { mapping = "stick", usb3 = true }`, `    virtiofs0 = { mapping = "share", cache = "never", expose_acl = true }`)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: vmConfig(tg, guestDevVM(
					`    usb0 = { mapping = "stick" }
    usb1 = { host = "0x046D:0xC52B" }`,
					`    virtiofs0 = { mapping = "share" }
    virtiofs1 = { mapping = "logs", direct_io = true }`)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					vm.configHas(map[string]string{"usb0": "mapping=stick", "usb1": "0x046D:0xC52B", "virtiofs0": "share", "virtiofs1": "logs,direct-io=1"}),
				},
			},
			{
				// Changed in place; usb1 and virtiofs1 removed.
				Config:            vmConfig(tg, final),
				ConfigPlanChecks:  update,
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"usb0": "mapping=stick,usb3=1", "usb1": "", "virtiofs0": "share,cache=never,expose-acl=1", "virtiofs1": ""})},
			},
			{
				// Added behind Terraform's back: never read, never deleted.
				PreConfig: func() {
					if err := tg.Client.UpdateGuestConfig(context.Background(), vm.Node, pveapi.GuestTypeQemu, vm.VMID, url.Values{"usb2": {"mapping=kbd"}, "virtiofs2": {"other"}}); err != nil {
						t.Fatalf("add usb2 outside Terraform: %v", err)
					}
				},
				Config:            vmConfig(tg, final),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"usb2": "mapping=kbd", "virtiofs2": "other"})},
			},
			{
				Config: vmConfig(tg, guestDevVM(`    usb0 = { mapping = "stick", usb3 = true }
    usb2 = { mapping = "kbd" }`, `    virtiofs0 = { mapping = "share", cache = "never", expose_acl = true }
    virtiofs2 = { mapping = "other" }`)),
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

func mappedDevicesVM(tg *acctest.Target) string {
	return vmConfig(tg, guestDevVM(`    usb0 = { mapping = "stick", usb3 = true }`, `    virtiofs0 = { mapping = "share" }`))
}

// W49: a token holding the default features' privileges and
// usb_dir_mapping's passes USB devices and directories through mappings;
// without usb_dir_mapping PVE refuses, and the error names the privilege
// and the mapping's path.
func TestAccVM_mappedDevicesPrivileges(t *testing.T) {
	t.Parallel()
	privileges := func(features ...string) []string {
		res, err := access.Compute(access.PVE9, append(access.DefaultFeatureNames(), features...))
		if err != nil {
			t.Fatal(err)
		}
		return res.Privileges
	}
	tg := acctest.NewRestricted(t, "9.1", privileges())
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      mappedDevicesVM(tg),
			ExpectError: regexp.MustCompile(`Mapping\.Use[\s\S]*/mapping/(usb|dir)/`),
		}},
	})
	tg = acctest.NewRestricted(t, "9.1", privileges("usb_dir_mapping"))
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{{
			Config:            mappedDevicesVM(tg),
			ConfigStateChecks: []statecheck.StateCheck{vm.record(), vm.configHas(map[string]string{"usb0": "mapping=stick,usb3=1", "virtiofs0": "share"})},
		}},
	})
}

// PVE 8.4 has virtio-fs and USB mappings too: both are written, changed in
// place and imported as on 9.x.
func TestAccVM_pve84MappedDevices(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	vm := newVMRef(tg)
	changed := vmConfig(tg, guestDevVM(`    usb0 = { mapping = "stick" }`, `    virtiofs0 = { mapping = "share", cache = "metadata", direct_io = true }`))
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config:            mappedDevicesVM(tg),
				ConfigStateChecks: []statecheck.StateCheck{vm.record(), vm.configHas(map[string]string{"usb0": "mapping=stick,usb3=1", "virtiofs0": "share"})},
			},
			{
				Config:            changed,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"usb0": "mapping=stick", "virtiofs0": "share,cache=metadata,direct-io=1"})},
			},
			{
				Config:            changed,
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

// A running VM starts with its USB and directory mappings present on the
// node, and takes changes to both in place; with a mapping missing PVE
// configures the VM and fails its start, which the apply reports.
func TestAccVM_mappedDevicesRunning(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if tg.Sim == nil {
		t.Skip("seeds mappings in the simulator")
	}
	running := func(usb, fs string) string {
		return vmConfig(tg, strings.Replace(guestDevVM(usb, fs), "started = false", "started = true", 1))
	}
	vm := newVMRef(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config:      running(`    usb0 = { mapping = "stick" }`, `    virtiofs0 = { mapping = "share" }`),
				ExpectError: regexp.MustCompile(`USB device mapping not found for 'stick'`),
			},
			{
				PreConfig: func() {
					if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
						c.Mappings.Put(pvesim.MappingUSB, &pvesim.Mapping{ID: "stick", Map: []string{"node=pve1,id=1234:5678"}})
						c.Mappings.Put(pvesim.MappingDir, &pvesim.Mapping{ID: "share", Map: []string{"node=pve1,path=/srv/share"}})
						return nil
					}); err != nil {
						t.Fatal(err)
					}
				},
				Config:            running(`    usb0 = { mapping = "stick" }`, `    virtiofs0 = { mapping = "share" }`),
				ConfigStateChecks: []statecheck.StateCheck{vm.record(), vm.configHas(map[string]string{"usb0": "mapping=stick", "virtiofs0": "share"})},
			},
			{
				Config:            running(`    usb0 = { mapping = "stick", usb3 = true }`, `    virtiofs0 = { mapping = "share", cache = "never" }`),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(map[string]string{"usb0": "mapping=stick,usb3=1", "virtiofs0": "share,cache=never"})},
			},
		},
	})
}

// The mappings and the VM that uses them in one configuration: the VM
// starts once pve_usb_mapping and pve_dir_mapping exist on its node.
func TestAccVM_devicesWithMappingResources(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if acctest.IsLive() {
		t.Skip("needs a USB device and a directory on the node")
	}
	vm := newVMRef(tg)
	mappings := `
resource "pve_usb_mapping" "stick" {
  id  = "tfacc-stick"
  map = { pve1 = { id = "1234:5678" } }
}

resource "pve_dir_mapping" "share" {
  id  = "tfacc-share"
  map = { pve1 = { path = "/srv/share" } }
}
`
	body := strings.Replace(guestDevVM(`    usb0 = { mapping = pve_usb_mapping.stick.id }`, `    virtiofs0 = { mapping = pve_dir_mapping.share.id, expose_xattr = true }`),
		"started = false", "started = true", 1)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, body) + mappings,
			ConfigStateChecks: []statecheck.StateCheck{
				vm.record(),
				vm.configHas(map[string]string{"usb0": "mapping=tfacc-stick", "virtiofs0": "tfacc-share,expose-xattr=1"}),
			},
		}},
	})
}
