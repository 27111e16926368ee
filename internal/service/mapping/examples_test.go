package mapping_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// The documented examples apply as written, all three in one
// configuration, and import by the id import.sh uses.
func TestAccMapping_examples(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	var config string
	for _, typ := range []string{"pve_pci_mapping", "pve_usb_mapping", "pve_dir_mapping"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "resources", typ, "resource.tf"))
		if err != nil {
			t.Fatal(err)
		}
		config += string(data)
	}
	config = tg.Config(config)
	steps := []resource.TestStep{{Config: config}}
	for addr, id := range map[string]string{
		"pve_pci_mapping.gpu": "gpu", "pve_usb_mapping.dongle": "dongle", "pve_dir_mapping.datasets": "datasets",
	} {
		steps = append(steps, resource.TestStep{Config: config, ResourceName: addr, ImportState: true, ImportStateId: id,
			ImportStateVerify: true})
	}
	tg.Run(t, resource.TestCase{Steps: steps})
}
