package firewall_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

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
