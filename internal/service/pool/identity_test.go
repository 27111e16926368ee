package pool_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// With Terraform 1.12 or later the pool's identity is in the state, and an
// `import { to = pve_pool.test  identity = { poolid = "..." } }` block
// imports the pool with an empty plan.
func TestAccPool_importByIdentity(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	id := acctest.Name("tfacc-ident")
	config := tg.Config(fmt.Sprintf(`
resource "pve_pool" "test" {
  poolid  = %q
  comment = "imported by identity"
}
`, id))
	tg.Run(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			acctest.NeedsTerraform("1.12.0", "Importing by resource identity"),
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("pve_pool.test", map[string]knownvalue.Check{"poolid": knownvalue.StringExact(id)}),
				},
			},
			{
				Config:          config,
				ResourceName:    "pve_pool.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}
