package lxc_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// TestAccContainer_importFeaturesAllOffW33: a container without features,
// imported, is described alike by "features = { keyctl = false }", by any
// other all-off object, and by no features at all: each plans nothing.
func TestAccContainer_importFeaturesAllOffW33(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	vmid := createOutside(t, tg, "pve1", url.Values{
		"ostemplate": {ctTemplate},
		"hostname":   {"tfacc-features"},
		"rootfs":     {"local-lvm:4"},
	})
	body := func(features string) string {
		return ctConfig(tg, `
  node      = "pve1"
  hostname  = "tfacc-features"
  root_disk = { storage = "local-lvm", size = 4 }
`+features)
	}
	empty := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config:             body(`  features = { keyctl = false }`),
				ResourceName:       ctAddr,
				ImportState:        true,
				ImportStateId:      strconv.Itoa(vmid),
				ImportStatePersist: true,
			},
			{
				Config:           body(`  features = { keyctl = false }`),
				ConfigPlanChecks: empty,
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("features").AtMapKey("keyctl"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("features").AtMapKey("nesting"), knownvalue.Bool(false)),
				},
			},
			{Config: body(`  features = { nesting = false, fuse = false, mknod = false }`), ConfigPlanChecks: empty},
			{Config: body(""), ConfigPlanChecks: empty},
			{
				// A declared flag is written.
				Config:            body(`  features = { nesting = true }`),
				ConfigPlanChecks:  expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{ct.configHas(map[string]string{"features": "nesting=1"})},
			},
		},
	})
}
