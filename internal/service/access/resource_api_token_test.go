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

func expectAction(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tokenAddr, action)}}
}

// A token is created with its settings and a secret that authenticates,
// changes comment, expiry and privilege separation in place with the same
// secret, loses its comment in place (PVE 9.1), and imports without its
// secret into a state that plans empty.
func TestAccAPIToken_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	conf := newTokenConf(tg)
	conf.comment, conf.expire = "deploys", "2099-01-01T00:00:00Z"
	var secrets secretLog

	sameSecretWorks := acctest.CheckState(func(*tfjson.State) error {
		if len(secrets.secrets) != 1 {
			return fmt.Errorf("the secret changed: %d secrets seen", len(secrets.secrets))
		}
		return authenticates(t, tg, conf.id(), secrets.last())
	})
	updated := conf
	updated.comment, updated.expire, updated.privsep = "deploys and backups", "2099-06-01T02:00:00+02:00", boolPtr(false)
	cleared := updated
	cleared.comment, cleared.expire = "", ""

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps: []resource.TestStep{
			{
				Config:           tg.Config(conf.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("id"), knownvalue.StringExact(conf.id())),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("comment"), knownvalue.StringExact("deploys")),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("expire"), knownvalue.StringExact("2099-01-01T00:00:00Z")),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("privilege_separation"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("allow_self_lockout"), knownvalue.Bool(false)),
					secrets.capture(tokenAddr),
					sameSecretWorks,
					checkPVEToken(tg, conf, pveapi.Token{Comment: "deploys", Expire: 4070908800, PrivSep: true}),
				},
			},
			{
				Config:           tg.Config(updated.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("expire"), knownvalue.StringExact("2099-06-01T02:00:00+02:00")),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("privilege_separation"), knownvalue.Bool(false)),
					secrets.capture(tokenAddr),
					sameSecretWorks,
					checkPVEToken(tg, conf, pveapi.Token{Comment: "deploys and backups", Expire: 4083955200, PrivSep: false}),
				},
			},
			{
				// PVE 9.1 removes a comment sent empty; no expiry is 0.
				Config:           tg.Config(cleared.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("comment"), knownvalue.Null()),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("expire"), knownvalue.Null()),
					checkPVEToken(tg, conf, pveapi.Token{PrivSep: false}),
				},
			},
			{
				// PVE cannot show the secret again: an import has none.
				ResourceName:            tokenAddr,
				ImportState:             true,
				ImportStateId:           conf.id(),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"value", "api_token"},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, st := range states {
						if st.Attributes["value"] != "" || st.Attributes["api_token"] != "" {
							return fmt.Errorf("an imported token has a secret")
						}
					}
					return nil
				},
			},
			{
				Config:          tg.Config(cleared.hcl()),
				ResourceName:    tokenAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   conf.id(),
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

// checkPVEToken compares what PVE holds for the token with want.
func checkPVEToken(tg *acctest.Target, conf tokenConf, want pveapi.Token) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		got, err := tg.Client.GetToken(context.Background(), conf.userid, conf.name)
		if err != nil {
			return err
		}
		if got.Comment != want.Comment || got.Expire != want.Expire || got.PrivSep != want.PrivSep {
			return fmt.Errorf("PVE holds comment %q, expire %d, privsep %v; want %q, %d, %v",
				got.Comment, got.Expire, got.PrivSep, want.Comment, want.Expire, want.PrivSep)
		}
		return nil
	})
}

// A token made outside Terraform is not taken over: the create says to
// import it. Its import, with generated configuration, plans no change.
func TestAccAPIToken_existingIsImported(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	conf := newTokenConf(tg)
	privsep := false
	if _, err := tg.Client.CreateToken(context.Background(), pveapi.TokenCreate{
		UserID: conf.userid, TokenID: conf.name, Comment: "made by hand", Expire: 4070908800, PrivSep: &privsep,
	}); err != nil {
		t.Fatalf("create token outside Terraform: %v", err)
	}
	t.Cleanup(func() { _ = tg.Client.DeleteToken(context.Background(), conf.userid, conf.name) })

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config(conf.hcl()),
				ExpectError: regexp.MustCompile(`(?s)API Token Already Exists.*terraform import ADDRESS\s+` + regexp.QuoteMeta(conf.id())),
			},
		},
	})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:          tg.Config(""),
				ResourceName:    tokenAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   conf.id(),
				GenerateConfig:  true,
			},
		},
	})
}

// A token of a user that does not exist fails at apply, naming userid.
func TestAPITokenMissingUser(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	userid := acctest.Name("nobody") + "@pve"
	diags := p.ApplyCreate(t, "pve_api_token", map[string]any{"userid": userid, "token_name": "ci"})
	acctest.WantError(t, diags, "", regexp.MustCompile(`(?s)User Does Not Exist.*`+regexp.QuoteMeta(userid)+`.*Create\s+the\s+user\s+first`))
}

// Deleted outside Terraform, with its user or alone: the next plan
// creates it again.
func TestAccAPIToken_disappears(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	conf := tokenConf{userid: newUser(t, tg, "/vms", "PVEAuditor"), name: acctest.Name("tfacc")}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps: []resource.TestStep{
			{Config: tg.Config(conf.hcl())},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteToken(context.Background(), conf.userid, conf.name); err != nil {
						t.Fatalf("delete token outside Terraform: %v", err)
					}
				},
				Config:           tg.Config(conf.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionCreate),
			},
			{
				// PVE deletes a user's tokens with the user. The destroy
				// at the end finds nothing left to delete.
				PreConfig: func() {
					if err := tg.Client.DeleteUser(context.Background(), conf.userid); err != nil {
						t.Fatalf("delete user outside Terraform: %v", err)
					}
				},
				Config:             tg.Config(conf.hcl()),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// Bad input is refused at plan time, naming the attribute.
func TestAPITokenPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	token := func(name string, value any) map[string]any {
		attrs := map[string]any{"userid": "root@pam", "token_name": acctest.Name("tfacc")}
		attrs[name] = value
		return attrs
	}
	for _, c := range []struct {
		attrs     map[string]any
		attribute string
		want      string
	}{
		{token("token_name", "9lives"), "token_name", `(?s)Attribute token_name: token name "9lives" must be at least 2\s+characters: a\s+letter`},
		{token("userid", "alice"), "userid", `(?s)Attribute userid:.*alice`},
		{token("expire", "2099-01-01T00:00:00.5Z"), "expire", `(?s)Attribute expire:.*whole seconds`},
		{token("expire", "1969-12-31T23:59:59Z"), "expire", `(?s)Attribute expire:.*not after\s+1970`},
		{token("comment", "0"), "comment", `(?s)Attribute comment: PVE does not keep the comment "0"`},
		{map[string]any{"userid": "root@pam", "token_name": "ok", "expire": "next year"}, "expire", `(?s)Invalid RFC3339 String Value.*next year`},
	} {
		acctest.WantError(t, p.PlanCreate(t, "pve_api_token", c.attrs), c.attribute, regexp.MustCompile(c.want))
	}
}
