package access_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func passwordUserConfig(tg *acctest.Target, userid, password string, version int) string {
	return tg.Config(fmt.Sprintf("resource \"pve_user\" \"test\" {\n%s}\n",
		hcl("userid", userid, "password_wo", password, "password_wo_version", version)))
}

// With a password login the provider sets the password at creation and
// again, with one PUT /access/password, when password_wo_version changes.
// Neither password reaches state or a plan.
func TestAccUser_passwordWithTicket(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	userid := acctest.Name("tfacc") + "@pve"
	passwordWrites := acctest.NewPathWriteWatch(tg, "/access/password")
	userWrites := acctest.NewPathWriteWatch(tg, "/access/users/"+url.PathEscape(userid))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkUserDestroyed(tg, userid),
		Steps: []resource.TestStep{
			{
				Config: passwordUserConfig(tg, userid, testPassword, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{noSecretInPlan(testPassword)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					noSecretInState(testPassword),
					checkLogin(tg, userid, testPassword, true),
				},
			},
			{
				// A new password alone does nothing: the version did not change.
				Config: passwordUserConfig(tg, userid, testNewPassword, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					checkLogin(tg, userid, testPassword, true),
				},
			},
			{
				PreConfig: func() { passwordWrites.Mark(); userWrites.Mark() },
				Config:    passwordUserConfig(tg, userid, testNewPassword, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionUpdate),
						noSecretInPlan(testNewPassword),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					passwordWrites.Exactly("PUT /access/password"),
					userWrites.None(),
					noSecretInState(testNewPassword),
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("password_wo_version"), knownvalue.Int64Exact(2)),
					checkLogin(tg, userid, testNewPassword, true),
					checkLogin(tg, userid, testPassword, false),
				},
			},
		},
	})
}

// Under an API token the initial password is set (PVE's create_user takes
// tokens), but a later change is refused at plan time: PVE serves
// PUT /access/password only to a ticket.
func TestAccUser_passwordChangeRefusedUnderToken(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if !tg.Client.UsesAPIToken() {
		t.Skip("the provider logs in with a password here")
	}
	userid := acctest.Name("tfacc") + "@pve"
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkUserDestroyed(tg, userid),
		Steps: []resource.TestStep{
			{
				Config:            passwordUserConfig(tg, userid, testPassword, 1),
				ConfigStateChecks: []statecheck.StateCheck{checkLogin(tg, userid, testPassword, true)},
			},
			{
				Config:      passwordUserConfig(tg, userid, testNewPassword, 2),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Password Change Needs A Password Login.*password_wo_version.*username and\s+password`),
			},
		},
	})
}

// PVE keeps passwords only for the pve realm: a pam user's password is one
// node's Linux password, other realms refuse.
func TestUserPlanRefusesPasswordOutsidePVERealm(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	acctest.WantError(t, p.PlanCreate(t, "pve_user", map[string]any{"userid": "alice@pam", "password_wo": testPassword, "password_wo_version": 1}),
		"password_wo", regexp.MustCompile(`(?s)Attribute password_wo cannot be set for alice@pam.*Linux password of\s+one node`))
	acctest.WantError(t, p.PlanCreate(t, "pve_user", map[string]any{"userid": "alice@corp-ldap", "password_wo": testPassword, "password_wo_version": 1}),
		"password_wo", regexp.MustCompile(`(?s)Attribute password_wo cannot be set.*only for users of the pve\s+realm`))
	acctest.WantError(t, p.PlanCreate(t, "pve_user", map[string]any{"userid": "alice@pve", "password_wo_version": 1}),
		"", regexp.MustCompile(`password_wo`))
}

// Values PVE would drop or change are refused at plan time, naming the
// attribute.
func TestUserPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range []struct {
		attrs     map[string]any
		attribute string
		want      string
	}{
		{map[string]any{"userid": "alice"}, "userid", `(?s)Attribute userid: user id "alice" must be\s+USER@REALM`},
		{map[string]any{"userid": "alice@pve", "first_name": "0"}, "first_name", `(?s)Attribute first_name: must not be "0"`},
		{map[string]any{"userid": "alice@pve", "last_name": ""}, "last_name", `(?s)Attribute last_name: must not be empty`},
		{map[string]any{"userid": "alice@pve", "comment": " on call"}, "comment", `(?s)Attribute comment:.*space`},
		{map[string]any{"userid": "alice@pve", "email": "alice"}, "email", `(?s)Attribute email:.*does not look like an email`},
		{map[string]any{"userid": "alice@pve", "keys": "x"}, "keys", `(?s)Attribute keys:.*marker`},
		{map[string]any{"userid": "alice@pve", "expire": "2030-01-01T00:00:00.5Z"}, "expire", `(?s)Attribute expire:.*fraction`},
		{map[string]any{"userid": "alice@pve", "expire": "1970-01-01T00:00:00Z"}, "expire", `(?s)Attribute expire:.*never expires`},
		{map[string]any{"userid": "alice@pve", "expire": "tomorrow"}, "expire", `Invalid RFC3339 String Value`},
		{map[string]any{"userid": "alice@pve", "groups": []string{}}, "groups", `(?s)Attribute groups set must contain at least 1`},
		{map[string]any{"userid": "alice@pve", "groups": []string{"a:b"}}, "", `(?s)group name "a:b"`},
		{map[string]any{"userid": "alice@pve", "password_wo": "short", "password_wo_version": 1}, "password_wo", `(?s)password_wo string length must be between 8`},
	} {
		acctest.WantError(t, p.PlanCreate(t, "pve_user", c.attrs), c.attribute, regexp.MustCompile(c.want))
	}
}

// The provider runs as root@pam (its token's owner) against the
// simulator: deleting, replacing or disabling that user is refused at
// plan time unless allow_self_lockout is set.
func TestAccUser_selfLockout(t *testing.T) {
	t.Parallel()
	if acctest.IsLive() {
		t.Skip("adopts the provider's own user")
	}
	tg := acctest.New(t)
	own := "root@pam"
	adopt := tg.Config(fmt.Sprintf("import {\n  to = pve_user.own\n  id = %q\n}\n\nresource \"pve_user\" \"own\" {\n  userid = %q\n}\n", own, own))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: adopt},
			{
				Config:      tg.Config(""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Deleting The Provider's Own User.*allow_self_lockout`),
			},
			{
				Config:      tg.Config(fmt.Sprintf("resource \"pve_user\" \"own\" {\n  userid  = %q\n  enabled = false\n}\n", own)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Disabling The Provider's Own User`),
			},
			{
				Config:      tg.Config("resource \"pve_user\" \"own\" {\n  userid = \"someone@pve\"\n}\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Replacing The Provider's Own User`),
			},
			{
				// Setting the opt-in is an update of its own; the user
				// is then let go without being deleted.
				Config: tg.Config(fmt.Sprintf("resource \"pve_user\" \"own\" {\n  userid = %q\n  allow_self_lockout = true\n}\n", own)),
			},
			{
				// With the opt-in, deleting plans without an error.
				Config:             tg.Config(""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: tg.Config("removed {\n  from = pve_user.own\n  lifecycle {\n    destroy = false\n  }\n}\n"),
			},
		},
	})
}

// keys round-trips; the marker PVE writes itself once a user has
// two-factor entries ("x", src/PVE/API2/TFA.pm) reads as no value and
// plans nothing.
func TestAccUser_legacyKeys(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	userid := acctest.Name("tfacc") + "@pve"
	withKeys := tg.Config(fmt.Sprintf("resource \"pve_user\" \"test\" {\n%s}\n", hcl("userid", userid, "keys", "ccccccabcdef!ccccccghijkl")))
	without := tg.Config(fmt.Sprintf("resource \"pve_user\" \"test\" {\n%s}\n", hcl("userid", userid)))
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkUserDestroyed(tg, userid),
		Steps: []resource.TestStep{
			{
				Config: withKeys,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("keys"), knownvalue.StringExact("ccccccabcdef!ccccccghijkl")),
				},
			},
			{ResourceName: userAddr, ImportState: true, ImportStateId: userid, ImportStateVerify: true},
			{
				Config: without,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(userAddr, tfjsonpath.New("keys"), knownvalue.Null()),
				},
			},
			{
				PreConfig: func() {
					marker := "x"
					if err := tg.Client.UpdateUser(context.Background(), pveapi.UserUpdate{UserID: userid, Keys: &marker}); err != nil {
						t.Fatalf("set the two-factor marker outside Terraform: %v", err)
					}
				},
				Config: without,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(userAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}
