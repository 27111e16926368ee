package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const (
	testKey1 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl one@host"
	testKey2 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHfFjPjCcU6v2pMHCGqRGqoUSnm5jZ0oUXjA1Xaw0mY9 two@host"
	// testPassword must never reach state.
	testPassword = "correct-horse-battery"
)

func TestAccContainer_createOnlySecretsKeysAndTTYsW39(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	secrets := func(version int, keys ...string) string {
		quoted := make([]string, len(keys))
		for i, k := range keys {
			quoted[i] = strconv.Quote(k)
		}
		return smallCT(fmt.Sprintf("  password_wo = %q\n  password_wo_version = %d\n  ssh_public_keys = [%s]\n%s", testPassword, version, strings.Join(quoted, ", "),
			`  console = { enabled = true, mode = "console", ttys = 4 }`), "")
	}
	var keysBefore string

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, secrets(1, testKey1)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("password_wo"), knownvalue.Null()),
				},
				// W39: PVE takes tty at create; it goes with the create
				// request, not in a config update after it.
				Check: resource.ComposeTestCheckFunc(ct.record(), noSecretInState(testPassword), ttySentAtCreate(tg, "4"),
					ct.configHas(map[string]string{"tty": "4", "cmode": "console", "console": "1"}), func(*terraform.State) error {
						if tg.Sim == nil {
							return nil
						}
						g, _ := tg.Sim.Guest(ct.vmid)
						if g.PasswordHash == "" || !strings.Contains(g.AuthorizedKeys, testKey1) {
							return fmt.Errorf("create did not set root's password and keys: hash=%q keys=%q", g.PasswordHash, g.AuthorizedKeys)
						}
						keysBefore = g.AuthorizedKeys
						return nil
					}),
			},
			{
				// Keys and password apply at create only: a change is
				// recorded, with a warning, never a replacement.
				Config:           ctConfig(tg, secrets(2, testKey1, testKey2)),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("password_wo_version"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("ssh_public_keys"), knownvalue.SetSizeExact(2)),
				},
				Check: resource.ComposeTestCheckFunc(ct.keeps("rootfs", "mp0"), noSecretInState(testPassword), func(*terraform.State) error {
					if tg.Sim == nil {
						return nil
					}
					if g, _ := tg.Sim.Guest(ct.vmid); g.AuthorizedKeys != keysBefore {
						return fmt.Errorf("keys changed in the container: %q", g.AuthorizedKeys)
					}
					return nil
				}),
			},
		},
	})
}

// noSecretInState asserts that no attribute of the container holds secret.
func noSecretInState(secret string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[ctAddr]
		for k, v := range rs.Primary.Attributes {
			if strings.Contains(v, secret) {
				return fmt.Errorf("state attribute %s holds the password", k)
			}
		}
		return nil
	}
}

func TestAccContainer_disappearsW12(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, smallCT("", "")),
				Check: resource.ComposeTestCheckFunc(ct.record(), func(*terraform.State) error {
					destroyOutside(tg, ct.node, ct.vmid)
					return nil
				}),
				// W12: the refresh drops the container from state; the next
				// plan creates it again.
				ExpectNonEmptyPlan: true,
			},
			{
				Config: ctConfig(tg, smallCT("", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionCreate)},
				},
				Check: ct.record(),
			},
		},
	})
}

func TestAccContainer_createRacesW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ct := newCTRef(tg)
	// Another creator takes the first proposed id between nextid and the
	// create; then the create on the next id runs but its answer never
	// arrives.
	for _, f := range []pvesim.Fault{
		{Method: "POST", Path: "/nodes/{node}/lxc", Action: pvesim.FaultRespond, Status: 500, Message: "CT 100 already exists on node 'pve2'", Count: 1},
		{Method: "POST", Path: "/nodes/{node}/lxc", Action: pvesim.FaultDropAfter, Count: 1},
	} {
		if err := sim.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, smallCT("", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(101)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("id"), knownvalue.StringExact("101")),
				},
				Check: resource.ComposeTestCheckFunc(ct.record(), func(*terraform.State) error {
					// The lost answer is resolved by looking at the id, not
					// by creating again.
					if n := sim.Count("POST", "/nodes/{node}/lxc"); n != 2 {
						return fmt.Errorf("create sent %d times, want twice (one refused, one adopted)", n)
					}
					guests, err := tg.Client.ClusterResources(context.Background(), "vm")
					if err != nil {
						return err
					}
					if len(guests) != 1 || guests[0].VMID.Int() != ct.vmid {
						return fmt.Errorf("want exactly container %d, cluster has %v", ct.vmid, guests)
					}
					return nil
				}),
			},
		},
	})
}

// ttySentAtCreate checks, W39, that the create request carried tty=want
// and no config update set it afterwards.
func ttySentAtCreate(tg *acctest.Target, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if tg.Sim == nil {
			return nil
		}
		created := false
		for _, rec := range tg.Sim.Requests() {
			params := url.Values(rec.Params)
			switch {
			case rec.Method == "POST" && rec.Template == "/nodes/{node}/lxc":
				if got := params.Get("tty"); got != want {
					return fmt.Errorf("W39: create request tty = %q, want %q (%v)", got, want, rec.Params)
				}
				created = true
			case rec.Method == "PUT" && rec.Template == "/nodes/{node}/lxc/{vmid}/config" && params.Has("tty"):
				return fmt.Errorf("W39: tty set by a config update after create: %v", rec.Params)
			}
		}
		if !created {
			return fmt.Errorf("no create request recorded")
		}
		return nil
	}
}
