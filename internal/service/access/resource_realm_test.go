package access_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const (
	testBindPassword1 = "bind-secret-one-7f3a"
	testBindPassword2 = "bind-secret-two-91c4"
)

func ldapRealmBody(name, extra string) string {
	return fmt.Sprintf(`  realm     = %q
  type      = "ldap"
  server1   = "ldap1.example.com"
  base_dn   = "ou=people,dc=example,dc=com"
  user_attr = "uid"
%s`, name, extra)
}

// sentPasswords counts the requests to path that carried a password (the
// simulator's request log shows it redacted).
func sentPasswords(tg *acctest.Target, method, path string) int {
	n := 0
	for _, rec := range tg.Sim.Requests() {
		if rec.Method == method && rec.Path == path && len(rec.Params["password"]) > 0 {
			n++
		}
	}
	return n
}

func checkPasswordsSent(tg *acctest.Target, method, path string, want int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		if tg.Sim == nil {
			return nil
		}
		if got := sentPasswords(tg, method, path); got != want {
			return fmt.Errorf("%d %s %s carried a password, want %d", got, method, path, want)
		}
		return nil
	})
}

func TestAccRealm_ldapLifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	path := "/access/domains/" + name
	puts := &realmWrites{tg: tg, path: path, method: "PUT"}

	first := ldapRealmBody(name, fmt.Sprintf(`  comment   = "Corporate directory"
  server2   = "ldap2.example.com"
  port      = 636
  mode      = "ldaps"
  verify    = true
  bind_dn   = "cn=pve,dc=example,dc=com"
  password_wo         = %q
  password_wo_version = 1
  filter          = "(memberOf=cn=pve,ou=groups,dc=example,dc=com)"
  user_classes    = ["inetorgperson", "posixaccount"]
  group_classes   = ["groupOfNames"]
  group_dn        = "ou=groups,dc=example,dc=com"
  group_name_attr = "cn"
  sync_attributes = { email = "mail", firstname = "givenName" }
  case_sensitive  = false
  sync_defaults   = { scope = "both", remove_vanished = ["entry", "acl"], enable_new = false }
  tfa             = { type = "oath", digits = 8 }`, testBindPassword1))
	second := ldapRealmBody(name, fmt.Sprintf(`  comment   = "Corporate LDAP"
  port      = 636
  mode      = "ldaps"
  verify    = true
  bind_dn   = "cn=pve,dc=example,dc=com"
  password_wo         = %q
  password_wo_version = 2
  user_classes    = ["inetorgperson", "posixaccount"]
  group_classes   = ["groupOfNames"]
  group_dn        = "ou=groups,dc=example,dc=com"
  group_name_attr = "cn"
  sync_attributes = { email = "mail" }
  case_sensitive  = false
  sync_defaults   = { scope = "users" }`, testBindPassword2))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRealmDestroyed(tg, name),
		Steps: []resource.TestStep{
			{
				Config:           realmConfig(tg, first),
				ConfigPlanChecks: realmActions(realmAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("password_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("default"), knownvalue.Null()),
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("sync_defaults"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"scope": knownvalue.StringExact("both"), "enable_new": knownvalue.Bool(false),
						"remove_vanished": knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("acl"), knownvalue.StringExact("entry")}),
					})),
					checkRealm(tg, name, map[string]string{
						"comment": "Corporate directory", "server1": "ldap1.example.com", "server2": "ldap2.example.com",
						"port": "636", "mode": "ldaps", "verify": "1", "case-sensitive": "0",
						"user_classes": "inetorgperson,posixaccount", "group_classes": "groupOfNames",
						"sync_attributes":       "email=mail,firstname=givenName",
						"sync-defaults-options": "enable-new=0,remove-vanished=acl;entry,scope=both",
						"tfa":                   "type=oath,digits=8",
					}),
					checkPasswordsSent(tg, "POST", "/access/domains", 1),
					realmStateLacks(testBindPassword1),
				},
			},
			{
				// One PUT: changed options set, removed ones deleted, the
				// new password written for its new version.
				PreConfig:        puts.mark,
				Config:           realmConfig(tg, second),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(realmAddr, plancheck.ResourceActionUpdate), realmPlanLacks{testBindPassword2}}},
				ConfigStateChecks: []statecheck.StateCheck{
					puts.want(1),
					checkPasswordsSent(tg, "PUT", path, 1),
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("server2"), knownvalue.Null()),
					statecheck.ExpectKnownValue(realmAddr, tfjsonpath.New("tfa"), knownvalue.Null()),
					checkRealm(tg, name, map[string]string{"comment": "Corporate LDAP", "sync-defaults-options": "scope=users",
						"sync_attributes": "email=mail"}, "server2", "filter", "tfa"),
					realmStateLacks(testBindPassword1, testBindPassword2),
				},
			},
			{
				// Nothing changed: no write at all.
				PreConfig:         puts.mark,
				Config:            realmConfig(tg, second),
				ConfigPlanChecks:  realmActions(realmAddr, plancheck.ResourceActionNoop),
				ConfigStateChecks: []statecheck.StateCheck{puts.want(0)},
			},
			{
				ResourceName:            realmAddr,
				ImportState:             true,
				ImportStateId:           name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"password_wo_version"},
			},
			{
				// Generated configuration plans no change.
				Config:          tg.Config(""),
				ResourceName:    realmAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
				GenerateConfig:  true,
			},
			{
				// Deleted outside Terraform: the next apply creates it
				// again.
				PreConfig: func() {
					if err := tg.Client.DeleteRealm(context.Background(), name); err != nil {
						t.Fatalf("delete realm outside Terraform: %v", err)
					}
				},
				Config:           realmConfig(tg, second),
				ConfigPlanChecks: realmActions(realmAddr, plancheck.ResourceActionCreate),
			},
		},
	})
}

// A realm that exists is not taken over: the error says to import it.
func TestRealmExistingIsNotTakenOver(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	name := acctest.Name("tfacc")
	err := p.Client.CreateRealm(context.Background(), pveapi.RealmCreate{Realm: name, Type: "openid",
		Options: map[string]string{"issuer-url": "https://id.example.com", "client-id": "pve"}})
	if err != nil {
		t.Fatal(err)
	}
	diags := p.ApplyCreate(t, "pve_realm", map[string]any{"realm": name, "type": "openid", "issuer_url": "https://id.example.com", "client_id": "pve"})
	acctest.WantError(t, diags, "", regexp.MustCompile(`(?s)Realm Already Exists.*import it`))
}

// Attributes of another type, missing required ones and a built-in name
// with the wrong type are refused at plan time, each naming its attribute.
func TestRealmPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ldap := func(name string, value any) map[string]any {
		return map[string]any{"realm": "corp", "type": "ldap", "server1": "ldap1.example.com",
			"base_dn": "ou=people,dc=example,dc=com", "user_attr": "uid", name: value}
	}
	cases := []struct {
		attrs map[string]any
		want  string
	}{
		{ldap("issuer_url", "https://id.example.com"),
			`(?s)Attribute Not Available For This Realm Type.*issuer_url \(PVE option issuer-url\) is for openid realms\s+only; this realm's type is ldap`},
		{map[string]any{"realm": "corp", "type": "openid", "issuer_url": "https://id.example.com", "client_id": "pve",
			"tfa": map[string]any{"type": "oath"}}, `(?s)tfa \(PVE option tfa\) is for pam, pve, ldap and ad realms only`},
		{map[string]any{"realm": "corp", "type": "ad", "server1": "dc1.example.com"}, `(?s)Missing Realm Setting.*needs domain`},
		{map[string]any{"realm": "pam", "type": "pve"}, `(?s)Built-In Realm Type Mismatch.*set type = "pam"`},
		{map[string]any{"realm": "corp", "type": "pve"}, `(?s)Built-In Realm Type Mismatch.*set realm = "pve"`},
		{ldap("password_wo", "x"), `(?s)Missing Secret Version.*password_wo_version`},
		{ldap("sync_trigger", "1"), `(?s)Sync Trigger Without Sync`},
		{ldap("sync", map[string]any{}), `(?s)Missing Sync Scope.*sync.scope or sync_defaults.scope`},
		{ldap("sync_defaults", map[string]any{}), `(?s)Empty Sync Defaults`},
		{ldap("sync_attributes", map[string]string{"mail": "mail"}), `(?s)sync_attributes.*value must be one of`},
		{ldap("user_classes", []string{"inet orgperson"}), `(?s)LDAP attribute name`},
		{map[string]any{"realm": "p", "type": "ldap"}, `(?s)realm`},
	}
	for _, c := range cases {
		acctest.WantError(t, p.PlanCreate(t, "pve_realm", c.attrs), "", regexp.MustCompile(strings.ReplaceAll(c.want, " ", `\s+`)))
	}
}

// A realm whose sync defaults use PVE's deprecated full and purge flags
// imports as the remove_vanished PVE reads them into, plans empty, and a
// change writes the current form only.
func TestAccRealm_deprecatedSyncFlagsImport(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	err := tg.Client.CreateRealm(context.Background(), pveapi.RealmCreate{Realm: name, Type: "ad", Options: map[string]string{
		"server1": "dc1.example.com", "domain": "example.com", "sync-defaults-options": "full=1,purge=1,scope=both",
	}})
	if err != nil {
		t.Fatal(err)
	}
	body := func(syncDefaults string) string {
		return realmConfig(tg, fmt.Sprintf(`  realm = %q
  type = "ad"
  server1 = "dc1.example.com"
  domain = "example.com"
  sync_defaults = %s`, name, syncDefaults))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRealmDestroyed(tg, name),
		Steps: []resource.TestStep{
			{
				Config:          tg.Config(""),
				ResourceName:    realmAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
				GenerateConfig:  true,
			},
			{
				Config:             body(`{ scope = "both", remove_vanished = ["entry", "properties", "acl"] }`),
				ResourceName:       realmAddr,
				ImportState:        true,
				ImportStateId:      name,
				ImportStatePersist: true,
			},
			{
				Config:           body(`{ scope = "both", remove_vanished = ["entry", "properties", "acl"] }`),
				ConfigPlanChecks: realmActions(realmAddr, plancheck.ResourceActionNoop),
			},
			{
				Config:            body(`{ scope = "users" }`),
				ConfigPlanChecks:  realmActions(realmAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{checkRealm(tg, name, map[string]string{"sync-defaults-options": "scope=users"})},
			},
		},
	})
}
