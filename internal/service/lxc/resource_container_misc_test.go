package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
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
					ct.record(),
					noSecretInState(testPassword),
					// W39: PVE takes tty at create; it goes with the create
					// request, not in a config update after it.
					ttySentAtCreate(tg, "4"),
					ct.configHas(map[string]string{"tty": "4", "cmode": "console", "console": "1"}),
					acctest.CheckState(func(*tfjson.State) error {
						if tg.Sim == nil {
							return nil
						}
						g, _ := tg.Sim.Guest(ct.VMID)
						if g.PasswordHash == "" || !strings.Contains(g.AuthorizedKeys, testKey1) {
							return fmt.Errorf("create did not set root's password and keys: hash=%q keys=%q", g.PasswordHash, g.AuthorizedKeys)
						}
						keysBefore = g.AuthorizedKeys
						return nil
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("password_wo"), knownvalue.Null()),
				},
			},
			{
				// Keys and password apply at create only: a change is
				// recorded, with a warning, never a replacement.
				Config:           ctConfig(tg, secrets(2, testKey1, testKey2)),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					noSecretInState(testPassword),
					acctest.CheckState(func(*tfjson.State) error {
						if tg.Sim == nil {
							return nil
						}
						if g, _ := tg.Sim.Guest(ct.VMID); g.AuthorizedKeys != keysBefore {
							return fmt.Errorf("keys changed in the container: %q", g.AuthorizedKeys)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("password_wo_version"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("ssh_public_keys"), knownvalue.SetSizeExact(2)),
				},
			},
		},
	})
}

// noSecretInState asserts that no attribute of the container holds secret.
func noSecretInState(secret string) statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		if !acctest.InState(state, ctAddr) {
			return fmt.Errorf("%s not in state", ctAddr)
		}
		for _, rs := range state.Values.RootModule.Resources {
			if rs.Address == ctAddr {
				return secretIn("", rs.AttributeValues, secret)
			}
		}
		return nil
	})
}

// secretIn looks for secret in every value under v, nested ones included,
// and names the attribute that holds it.
func secretIn(path string, v any, secret string) error {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if err := secretIn(strings.TrimPrefix(path+"."+k, "."), e, secret); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := secretIn(fmt.Sprintf("%s.%d", path, i), e, secret); err != nil {
				return err
			}
		}
	default:
		if v != nil && strings.Contains(fmt.Sprint(v), secret) {
			return fmt.Errorf("state attribute %s holds the password", path)
		}
	}
	return nil
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
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					acctest.CheckState(func(*tfjson.State) error {
						destroyOutside(tg, ct.Node, ct.VMID)
						return nil
					}),
				},
				// W12: the refresh drops the container from state; the next
				// plan creates it again.
				ExpectNonEmptyPlan: true,
			},
			{
				Config: ctConfig(tg, smallCT("", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{ct.record()},
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
					ct.record(),
					acctest.CheckState(func(*tfjson.State) error {
						// The lost answer is resolved by looking at the id, not
						// by creating again.
						if n := sim.Count("POST", "/nodes/{node}/lxc"); n != 2 {
							return fmt.Errorf("create sent %d times, want twice (one refused, one adopted)", n)
						}
						guests, err := tg.Client.ClusterResources(context.Background(), "vm")
						if err != nil {
							return err
						}
						if len(guests) != 1 || guests[0].VMID.Int() != ct.VMID {
							return fmt.Errorf("want exactly container %d, cluster has %v", ct.VMID, guests)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(101)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("id"), knownvalue.StringExact("101")),
				},
			},
		},
	})
}

// ttySentAtCreate checks, W39, that the create request carried tty=want
// and no config update set it afterwards.
func ttySentAtCreate(tg *acctest.Target, want string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
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
	})
}
