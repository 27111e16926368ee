package access_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const groupAddr = "pve_group.test"

func groupConfig(tg *acctest.Target, groupid, comment string) string {
	var commentValue any
	if comment != "" {
		commentValue = comment
	}
	return tg.Config(fmt.Sprintf("resource \"pve_group\" \"test\" {\n%s}\n", hcl("groupid", groupid, "comment", commentValue)))
}

// The lifecycle, then a group deleted outside Terraform is created again
// by the next apply.
func TestAccGroup_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	testGroupLifecycle(t, tg, func(groupid string) resource.TestStep {
		return resource.TestStep{
			PreConfig: func() {
				if err := tg.Client.DeleteGroup(context.Background(), groupid); err != nil {
					t.Fatalf("delete group outside Terraform: %v", err)
				}
			},
			Config: groupConfig(tg, groupid, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionCreate)},
			},
		}
	})
}

// PVE 8.4 keeps groups the same way (its looser group names are refused
// on every release).
func TestAccGroup_lifecyclePVE84(t *testing.T) {
	t.Parallel()
	testGroupLifecycle(t, acctest.NewOnPVE(t, "8.4"))
}

// testGroupLifecycle runs the lifecycle of a group and then the steps more
// makes for its groupid.
func testGroupLifecycle(t *testing.T, tg *acctest.Target, more ...func(groupid string) resource.TestStep) {
	t.Helper()
	groupid := acctest.Name("tfacc")
	extra := make([]resource.TestStep, len(more))
	for i, step := range more {
		extra[i] = step(groupid)
	}
	writes := acctest.NewPathWriteWatch(tg, "/access/groups")
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkGroupDestroyed(tg, groupid),
		Steps: append([]resource.TestStep{
			{
				Config: groupConfig(tg, groupid, "developers"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("id"), knownvalue.StringExact(groupid)),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("comment"), knownvalue.StringExact("developers")),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("members"), knownvalue.SetSizeExact(0)),
				},
			},
			{
				PreConfig: writes.Mark,
				Config:    groupConfig(tg, groupid, "developers and testers"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					writes.Exactly("PUT /access/groups/" + groupid),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("comment"), knownvalue.StringExact("developers and testers")),
				},
			},
			{
				// Dropping the comment clears it in PVE, in place.
				Config: groupConfig(tg, groupid, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("comment"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					g, err := tg.Client.GetGroup(context.Background(), groupid)
					if err != nil {
						return err
					}
					if g.Comment != "" {
						return fmt.Errorf("PVE still has comment %q", g.Comment)
					}
					return nil
				},
			},
			{
				ResourceName:      groupAddr,
				ImportState:       true,
				ImportStateId:     groupid,
				ImportStateVerify: true,
			},
			{
				Config:          groupConfig(tg, groupid, ""),
				ResourceName:    groupAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   groupid,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionNoop)},
				},
			},
		}, extra...),
	})
}

// members follows the users that join and leave, in the same apply and
// outside Terraform, and never makes a plan change.
func TestAccGroup_membersFollowUsers(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	groupid := acctest.Name("tfacc")
	alice, bob := acctest.Name("tfacc-a")+"@pve", acctest.Name("tfacc-b")+"@pve"
	ctx := context.Background()
	config := tg.Config(fmt.Sprintf(`
resource "pve_group" "test" {
  groupid = %q
}

resource "pve_user" "alice" {
  userid = %q
  groups = [pve_group.test.groupid]
}
`, groupid, alice))
	members := func(ids ...string) statecheck.StateCheck {
		checks := make([]knownvalue.Check, len(ids))
		for i, id := range ids {
			checks[i] = knownvalue.StringExact(id)
		}
		return statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("members"), knownvalue.SetExact(checks))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkGroupDestroyed(tg, groupid),
		Steps: []resource.TestStep{
			{Config: config},
			{
				// The refresh before this step's plan sees alice.
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{members(alice)},
			},
			{
				PreConfig: func() {
					if err := tg.Client.CreateUser(ctx, pveapi.UserCreate{UserID: bob, Groups: []string{groupid}}); err != nil {
						t.Fatalf("create a member outside Terraform: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(groupAddr, plancheck.ResourceActionNoop)},
				},
				ConfigStateChecks: []statecheck.StateCheck{members(alice, bob)},
			},
		},
	})
	_ = tg.Client.DeleteUser(ctx, bob)
}

// A group that exists is not taken over: the create fails and leaves it
// as it was.
func TestGroupExistingIsNotTakenOver(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	groupid := acctest.Name("tfacc")
	ctx := context.Background()
	if err := p.Client.CreateGroup(ctx, groupid, "theirs"); err != nil {
		t.Fatal(err)
	}
	diags := p.ApplyCreate(t, "pve_group", map[string]any{"groupid": groupid, "comment": "ours"})
	acctest.WantError(t, diags, "", regexp.MustCompile(`(?s)Group Already Exists.*Import it instead`))
	if g, err := p.Client.GetGroup(ctx, groupid); err != nil || g.Comment != "theirs" {
		t.Errorf("the existing group changed: %+v, %v", g, err)
	}
}

// Bad input is refused at plan time, naming the attribute.
func TestGroupPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	acctest.WantError(t, p.PlanCreate(t, "pve_group", map[string]any{"groupid": "ops:admins"}), "groupid",
		regexp.MustCompile(`(?s)Attribute groupid: group name "ops:admins" must be letters`))
	acctest.WantError(t, p.PlanCreate(t, "pve_group", map[string]any{"groupid": "ops", "comment": "0"}), "comment",
		regexp.MustCompile(`(?s)Attribute comment: must not be "0"`))
}
