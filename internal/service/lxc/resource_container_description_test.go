package lxc_test

import (
	"fmt"
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

// describedBody is a small container with the given description line
// (an HCL attribute, or nothing).
func describedBody(description string) string {
	return `
  node        = "pve1"
  hostname    = "tfacc-notes"
  os_template = "` + ctTemplate + `"
  root_disk   = { storage = "local-lvm", size = 4 }
` + description
}

// W20: PVE reads a container's description back with a newline after its
// last line ("one line" as "one line\n"). Create and update apply without
// an inconsistent result and plan nothing afterwards, whether the
// configuration ends the text with a newline or not.
func TestAccContainer_descriptionW20(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	description := func(v string) string { return fmt.Sprintf("  description = %q\n", v) }
	heredoc := "  description = <<-EOT\n    first line\n\n    third line\n  EOT\n"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				// PVE keeps no description of whitespace only: refused
				// before anything is sent.
				Config:      ctConfig(tg, describedBody(description("\n"))),
				ExpectError: errorLike("Description PVE Cannot Store"),
			},
			{
				Config: ctConfig(tg, describedBody(description("one line"))),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"description": "one line\n"}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("description"), knownvalue.StringExact("one line")),
				},
			},
			{
				Config:           ctConfig(tg, describedBody(description("first\nsecond"))),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.configHas(map[string]string{"description": "first\nsecond\n"}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("description"), knownvalue.StringExact("first\nsecond")),
				},
			},
			{
				// A heredoc ends in a newline, which is exactly what PVE
				// stores: kept as written.
				Config: ctConfig(tg, describedBody(heredoc)),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.configHas(map[string]string{"description": "first line\n\nthird line\n"}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("description"), knownvalue.StringExact("first line\n\nthird line\n")),
				},
			},
			{
				Config:           ctConfig(tg, describedBody(heredoc)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// Dropping the description deletes it.
				Config:           ctConfig(tg, describedBody("")),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.configHas(map[string]string{"description": ""}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("description"), knownvalue.Null()),
				},
			},
		},
	})
}

// W20: a container made outside Terraform with a description imports
// with it, and the configuration that describes it plans nothing.
func TestAccContainer_descriptionImportW20(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	vmid := createOutside(t, tg, "pve1", url.Values{
		"ostemplate":  {ctTemplate},
		"hostname":    {"tfacc-notes"},
		"rootfs":      {"local-lvm:4"},
		"description": {"made by hand\nsecond line"},
	})
	// No os_template: PVE does not report it (W35).
	body := `
  node        = "pve1"
  hostname    = "tfacc-notes"
  root_disk   = { storage = "local-lvm", size = 4 }
  description = "made by hand\nsecond line"
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
				Config:           ctConfig(tg, body),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("description"), knownvalue.StringExact("made by hand\nsecond line")),
				},
			},
		},
	})
}

// W20: a container template keeps its description through creation and
// marking.
func TestAccContainerTemplate_descriptionW20(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: tg.Config(`
resource "pve_container_template" "test" {
  node        = "pve1"
  hostname    = "tfacc-ct-tpl-notes"
  os_template = "` + ctTemplate + `"
  root_disk   = { storage = "local-lvm", size = 4 }
  description = "golden image"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctTemplateAddr, tfjsonpath.New("description"), knownvalue.StringExact("golden image")),
				},
			},
		},
	})
}
