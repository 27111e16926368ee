package qemu_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// undeclaredVM declares name, one disk, one NIC and of cpu only cores.
func undeclaredVM(tg *acctest.Target, name string) string {
	return vmConfig(tg, `
  node    = "pve1"
  name    = "`+name+`"
  cpu     = { cores = 2 }
  disks   = { scsi0 = { storage = "local-lvm", size = 4 } }
  network = { net0 = { bridge = "vmbr0" } }
`)
}

// setOutside changes the VM's config as the PVE UI would.
func (v *vmRef) setOutside(params url.Values) statecheck.StateCheck {
	return v.Check(func() error {
		return v.tg.Client.UpdateGuestConfig(context.Background(), v.Node, pveapi.GuestTypeQemu, v.VMID, params)
	})
}

// TestAccVM_undeclaredSettingsLeftAlone: settings the configuration does
// not declare, set in PVE by someone else (top-level options, a value
// inside a declared object, a whole undeclared object, a device), plan no
// change and survive the apply of another change untouched.
func TestAccVM_undeclaredSettingsLeftAlone(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	outside := map[string]string{
		"protection":  "1",
		"description": "set in the UI",
		"onboot":      "1",
		"tags":        "ui",
		"ostype":      "l26",
		"cpuunits":    "200",
		"memory":      "1024",
		"balloon":     "512",
		"agent":       "1",
		"net1":        "virtio=BC:24:11:00:00:01,bridge=vmbr0",
		"ide3":        "none,media=cdrom",
	}
	params := url.Values{}
	for k, v := range outside {
		params.Set(k, v)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: undeclaredVM(tg, "tfacc-undeclared"), ConfigStateChecks: []statecheck.StateCheck{vm.setOutside(params)}},
			{Config: undeclaredVM(tg, "tfacc-undeclared"), PlanOnly: true},
			{
				Config: undeclaredVM(tg, "tfacc-undeclared-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{vm.configHas(outside)},
			},
			// Protection set outside blocks the test's destroy: lift it.
			{Config: undeclaredVM(tg, "tfacc-undeclared-2"), ConfigStateChecks: []statecheck.StateCheck{vm.setOutside(url.Values{"delete": {"protection"}})}},
		},
	})
}
