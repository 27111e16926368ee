package sdn_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func example(t *testing.T, parts ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "..", "examples"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The documented examples apply as written (each with its applier, which
// makes the next plan empty) and import by the ids their import.sh uses;
// the data source examples read what the applier example made.
func TestAccSDN_examples(t *testing.T) {
	t.Parallel()
	for typ, imports := range map[string]map[string]string{
		"pve_sdn_zone":    {"pve_sdn_zone.lab": "lab"},
		"pve_sdn_vnet":    {"pve_sdn_vnet.staff": "staff"},
		"pve_sdn_subnet":  {"pve_sdn_subnet.web": "web/10.10.0.0/24"},
		"pve_sdn_applier": {"pve_sdn_applier.this": "sdn"},
	} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			tg := acctest.NewOnPVE(t, "9.1")
			config := tg.Config(example(t, "resources", typ, "resource.tf"))
			steps := []resource.TestStep{{Config: config}}
			if typ == "pve_sdn_applier" {
				// Data sources read at plan time: a second step sees the
				// applied objects.
				steps = append(steps, resource.TestStep{Config: config + example(t, "data-sources", "pve_sdn_zones", "data-source.tf") +
					example(t, "data-sources", "pve_sdn_vnets", "data-source.tf")})
			}
			for addr, id := range imports {
				step := resource.TestStep{Config: config, ResourceName: addr, ImportState: true, ImportStateId: id,
					ImportStateVerify: true}
				if typ == "pve_sdn_applier" {
					// objects (and the sdn_ids read from them) exist only in
					// the configuration: an import cannot know them.
					step.ImportStateVerifyIgnore = []string{"objects", "sdn_ids"}
				}
				steps = append(steps, step)
			}
			tg.Run(t, resource.TestCase{Steps: steps})
		})
	}
}
