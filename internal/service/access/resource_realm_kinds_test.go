package access_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const (
	testClientKey1 = "oidc-client-key-one-5be2"
	testClientKey2 = "oidc-client-key-two-c81d"
)

// checkClientKey checks the client key PVE holds ("" for none).
func checkClientKey(tg *acctest.Target, name, want string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		r, err := realmOptions(tg, name)
		if err != nil {
			return err
		}
		if got := r.Options["client-key"]; got != want {
			return fmt.Errorf("PVE holds a client key of %d characters, want %d", len(got), len(want))
		}
		return nil
	})
}

// The client key PVE shows on every read never reaches the state or the
// plan; it is written when its version changes, and removed when the
// version changes without a key. username_claim cannot change in PVE.
func TestAccRealm_openIDLifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	body := func(claim, scopes, secret string, version int) string {
		key := ""
		if secret != "" {
			key = fmt.Sprintf("  client_key_wo = %q\n", secret)
		}
		return realmConfig(tg, fmt.Sprintf(`  realm      = %q
  type       = "openid"
  issuer_url = "https://id.example.com/realms/corp"
  client_id  = "pve"
%s  client_key_wo_version = %d
  username_claim    = %q
  scopes            = %q
  prompt            = "login"
  acr_values        = "urn:mace:incommon:iap:silver"
  autocreate        = true
  groups_claim      = "groups"
  groups_autocreate = true
  groups_overwrite  = false
  query_userinfo    = false
  comment           = "Single sign-on"`, name, key, version, claim, scopes))
	}
	noSecrets := realmStateLacks(testClientKey1, testClientKey2)
	planChecks := func(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(realmAddr, action), realmPlanLacks{testClientKey1, testClientKey2},
		}}
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRealmDestroyed(tg, name),
		Steps: []resource.TestStep{
			{
				Config:           body("email", "openid email profile", testClientKey1, 1),
				ConfigPlanChecks: planChecks(plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					noSecrets,
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("client_key_wo"), knownvalue.Null()),
					checkClientKey(tg, name, testClientKey1),
					checkRealm(tg, name, map[string]string{"issuer-url": "https://id.example.com/realms/corp", "client-id": "pve",
						"username-claim": "email", "scopes": "openid email profile", "prompt": "login",
						"acr-values": "urn:mace:incommon:iap:silver", "autocreate": "1", "groups-claim": "groups",
						"groups-autocreate": "1", "groups-overwrite": "0", "query-userinfo": "0"}),
				},
			},
			{
				// A new key with a new version, and another scope list.
				Config:           body("email", "openid email", testClientKey2, 2),
				ConfigPlanChecks: planChecks(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					noSecrets, checkClientKey(tg, name, testClientKey2),
					checkRealm(tg, name, map[string]string{"scopes": "openid email"}),
				},
			},
			{
				// A new version without a key removes the key.
				Config:            body("email", "openid email", "", 3),
				ConfigPlanChecks:  planChecks(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{noSecrets, checkClientKey(tg, name, "")},
			},
			{
				// PVE cannot change the claim: the realm is replaced.
				Config:            body("sub", "openid email", testClientKey1, 3),
				ConfigPlanChecks:  planChecks(plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: []statecheck.StateCheck{noSecrets, checkClientKey(tg, name, testClientKey1)},
			},
			{
				ResourceName:            realmAddr,
				ImportState:             true,
				ImportStateId:           name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"client_key_wo_version"},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, st := range states {
						for key, value := range st.Attributes {
							if value == testClientKey1 {
								return fmt.Errorf("imported attribute %s holds the client key", key)
							}
						}
					}
					return nil
				},
			},
			{
				Config:          tg.Config(""),
				ResourceName:    realmAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
				GenerateConfig:  true,
			},
		},
	})
}

// skipBuiltinRealmsOnLive keeps the tests that change the pam and pve
// realms to the simulator: a second factor on a live cluster's realm
// would lock its users out.
func skipBuiltinRealmsOnLive(t *testing.T) {
	t.Helper()
	if acctest.IsLive() {
		t.Skip("changes the built-in realms; runs against the simulator only")
	}
}

// The pve realm is adopted with the settings PVE has replaced by those
// configured, and destroying the resource restores PVE's defaults.
func TestAccRealm_builtinAdoptedAndRestored(t *testing.T) {
	skipBuiltinRealmsOnLive(t)
	t.Parallel()
	tg := acctest.New(t)
	tfa, comment := "type=oath,step=60", "set by hand"
	if err := tg.Client.UpdateRealm(context.Background(), pveapi.RealmUpdate{Realm: "pve", TFA: &tfa, Comment: &comment}); err != nil {
		t.Fatal(err)
	}
	addr := "pve_realm.builtin"
	config := func(body string) string {
		return tg.Config("resource \"pve_realm\" \"builtin\" {\n  realm = \"pve\"\n  type  = \"pve\"\n" + body + "}\n")
	}
	builtinComment := "Proxmox VE authentication server"

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			return expectRealm(tg, "pve", map[string]string{"comment": builtinComment}, "tfa", "default")
		},
		Steps: []resource.TestStep{
			{
				Config:           config("  comment = \"Local accounts\"\n  default = true\n"),
				ConfigPlanChecks: realmActions(addr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("tfa"), knownvalue.Null()),
					checkRealm(tg, "pve", map[string]string{"comment": "Local accounts", "default": "1"}, "tfa"),
				},
			},
			{
				// Left out: PVE's built-in comment comes back, and the
				// realm is no longer the default.
				Config:           config(""),
				ConfigPlanChecks: realmActions(addr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("comment"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("default"), knownvalue.Null()),
					checkRealm(tg, "pve", map[string]string{"comment": builtinComment}, "default"),
				},
			},
			{
				Config:           config("  tfa = { type = \"oath\", step = 60, digits = 7 }\n"),
				ConfigPlanChecks: realmActions(addr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					checkRealm(tg, "pve", map[string]string{"tfa": "type=oath,digits=7,step=60"}),
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     "pve",
				ImportStateVerify: true,
			},
			{
				Config:          tg.Config(""),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "pve",
				GenerateConfig:  true,
			},
		},
	})
}

// PVE keeps one default realm. Moving the flag between two realms plans
// empty afterwards, a realm that lost it with default = false shows no
// change, one that declares it takes it back from a change made outside
// Terraform, and two realms declaring it are refused at plan time.
func TestAccRealm_defaultSwitching(t *testing.T) {
	skipBuiltinRealmsOnLive(t)
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	config := func(pamDefault, ldapDefault string) string {
		pam := ""
		if pamDefault != "" {
			pam = "  default = " + pamDefault + "\n"
		}
		ldap := ""
		if ldapDefault != "" {
			ldap = "  default = " + ldapDefault + "\n"
		}
		return tg.Config("resource \"pve_realm\" \"pam\" {\n  realm = \"pam\"\n  type  = \"pam\"\n" + pam + "}\n" +
			"resource \"pve_realm\" \"ldap\" {\n" + ldapRealmBody(name, ldap) + "}\n")
	}
	defaultIs := func(want string) statecheck.StateCheck {
		return acctest.CheckState(func(*tfjson.State) error {
			realms, err := tg.Client.Realms(context.Background())
			if err != nil {
				return err
			}
			var defaults []string
			for _, r := range realms {
				if r.Default {
					defaults = append(defaults, r.Realm)
				}
			}
			if len(defaults) != 1 || defaults[0] != want {
				return fmt.Errorf("default realms %v, want %s", defaults, want)
			}
			return nil
		})
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:            config("true", ""),
				ConfigStateChecks: []statecheck.StateCheck{defaultIs("pam")},
			},
			{
				// The flag moves: PVE takes it from pam.
				Config:            config("", "true"),
				ConfigStateChecks: []statecheck.StateCheck{defaultIs(name)},
			},
			{
				// pam says false: it is not the default, nothing to do.
				Config:            config("false", "true"),
				ConfigPlanChecks:  realmActions("pve_realm.pam", plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{defaultIs(name)},
			},
			{
				// And back, with the LDAP realm at false: after PVE took
				// the flag from it, it shows false and plans no change.
				Config: config("true", "false"),
				ConfigStateChecks: []statecheck.StateCheck{
					defaultIs("pam"),
					statecheck.ExpectKnownValue("pve_realm.ldap", tfjsonpath.New("default"), knownvalue.Bool(false)),
				},
			},
			{
				// Taken outside Terraform: pam declares it and takes it
				// back.
				PreConfig: func() {
					on := true
					if err := tg.Client.UpdateRealm(context.Background(), pveapi.RealmUpdate{Realm: name, Default: &on}); err != nil {
						t.Fatal(err)
					}
				},
				Config:            config("true", "false"),
				ConfigPlanChecks:  realmActions("pve_realm.pam", plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{defaultIs("pam")},
			},
			{
				Config:      config("true", "true"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Two Default Realms.*both\s+declare\s+default\s+=\s+true`),
			},
		},
	})
}

// A provider that logs in with a password is not allowed to put a second
// factor on its own realm unless allow_self_lockout says so.
func TestAccRealm_selfLockoutRefused(t *testing.T) {
	skipBuiltinRealmsOnLive(t)
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	config := func(allow string) string {
		return tg.Config("resource \"pve_realm\" \"pam\" {\n  realm = \"pam\"\n  type  = \"pam\"\n  tfa   = { type = \"oath\" }\n" + allow + "}\n")
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      config(""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Realm Change Would Lock The Provider Out.*root@pam\s+with\s+a\s+password`),
			},
			{
				Config:             config("  allow_self_lockout = true\n"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
