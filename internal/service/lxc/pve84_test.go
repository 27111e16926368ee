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

// The PVE 8.4 smoke tests: the main container paths against the
// simulator serving PVE 8.4; the rest of the suite runs against 9.x.

func TestAccContainer_pve84CreateAndImport(t *testing.T) {
	t.Parallel()
	// It also pins the unprivileged default: the test expects an
	// unprivileged container from a configuration without the attribute.
	testContainerCreateAndImport(t, acctest.NewOnPVE(t, "8.4"))
}

func TestAccContainer_pve84InPlaceUpdates(t *testing.T) {
	t.Parallel()
	testContainerInPlaceUpdates(t, acctest.NewOnPVE(t, "8.4"))
}

// PVE 8 creates a privileged container when unprivileged is not sent (the
// unprivileged default came with pve-container 6.0.6, PVE 9.0), and an API
// token may not set feature flags of a privileged container. The provider
// sends unprivileged = true when it is left out, so the container is
// unprivileged on 8.4 too and nesting under a token works.
func TestAccContainer_pve84UnprivilegedByDefault(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	ct := newCTRef(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, ctBase+"  features = { nesting = true }\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(ctAddr, tfjsonpath.New("unprivileged"), knownvalue.Bool(true)),
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ct.record(),
				ct.configHas(map[string]string{
					"unprivileged": "1", "features": "nesting=1",
				}),
				statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("unprivileged"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("features").AtMapKey("nesting"), knownvalue.Bool(true)),
			},
		}},
	})
}

// A container PVE 8 created privileged because unprivileged was not sent
// (by this provider before it sent the attribute, or by anyone else) holds
// unprivileged = false in state. A configuration that still leaves the
// attribute out keeps it: no replacement, no change.
func TestAccContainer_pve84PrivilegedKeptWithoutAttribute(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	ct := newCTRef(tg)
	hostname := acctest.Name("tfacc-priv")
	// Created without unprivileged, as PVE 8 takes it: privileged.
	vmid := createOutsideAsGiven(t, tg, "pve1", url.Values{
		"ostemplate": {ctTemplate},
		"hostname":   {hostname},
		"rootfs":     {"local-lvm:4"},
	})
	body := `
  node     = "pve1"
  hostname = "` + hostname + `"
  root_disk = { storage = "local-lvm", size = 4 }
`
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config:             ctConfig(tg, body),
				ResourceName:       ctAddr,
				ImportState:        true,
				ImportStateId:      strconv.Itoa(vmid),
				ImportStatePersist: true,
			},
			{
				Config: ctConfig(tg, body),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"unprivileged": ""}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("unprivileged"), knownvalue.Bool(false)),
				},
			},
			{
				// Other changes are updates in place; the container stays
				// privileged.
				Config:           ctConfig(tg, body+"  memory = { size = 1024 }\n"),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs"),
					ct.configHas(map[string]string{"unprivileged": "", "memory": "1024"}),
				},
			},
		},
	})
}
