package lxc_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// Switching unprivileged replaces the container: under a token the
// root-only check sees a new container, as PVE does, not a change of its
// feature flags. A privileged container root made with nesting and fuse
// becomes an unprivileged one with nesting alone, which PVE lets a token
// create; a privileged one with any flag is refused, saying it is a new
// container.
func TestAccContainer_replacementRootOnlyCheckedAsCreate(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ct := newCTRef(tg)
	vmid := createOutside(t, tg, "pve1", url.Values{
		"ostemplate": {ctTemplate}, "hostname": {"tfacc-small"}, "rootfs": {"local-lvm:4"}, "unprivileged": {"0"},
	})
	// root@pam set the flags, which no token may write (W33).
	if err := sim.Update(func(c *pvesim.Cluster) error {
		c.Guests[vmid].Config["features"] = "fuse=1,nesting=1"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config:             ctConfig(tg, smallCT("  unprivileged = false\n  features = { nesting = true, fuse = true }", "")),
				ResourceName:       ctAddr,
				ImportState:        true,
				ImportStateId:      strconv.Itoa(vmid),
				ImportStatePersist: true,
			},
			{
				Config: ctConfig(tg, smallCT("  unprivileged = true\n  features = { nesting = true }", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=1", "unprivileged": "1"}),
				},
			},
			{
				Config:      ctConfig(tg, smallCT("  unprivileged = false\n  features = { nesting = true }", "")),
				PlanOnly:    true,
				ExpectError: errorLike("Option Needs root@pam", "create a container with feature flags other than nesting, or a privileged container with any flag", "remove features.nesting"),
			},
		},
	})
}
