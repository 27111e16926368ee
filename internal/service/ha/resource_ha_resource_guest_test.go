package ha_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A VM created by the same apply: the HA resource's type and sid are
// unknown at plan time and found at create; destroying both removes the
// HA resource before the VM.
func TestAccHAResource_guestInSameApply(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	config := tg.Config(`
resource "pve_vm" "test" {
  node   = "pve1"
  name   = "tfacc-ha"
  memory = { size = 512 }
}

resource "pve_ha_resource" "test" {
  vmid = pve_vm.test.vmid
}
`)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectUnknownValue(haResourceAddr, tfjsonpath.New("sid")),
						plancheck.ExpectUnknownValue(haResourceAddr, tfjsonpath.New("type")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(haResourceAddr, tfjsonpath.New("type"), knownvalue.StringExact("vm")),
					statecheck.CompareValuePairs(haResourceAddr, tfjsonpath.New("vmid"), "pve_vm.test", tfjsonpath.New("vmid"), compare.ValuesSame()),
				},
			},
		},
	})
}
