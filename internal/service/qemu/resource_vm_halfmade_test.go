package qemu_test

import (
	"fmt"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// W13: pveproxy answers 596 when it loses the node's answer after
// forwarding the create, which PVE ran: the provider looks at the VMID
// before anything else and carries on with the VM it finds there, so a VM
// with neither a name nor a vmid is made exactly once.
func TestAccVM_proxyLostCreateAnswerMakesOneVMW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	vm := newVMRef(tg)
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: "/nodes/{node}/qemu", Action: pvesim.FaultRespondAfter,
		Status: 596, Message: "Connection timed out", Count: 1}); err != nil {
		t.Fatal(err)
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{{
			Config: vmConfig(tg, `
  node    = "pve1"
  started = false
  memory  = { size = 512 }
  disks   = { scsi0 = { storage = "local-lvm", size = 1 } }
`),
			ConfigStateChecks: []statecheck.StateCheck{
				vm.record(),
				acctest.CheckState(func(*tfjson.State) error {
					n := 0
					sim.View(func(c *pvesim.Cluster) { n = len(c.Guests) })
					if n != 1 {
						return fmt.Errorf("%d guests after the create, want 1", n)
					}
					return nil
				}),
			},
		}},
	})
}
