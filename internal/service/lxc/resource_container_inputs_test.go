package lxc_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// TestAccContainer_sshKeysFromFile: ssh_public_keys as file() returns an
// authorized_keys file (a final newline, several keys in one element) is
// accepted as pve_vm accepts it, every key reaches the container, and the
// next plan is empty.
func TestAccContainer_sshKeysFromFile(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	keys := strconv.Quote(testKey1+"\n") + ", " + strconv.Quote(testKey2+"\r\n\n"+testKey1+"\n")
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, smallCT("  ssh_public_keys = ["+keys+"]", "")),
			ConfigStateChecks: []statecheck.StateCheck{
				ct.record(),
				acctest.CheckState(func(*tfjson.State) error {
					if tg.Sim == nil {
						return nil
					}
					g, _ := tg.Sim.Guest(ct.VMID)
					for _, key := range []string{testKey1, testKey2} {
						if !strings.Contains(g.AuthorizedKeys, key) {
							return fmt.Errorf("key %q missing from the container's keys %q", key, g.AuthorizedKeys)
						}
					}
					return nil
				}),
			},
		}},
	})
}

// TestAccContainer_missingPoolSaysSo: a pool that does not exist fails the
// create with PVE's permission error; the error says the pool is missing.
func TestAccContainer_missingPoolSaysSo(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{Steps: []resource.TestStep{{
		Config:      ctConfig(tg, smallCT(`  pool = "nope"`, "")),
		ExpectError: errorLike(`Pool "nope" does not exist in PVE. Create it (pve_pool) or correct the pool name`),
	}}})
}
