package firewall_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// guestAddr is the VM whose firewall the guest-scope tests use.
const guestAddr = "pve_vm.fw"

const guestVMConfig = `
resource "pve_vm" "fw" {
  node    = "pve1"
  name    = "tfacc-fw"
  started = false
}
`

// missingVMID is a VMID no test creates a guest with.
const missingVMID = 999999990

// guestFW is the firewall of the guest a test follows.
func guestFW(g *acctest.Guest) pveapi.FirewallScope {
	return pveapi.FirewallScope{Node: g.Node, GuestType: pveapi.GuestTypeQemu, VMID: g.VMID}
}

// destroyGuestOutside destroys the guest as an operator would; PVE
// deletes the guest's firewall with it.
func destroyGuestOutside(t *testing.T, tg *acctest.Target, g *acctest.Guest) {
	t.Helper()
	upid, err := tg.Client.DeleteGuest(context.Background(), g.Node, pveapi.GuestTypeQemu, g.VMID, true, true)
	tg.Outside(t, "destroy the guest", upid, err)
}

// wrapped matches text in Terraform's output, which wraps long diagnostic
// lines between words.
func wrapped(text string) *regexp.Regexp {
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(strings.Join(words, `\s+`))
}

// missingGuestStep applies config, whose object names missingVMID, and
// expects the refusal that no guest has the VMID.
func missingGuestStep(config string) resource.TestStep {
	return resource.TestStep{
		Config:      config,
		ExpectError: regexp.MustCompile(fmt.Sprintf(`No VM or container has VMID %d`, missingVMID)),
	}
}

// guestImportStep imports the object at addr by its id in the guest's
// firewall, guest/VMID/NAME.
func guestImportStep(addr string, g *acctest.Guest, name string) resource.TestStep {
	return resource.TestStep{
		ResourceName:      addr,
		ImportState:       true,
		ImportStateIdFunc: func(*terraform.State) (string, error) { return fmt.Sprintf("guest/%d/%s", g.VMID, name), nil },
		ImportStateVerify: true,
	}
}

// guestGoneStep destroys the guest outside Terraform (PVE deletes its
// firewall with it) and expects the refresh to drop the object at addr
// from state.
func guestGoneStep(t *testing.T, tg *acctest.Target, g *acctest.Guest, addr string) resource.TestStep {
	return resource.TestStep{
		PreConfig:          func() { destroyGuestOutside(t, tg, g) },
		RefreshState:       true,
		ExpectNonEmptyPlan: true,
		Check: func(s *terraform.State) error {
			if _, ok := s.RootModule().Resources[addr]; ok {
				return fmt.Errorf("%s is still in state after its guest was destroyed", addr)
			}
			return nil
		},
	}
}

// importBlockNoopStep adopts the object at addr with an import block for
// id under config, and expects the import to plan no change.
func importBlockNoopStep(config, addr, id string) resource.TestStep {
	return resource.TestStep{
		Config:          config,
		ResourceName:    addr,
		ImportState:     true,
		ImportStateKind: resource.ImportBlockWithID,
		ImportStateId:   id,
		ImportPlanChecks: resource.ImportPlanChecks{
			PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
		},
	}
}
