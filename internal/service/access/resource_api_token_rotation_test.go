package access_test

import (
	"fmt"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// pinnedRelease is a simulator serving one PVE release; the behaviour
// these tests pin differs between releases, so a live node is skipped.
func pinnedRelease(t *testing.T, version string) *acctest.Target {
	t.Helper()
	if acctest.IsLive() {
		t.Skip("pins the behaviour of PVE " + version)
	}
	return acctest.NewOnPVE(t, version)
}

// rotationSteps creates a token with secret_version 1 and an ACL entry,
// then rotates it with secret_version 2, planned as action; after each
// step only the newest secret authenticates, and keepsACL tells whether
// the ACL entry survives the rotation.
func rotationSteps(t *testing.T, tg *acctest.Target, conf tokenConf, action plancheck.ResourceActionType, keepsACL bool) []resource.TestStep {
	var secrets secretLog
	conf.secretVersion = "1"
	rotated := conf
	rotated.secretVersion = `"two"`
	onlyNewest := acctest.CheckState(func(*tfjson.State) error {
		stale := secrets.secrets[:len(secrets.secrets)-1]
		return authenticates(t, tg, conf.id(), secrets.last(), stale...)
	})
	return []resource.TestStep{
		{
			Config:            tg.Config(conf.hcl()),
			ConfigStateChecks: []statecheck.StateCheck{secrets.capture(tokenAddr), onlyNewest},
		},
		{
			PreConfig: func() { grantToken(t, tg, conf.id(), "/vms", "PVEAuditor") },
			Config:    tg.Config(rotated.hcl()),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(tokenAddr, action),
				plancheck.ExpectUnknownValue(tokenAddr, tfjsonpath.New("value")),
				plancheck.ExpectUnknownValue(tokenAddr, tfjsonpath.New("api_token")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				secrets.capture(tokenAddr),
				acctest.CheckState(func(*tfjson.State) error {
					if len(secrets.secrets) != 2 {
						return fmt.Errorf("rotation left the secret as it was")
					}
					return nil
				}),
				onlyNewest,
				acctest.CheckState(func(*tfjson.State) error {
					kept, err := tokenHasRole(tg, conf.id(), "/vms", "PVEAuditor")
					if err != nil {
						return err
					}
					if kept != keepsACL {
						return fmt.Errorf("after the rotation the ACL entry exists: %v, want %v", kept, keepsACL)
					}
					return nil
				}),
			},
		},
	}
}

// PVE 9.2 regenerates a secret in place: the token keeps its ACL entries.
func TestAccAPIToken_rotateInPlace_pve92(t *testing.T) {
	t.Parallel()
	tg := pinnedRelease(t, "9.2")
	conf := newTokenConf(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps:        rotationSteps(t, tg, conf, plancheck.ResourceActionUpdate, true),
	})
}

// PVE 9.1 before pve-manager 9.1.14 (the simulator serves 9.1.4) cannot
// regenerate a secret: the token is replaced, and PVE drops its ACL
// entries with the old one.
func TestAccAPIToken_rotateByReplacement_pve91(t *testing.T) {
	t.Parallel()
	tg := pinnedRelease(t, "9.1")
	conf := newTokenConf(tg)
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps:        rotationSteps(t, tg, conf, plancheck.ResourceActionDestroyBeforeCreate, false),
	})
}

// PVE 8.4 cannot remove a token's comment: the plan refuses it rather
// than leave a change that never settles, unless the token is recreated
// in the same apply. Privilege separation still changes in place.
func TestAccAPIToken_comment_pve84(t *testing.T) {
	t.Parallel()
	tg := pinnedRelease(t, "8.4")
	conf := newTokenConf(tg)
	conf.comment = "deploys"
	open := conf
	open.privsep = boolPtr(false)
	uncommented := open
	uncommented.comment = ""
	recreated := uncommented
	recreated.secretVersion = "1"
	var secrets secretLog

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps: []resource.TestStep{
			{Config: tg.Config(conf.hcl()), ConfigStateChecks: []statecheck.StateCheck{secrets.capture(tokenAddr)}},
			{
				Config:           tg.Config(open.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("privilege_separation"), knownvalue.Bool(false)),
				},
			},
			{
				Config:      tg.Config(uncommented.hcl()),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)API Token Comment Cannot Be Removed.*PVE 8\.4\.18 cannot remove.*change\s+secret_version`),
			},
			{
				Config:           tg.Config(recreated.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("comment"), knownvalue.Null()),
					secrets.capture(tokenAddr),
					acctest.CheckState(func(*tfjson.State) error {
						return authenticates(t, tg, conf.id(), secrets.last(), secrets.secrets[0])
					}),
				},
			},
		},
	})
}

// With privilege separation a token has only what its own ACL entries
// give; without it, all of its user's privileges and no more. The user
// holds PVEVMAdmin on /vms.
func TestAccAPIToken_privilegeSeparation(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	conf := tokenConf{userid: newUser(t, tg, "/vms", "PVEVMAdmin"), name: acctest.Name("tfacc")}
	open := conf
	open.privsep = boolPtr(false)
	var secrets secretLog
	perms := func(check func(map[string]map[string]bool) error) statecheck.StateCheck {
		return acctest.CheckState(func(*tfjson.State) error {
			p, err := permissionsOf(t, tg, conf.id()+"="+secrets.last())
			if err != nil {
				return fmt.Errorf("the token reads its permissions: %w", err)
			}
			return check(p)
		})
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps: []resource.TestStep{
			{
				Config: tg.Config(conf.hcl()),
				ConfigStateChecks: []statecheck.StateCheck{
					secrets.capture(tokenAddr),
					perms(func(p map[string]map[string]bool) error {
						for path, privs := range p {
							if len(privs) > 0 {
								return fmt.Errorf("a separated token without ACL entries holds %v on %s", privs, path)
							}
						}
						return nil
					}),
				},
			},
			{
				PreConfig: func() { grantToken(t, tg, conf.id(), "/vms", "PVEAuditor") },
				Config:    tg.Config(conf.hcl()),
				ConfigStateChecks: []statecheck.StateCheck{
					perms(func(p map[string]map[string]bool) error {
						if !hasPrivilege(p, "/vms", "VM.Audit") || hasPrivilege(p, "/vms", "VM.Allocate") || hasPrivilege(p, "/", "Sys.Modify") {
							return fmt.Errorf("with PVEAuditor on /vms the token holds %v", p)
						}
						return nil
					}),
				},
			},
			{
				Config:           tg.Config(open.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					perms(func(p map[string]map[string]bool) error {
						if !hasPrivilege(p, "/vms", "VM.Allocate") || hasPrivilege(p, "/", "Sys.Audit") {
							return fmt.Errorf("without separation the token holds %v, not its user's privileges", p)
						}
						return nil
					}),
				},
			},
		},
	})
}
