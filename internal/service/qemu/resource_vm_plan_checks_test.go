package qemu_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// ciSlotVM is a VM with PVE's cloud-init drive in slot.
func ciSlotVM(tg *acctest.Target, extra, slot string) string {
	return vmConfig(tg, `
  node = "pve1"
  name = "tfacc-cislot"
  disks = { scsi0 = { storage = "local-lvm", size = 4 } }
`+extra+`
  cloud_init = {
    storage = "local-lvm"
    user    = "debian"
    slot    = "`+slot+`"
  }
`)
}

// Moving the cloud-init drive of a running VM: PVE keeps the old drive
// until the VM stops and refuses a second one meanwhile.
func TestAccVM_cloudInitSlotMoveRunning(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: ciSlotVM(tg, "", "ide2"), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				// Refused at plan, before PVE queues the old drive's removal.
				Config:      ciSlotVM(tg, "", "ide0"),
				ExpectError: regexp.MustCompile(`(?s)Cloud-Init Drive Cannot Move While The VM Runs.*ide2.*ide0.*VM\s+\d+\s+is\s+running.*half\s+done.*reboot_after_update\s+=\s+true.*started\s+=\s+false`),
			},
			{
				// Nothing was left pending: the VM is as it was.
				Config: ciSlotVM(tg, "", "ide2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.noPending()},
			},
			{
				// With a reboot allowed the move applies: stopped, moved,
				// started again, and the next plan is empty.
				Config: ciSlotVM(tg, "  reboot_after_update = true\n", "ide0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.cloudInitDriveAt("ide0", "local-lvm"),
					vm.configHas(map[string]string{"ide2": ""}),
					vm.noPending(),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				},
			},
		},
	})
}

// noPending checks that PVE holds no change of the VM back for a restart.
func (v *vmRef) noPending() statecheck.StateCheck {
	return v.Check(func() error {
		entries, err := v.tg.Client.GuestPending(context.Background(), v.Node, pveapi.GuestTypeQemu, v.VMID)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.HasPending || e.DeletePending() {
				return fmt.Errorf("VM %d has a pending change of %s", v.VMID, e.Key)
			}
		}
		return nil
	})
}

// A disk grown outside Terraform: the plan names both sizes and both
// fixes, and each fix gives an empty plan.
func TestAccVM_grownOutsideNamesFixesW22(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	disks := func(size string) string {
		return vmConfig(tg, disksBody("", `    scsi0 = { storage = "local-lvm", size = `+size+` }`))
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: disks("4"), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				PreConfig: func() {
					upid, err := tg.Client.ResizeGuestDisk(context.Background(), vm.Node, pveapi.GuestTypeQemu, vm.VMID, "scsi0", "6G")
					tg.Outside(t, "grow scsi0", upid, err)
				},
				Config:      disks("4"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Disk Cannot Shrink.*Disk\s+scsi0\s+is\s+6\s+GiB\s+in\s+PVE;\s+the\s+configuration\s+asks\s+for\s+4\s+GiB.*set\s+size\s+=\s+6\s+in.*ignore_changes\s+=\s+\[disks\["scsi0"\]\.size\]`),
			},
			{
				// ignore_changes leaves the size to PVE.
				Config: vmConfig(tg, disksBody("", `    scsi0 = { storage = "local-lvm", size = 4 }`)+
					"  lifecycle {\n    ignore_changes = [disks[\"scsi0\"].size]\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: disks("6"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.keeps("scsi0")},
			},
		},
	})
}

// A VM turned into a template outside Terraform: the plan says so and
// names the way over to pve_vm_template, which then takes it up.
func TestAccVM_turnedTemplateOutsideW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	const vmid = 4170
	body := fmt.Sprintf("\n  vmid = %d\n", vmid) + smallVM("pve1", "")

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: vmConfig(tg, body+"  started = false\n"), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				PreConfig: func() {
					upid, err := tg.Client.TemplateQemu(context.Background(), vm.Node, vm.VMID, "")
					tg.Outside(t, "convert to a template", upid, err)
				},
				Config:   vmConfig(tg, body+"  started = false\n"),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)VM Was Turned Into A Template.*VM\s+\d+\s+on\s+node\s+pve1\s+is\s+a\s+template.*pve_vm_template.*terraform\s+state\s+rm.*` +
					`terraform\s+import\s+<its\s+address>\s+pve1/\d+`),
			},
			{
				// The way the error names: out of pve_vm's state, into
				// pve_vm_template's, nothing changed in PVE.
				Config: tg.Config(fmt.Sprintf(`
removed {
  from = pve_vm.test
  lifecycle { destroy = false }
}
import {
  to = pve_vm_template.test
  id = "pve1/%d"
}
resource "pve_vm_template" "test" {%s}
`, vmid, body)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmTemplateAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

// A VM with a CD-ROM on node-local storage or the host's drive: PVE
// refuses to migrate it, so a new node is refused at plan time with the
// device and the fix; once the CD-ROM is empty the move applies.
func TestAccVM_migrationBlockedByLocalCDROM(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	withCDROM := func(node, file string) string {
		return vmConfig(tg, smallVM(node, `  started = false
  cdroms  = { ide2 = { file = "`+file+`" } }`))
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: withCDROM("pve1", "local:iso/debian-13-netinst.iso"), ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				Config:   withCDROM("pve2", "local:iso/debian-13-netinst.iso"),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)VM With Local ISO Cannot Migrate.*` +
					`CD-ROM\s+in\s+ide2\s+holds\s+local:iso/debian-13-netinst.iso.*file\s+=\s+"none".*keep\s+node\s+=\s+"pve1",\s+apply\s+that\s+change\s+first`),
			},
			{
				// Ejecting it in the same apply does not help: the move
				// runs first.
				Config:      withCDROM("pve2", "none"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`VM With Local ISO Cannot Migrate`),
			},
			{Config: withCDROM("pve1", "cdrom")},
			{
				Config:      withCDROM("pve2", "cdrom"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)VM With Host CD-ROM Drive Cannot Migrate.*ide2\s+is\s+the\s+host's\s+CD-ROM\s+drive`),
			},
			{Config: withCDROM("pve1", "none")},
			{
				Config: withCDROM("pve2", "none"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.record(),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
				},
			},
		},
	})
}

// The re-attach the warning of a disk removed outside Terraform offers
// brings the disk back with its volume: the next plan is empty.
func TestAccVM_diskRemovedOutsideReattaches(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	config := vmConfig(tg, disksBody("", `
    scsi0 = { storage = "local-lvm", size = 2 }
    scsi1 = { storage = "local-lvm", size = 1 }`))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: []statecheck.StateCheck{vm.record()}},
			{
				PreConfig: func() {
					ctx := context.Background()
					if err := tg.Client.UpdateGuestConfig(ctx, vm.Node, pveapi.GuestTypeQemu, vm.VMID, url.Values{"delete": {"scsi1"}}); err != nil {
						t.Fatalf("detach outside Terraform: %v", err)
					}
					if err := tg.Client.UpdateGuestConfig(ctx, vm.Node, pveapi.GuestTypeQemu, vm.VMID, url.Values{"scsi1": {vm.volumes["scsi1"]}}); err != nil {
						t.Fatalf("re-attach outside Terraform: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					vm.keeps("scsi0", "scsi1"),
					vm.configHas(map[string]string{"unused0": ""}),
				},
			},
		},
	})
}
