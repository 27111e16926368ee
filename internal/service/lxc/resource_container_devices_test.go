package lxc_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// W49: under an API token (even root@pam's) a container device is refused
// at plan time, naming the attribute and saying containers have no
// resource mappings.
func TestContainerDevicesRefusedUnderToken(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	diags := p.PlanCreate(t, "pve_container", map[string]any{
		"node": "pve1", "hostname": "dev", "os_template": ctTemplate,
		"root_disk": map[string]any{"storage": "local-lvm", "size": "4"},
		"devices":   map[string]map[string]any{"dev0": {"path": "/dev/ttyUSB0", "mode": "0660"}},
	})
	acctest.WantError(t, diags, "", regexp.MustCompile(`Option Needs root@pam: devices\.dev0 needs a password login as root@pam[\s\S]*no resource mapping`))
}

func devicesCT(devices string) string {
	return `
  node        = "pve1"
  hostname    = "tfacc-devices"
  os_template = "` + ctTemplate + `"
  started     = false
  root_disk   = { storage = "local-lvm", size = 4 }
  devices     = {
` + devices + `
  }
`
}

// As root@pam with a password, container devices are added, changed in
// place and removed (the slot's key deleted); a device added outside
// Terraform is left alone; an import reads every device.
func TestAccContainer_devices(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	sim := needsSim(t, tg)
	ct := newCTRef(tg)
	final := devicesCT(`    dev0 = { path = "/dev/ttyUSB0", mode = "0600", uid = 100, gid = 20, deny_write = true }`)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, devicesCT(`    dev0 = { path = "/dev/ttyUSB0", mode = "0660" }
    dev1 = { path = "/dev/dri/renderD128", gid = 44 }`)),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"dev0": "/dev/ttyUSB0,mode=0660", "dev1": "/dev/dri/renderD128,gid=44"}),
				},
			},
			{
				// dev0 changed in place, dev1 removed.
				Config:           ctConfig(tg, final),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.configHas(map[string]string{"dev0": "/dev/ttyUSB0,deny-write=1,gid=20,mode=0600,uid=100", "dev1": ""}),
				},
			},
			{
				// Added behind Terraform's back: the plan stays empty and the
				// next apply leaves it alone.
				Config: ctConfig(tg, final),
				ConfigStateChecks: []statecheck.StateCheck{ct.Check(func() error {
					// root@pam's doing: no token may write a device.
					return sim.Update(func(c *pvesim.Cluster) error {
						c.Guests[ct.VMID].Config["dev5"] = "/dev/kvm"
						return nil
					})
				})},
			},
			{
				Config:            ctConfig(tg, final),
				ConfigStateChecks: []statecheck.StateCheck{ct.configHas(map[string]string{"dev5": "/dev/kvm"})},
			},
			{
				ResourceName:            ctAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"os_template", "features", "devices.%", "devices.dev5"},
			},
		},
	})
}
