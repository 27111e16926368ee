package qemu_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// With Terraform 1.12 or later a VM's identity, its VMID and node, is in
// the state, and an import block with that identity imports the VM with
// an empty plan.
func TestAccVM_importByIdentity(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	config := tg.Config(fmt.Sprintf(`
resource "pve_vm" "test" {
  node    = "pve1"
  name    = %q
  started = false
  disks   = { scsi0 = { storage = "local-lvm", size = 1 } }
}
`, acctest.Name("tfacc-ident")))
	tg.Run(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			acctest.NeedsTerraform("1.12.0", "Importing by resource identity"),
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("pve_vm.test", map[string]knownvalue.Check{
						"vmid": knownvalue.NotNull(), "node": knownvalue.StringExact("pve1"),
					}),
					statecheck.ExpectIdentityValueMatchesState("pve_vm.test", tfjsonpath.New("vmid")),
				},
			},
			{
				Config:          config,
				ResourceName:    "pve_vm.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}
