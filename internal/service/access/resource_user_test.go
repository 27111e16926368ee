package access_test

import (
	"context"
	"fmt"
	"net/url"
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

const userAddr = "pve_user.test"

// userTestNames are one test's user and groups, unique per run.
type userTestNames struct {
	userid, dev, ops string
}

func newUserTestNames() userTestNames {
	return userTestNames{
		userid: acctest.Name("tfacc") + "@pve",
		dev:    acctest.Name("tfacc-dev"),
		ops:    acctest.Name("tfacc-ops"),
	}
}

// groupsAndUser is two groups and a user with the given attribute lines.
func (n userTestNames) config(tg *acctest.Target, userAttrs string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_group" "dev" {
  groupid = %q
}

resource "pve_group" "ops" {
  groupid = %q
  comment = "operations"
}

resource "pve_user" "test" {
  userid = %q
%s}
`, n.dev, n.ops, n.userid, userAttrs))
}

// The lifecycle, then a user deleted outside Terraform is created again by
// the next apply.
func TestAccUser_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	testUserLifecycle(t, tg, func(userid, lastConfig string) resource.TestStep {
		return resource.TestStep{
			PreConfig: func() {
				if err := tg.Client.DeleteUser(context.Background(), userid); err != nil {
					t.Fatalf("delete user outside Terraform: %v", err)
				}
			},
			Config: lastConfig,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionCreate)},
			},
		}
	})
}

// PVE 8.4 keeps users the same way.
func TestAccUser_lifecyclePVE84(t *testing.T) {
	t.Parallel()
	testUserLifecycle(t, acctest.NewOnPVE(t, "8.4"))
}

// testUserLifecycle runs the lifecycle of a user and then the steps more
// makes for its userid and the configuration last applied.
func testUserLifecycle(t *testing.T, tg *acctest.Target, more ...func(userid, lastConfig string) resource.TestStep) {
	t.Helper()
	n := newUserTestNames()
	userWrites := acctest.NewPathWriteWatch(tg, "/access/users/"+url.PathEscape(n.userid))
	groupWrites := acctest.NewPathWriteWatch(tg, "/access/groups")
	created := hcl(
		"first_name", "Alice", "last_name", "Example", "email", "alice@example.com", "comment", "on call",
		"expire", "2030-01-31T12:00:00+01:00", "groups", expr("[pve_group.dev.groupid]"),
		"password_wo", testPassword, "password_wo_version", 1,
	)
	updated := hcl(
		"last_name", "Example", "email", "alice@example.org", "enabled", false,
		"groups", expr("[pve_group.dev.groupid, pve_group.ops.groupid]"),
		"password_wo", testPassword, "password_wo_version", 1,
	)
	plain := hcl("last_name", "Example", "email", "alice@example.org", "enabled", false,
		"groups", expr("[pve_group.dev.groupid, pve_group.ops.groupid]"))

	extra := make([]resource.TestStep, len(more))
	for i, step := range more {
		extra[i] = step(n.userid, n.config(tg, updated))
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			if err := checkUserDestroyed(tg, n.userid)(s); err != nil {
				return err
			}
			return checkGroupDestroyed(tg, n.dev, n.ops)(s)
		},
		Steps: append([]resource.TestStep{
			{
				Config: n.config(tg, created),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionCreate),
						noSecretInPlan(testPassword),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("id"), knownvalue.StringExact(n.userid)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("enabled"), knownvalue.Bool(true)),
					// The configuration's offset is kept; PVE holds the same instant.
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("expire"), knownvalue.StringExact("2030-01-31T12:00:00+01:00")),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("groups"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(n.dev)})),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("password_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("keys"), knownvalue.Null()),
					noSecretInState(testPassword),
					checkLogin(tg, n.userid, testPassword, true),
					userHas(tg, n.userid, func(u *pveapi.User) error {
						if int64(u.Expire) != 1896087600 || u.Firstname != "Alice" || u.Comment != "on call" {
							return fmt.Errorf("PVE holds %+v", u)
						}
						return nil
					}),
				},
			},
			{
				// Every change, groups included, is one PUT of the user;
				// the groups themselves are not written.
				PreConfig: func() { userWrites.Mark(); groupWrites.Mark() },
				Config:    n.config(tg, updated),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					userWrites.Exactly("PUT /access/users/" + n.userid),
					groupWrites.None(),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("first_name"), knownvalue.Null()),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("expire"), knownvalue.Null()),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("enabled"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("groups"), knownvalue.SetSizeExact(2)),
					userHas(tg, n.userid, func(u *pveapi.User) error {
						if u.Expire != 0 || u.Firstname != "" || u.Comment != "" || u.Enable || len(u.Groups) != 2 {
							return fmt.Errorf("PVE holds %+v", u)
						}
						return nil
					}),
				},
			},
			{
				// A refresh shows the members on the groups, without a plan change.
				Config: n.config(tg, updated),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("pve_group.ops", tfjsonpath.New("members"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(n.userid)})),
				},
			},
			{
				ResourceName:      userAddr,
				ImportState:       true,
				ImportStateId:     n.userid,
				ImportStateVerify: true,
				// The version is the configuration's own: an import cannot know it.
				ImportStateVerifyIgnore: []string{"password_wo_version"},
			},
			{
				// An import block plans no changes once adopted.
				Config:          n.config(tg, plain),
				ResourceName:    userAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   n.userid,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionNoop)},
				},
			},
		}, extra...),
	})
}

// userHas checks the user as PVE holds it.
func userHas(tg *acctest.Target, userid string, check func(*pveapi.User) error) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		u, err := tg.Client.GetUser(context.Background(), userid)
		if err != nil {
			return err
		}
		return check(u)
	})
}

// A user made outside Terraform is adopted by an import block with a
// generated configuration, which then plans no change.
func TestAccUser_generatedImport(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	n := newUserTestNames()
	ctx := context.Background()
	if err := tg.Client.CreateGroup(ctx, n.ops, ""); err != nil {
		t.Fatal(err)
	}
	if err := tg.Client.CreateUser(ctx, pveapi.UserCreate{
		UserID: n.userid, Firstname: "Bob", Email: "bob@example.com", Expire: 1893456000, Groups: []string{n.ops},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = tg.Client.DeleteUser(ctx, n.userid)
		_ = tg.Client.DeleteGroup(ctx, n.ops)
	})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:          tg.Config(""),
			ResourceName:    userAddr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			ImportStateId:   n.userid,
			GenerateConfig:  true,
		}},
	})
}

// Creating a user that exists is refused with the way to import it; the
// existing user is left as it was.
// A user that exists is not taken over: the create fails and leaves it as
// it was.
func TestUserExistingIsNotTakenOver(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	userid := acctest.Name("tfacc") + "@pve"
	ctx := context.Background()
	if err := p.Client.CreateUser(ctx, pveapi.UserCreate{UserID: userid, Comment: "theirs"}); err != nil {
		t.Fatal(err)
	}
	diags := p.ApplyCreate(t, "pve_user", map[string]any{"userid": userid, "comment": "ours"})
	acctest.WantError(t, diags, "", regexp.MustCompile(`(?s)User Already Exists.*Import it instead`))
	if u, err := p.Client.GetUser(ctx, userid); err != nil || u.Comment != "theirs" {
		t.Errorf("the existing user changed: %+v, %v", u, err)
	}
}

// A group joined outside Terraform is taken away again: groups is all of
// the user's groups.
func TestAccUser_groupsAreAuthoritative(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	n := newUserTestNames()
	config := n.config(tg, hcl("groups", expr("[pve_group.dev.groupid]")))
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkUserDestroyed(tg, n.userid),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					if err := tg.Client.UpdateUser(context.Background(), pveapi.UserUpdate{
						UserID: n.userid, Groups: []string{n.ops}, AppendGroups: true,
					}); err != nil {
						t.Fatalf("join a group outside Terraform: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					userHas(tg, n.userid, func(u *pveapi.User) error {
						if len(u.Groups) != 1 || u.Groups[0] != n.dev {
							return fmt.Errorf("groups in PVE: %v, want only %s", u.Groups, n.dev)
						}
						return nil
					}),
				},
			},
			{
				// Leaving every group: the set left out.
				Config: n.config(tg, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("groups"), knownvalue.Null()),
					userHas(tg, n.userid, func(u *pveapi.User) error {
						if len(u.Groups) != 0 {
							return fmt.Errorf("groups in PVE: %v, want none", u.Groups)
						}
						return nil
					}),
				},
			},
		},
	})
}
