package lxc_test

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

// undeclaredCT declares of cpu only cores, one NIC and a root disk.
func undeclaredCT(tg *acctest.Target, hostname string) string {
	return ctConfig(tg, `
  node        = "pve1"
  hostname    = "`+hostname+`"
  os_template = "`+ctTemplate+`"
  cpu         = { cores = 2 }
  root_disk   = { storage = "local-lvm", size = 4 }
  network     = { net0 = { name = "eth0", bridge = "vmbr0" } }
`)
}

// setOutside changes the container's config as the PVE UI would.
func (c *ctRef) setOutside(params url.Values) statecheck.StateCheck {
	return c.Check(func() error {
		return c.tg.Client.UpdateGuestConfig(context.Background(), c.Node, pveapi.GuestTypeLXC, c.VMID, params)
	})
}

// TestAccContainer_undeclaredSettingsLeftAlone: settings the configuration
// does not declare, set in PVE by someone else (top-level options, a value
// inside a declared object, whole undeclared objects, a device), plan no
// change and survive the apply of another change untouched.
func TestAccContainer_undeclaredSettingsLeftAlone(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	outside := map[string]string{
		"protection":   "1",
		"description":  "set in the UI\n", // W20: as PVE reads it back
		"onboot":       "1",
		"tags":         "ui",
		"cpuunits":     "200",
		"nameserver":   "10.0.0.53",
		"searchdomain": "lan",
		"cmode":        "console",
		"features":     "nesting=1",
		"net1":         "name=eth1,bridge=vmbr0,hwaddr=BC:24:11:00:00:02,type=veth",
	}
	params := url.Values{}
	for k, v := range outside {
		params.Set(k, v)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: undeclaredCT(tg, "tfacc-undeclared"), ConfigStateChecks: []statecheck.StateCheck{ct.setOutside(params)}},
			{Config: undeclaredCT(tg, "tfacc-undeclared"), PlanOnly: true},
			{
				Config: undeclaredCT(tg, "tfacc-undeclared-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{ct.configHas(outside)},
			},
			// Protection set outside blocks the test's destroy: lift it.
			{Config: undeclaredCT(tg, "tfacc-undeclared-2"), ConfigStateChecks: []statecheck.StateCheck{ct.setOutside(url.Values{"delete": {"protection"}})}},
		},
	})
}
