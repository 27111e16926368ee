package access_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

// skipSyncOnLive keeps the sync tests to the simulator, whose directory
// hook stands in for an LDAP server.
func skipSyncOnLive(t *testing.T) {
	t.Helper()
	if acctest.IsLive() {
		t.Skip("needs the simulator's stand-in directory")
	}
}

func syncRealmConfig(tg *acctest.Target, name, syncBlock, trigger string) string {
	return realmConfig(tg, ldapRealmBody(name, fmt.Sprintf(`  bind_dn             = "cn=pve,dc=example,dc=com"
  password_wo         = %q
  password_wo_version = 1
  sync_attributes     = { email = "mail", firstname = "givenName" }
  sync_defaults       = { scope = "both", enable_new = true }
  sync                = %s
  sync_trigger        = %q`, testBindPassword1, syncBlock, trigger)))
}

// checkRealmUsers checks the users PVE has in the realm, and the members
// of the realm's groups (by the directory's group name).
func checkRealmUsers(tg *acctest.Target, realm string, users []string, groups map[string][]string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		ctx := context.Background()
		all, err := tg.Client.Users(ctx, false)
		if err != nil {
			return err
		}
		var got []string
		for _, u := range all {
			if strings.HasSuffix(u.UserID, "@"+realm) {
				got = append(got, strings.TrimSuffix(u.UserID, "@"+realm))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, users) {
			return fmt.Errorf("users of realm %s: %v, want %v", realm, got, users)
		}
		for group, members := range groups {
			g, err := tg.Client.GetGroup(ctx, group+"-"+realm)
			if err != nil {
				return err
			}
			var ids []string
			for _, m := range g.Members {
				ids = append(ids, strings.TrimSuffix(m, "@"+realm))
			}
			slices.Sort(ids)
			if !slices.Equal(ids, members) {
				return fmt.Errorf("members of group %s-%s: %v, want %v", group, realm, ids, members)
			}
		}
		return nil
	})
}

// A sync runs after create and again when sync_trigger changes; it
// creates the directory's users and groups, with the bind password the
// realm stores (the stand-in directory refuses a bind without it) and
// which never reaches the state. remove_vanished = ["entry"] deletes the
// user gone from the directory. A dry run changes nothing.
func TestAccRealm_syncWithDirectory(t *testing.T) {
	skipSyncOnLive(t)
	t.Parallel()
	testRealmSync(t, acctest.New(t))
}

// PVE 8.4 syncs the same way (its group name check is more lenient; the
// directory's group names pass both).
func TestAccRealm_syncWithDirectoryPVE84(t *testing.T) {
	skipSyncOnLive(t)
	t.Parallel()
	testRealmSync(t, acctest.NewOnPVE(t, "8.4"))
}

func testRealmSync(t *testing.T, tg *acctest.Target) {
	t.Helper()
	name := acctest.Name("tfacc")
	alice := map[string]string{"mail": "alice@example.com", "givenName": "Alice"}
	bob := map[string]string{"mail": "bob@example.com"}
	tg.Sim.SetDirectory(name, map[string]map[string]string{"alice": alice, "bob": bob},
		map[string][]string{"admins": {"alice"}, "devs": {"alice", "bob"}})
	syncs := &realmWrites{tg: tg, path: "/access/domains/" + name + "/sync", method: "POST"}
	removing := `{ remove_vanished = ["entry"] }`

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRealmDestroyed(tg, name),
		Steps: []resource.TestStep{
			{
				PreConfig: syncs.mark,
				Config:    syncRealmConfig(tg, name, `{}`, "1"),
				ConfigStateChecks: []statecheck.StateCheck{
					syncs.want(1),
					checkRealmUsers(tg, name, []string{"alice", "bob"}, map[string][]string{"admins": {"alice"}, "devs": {"alice", "bob"}}),
					acctest.CheckState(func(*tfjson.State) error {
						u, err := tg.Client.GetUser(context.Background(), "alice@"+name)
						if err != nil {
							return err
						}
						if u.Email != "alice@example.com" || u.Firstname != "Alice" || !bool(u.Enable) {
							return fmt.Errorf("alice synced as %+v", u)
						}
						return nil
					}),
					realmStateLacks(testBindPassword1),
				},
			},
			{
				// Same trigger, other sync options: no sync.
				PreConfig:         syncs.mark,
				Config:            syncRealmConfig(tg, name, removing, "1"),
				ConfigPlanChecks:  realmActions(realmAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{syncs.want(0)},
			},
			{
				// bob left the directory and carol came; a dry run shows it
				// and changes nothing.
				PreConfig: func() {
					tg.Sim.SetDirectory(name, map[string]map[string]string{"alice": alice, "carol": {"mail": "carol@example.com"}},
						map[string][]string{"admins": {"alice"}, "devs": {"alice", "carol"}})
					syncs.mark()
				},
				Config: syncRealmConfig(tg, name, `{ remove_vanished = ["entry"], dry_run = true }`, "2"),
				ConfigStateChecks: []statecheck.StateCheck{
					syncs.want(1),
					checkRealmUsers(tg, name, []string{"alice", "bob"}, map[string][]string{"devs": {"alice", "bob"}}),
				},
			},
			{
				// A new trigger syncs for real: bob is removed, carol added.
				PreConfig: syncs.mark,
				Config:    syncRealmConfig(tg, name, removing, "3"),
				ConfigStateChecks: []statecheck.StateCheck{
					syncs.want(1),
					checkRealmUsers(tg, name, []string{"alice", "carol"}, map[string][]string{"devs": {"alice", "carol"}}),
					realmStateLacks(testBindPassword1),
				},
			},
		},
	})
}

// A failed sync says why, with the task log, and the next plan tries
// it again.
func TestAccRealm_syncFailureIsRetried(t *testing.T) {
	skipSyncOnLive(t)
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	config := func(trigger string) string {
		return realmConfig(tg, ldapRealmBody(name, fmt.Sprintf("  sync = { scope = \"users\" }\n  sync_trigger = %q\n", trigger)))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRealmDestroyed(tg, name),
		Steps: []resource.TestStep{
			{
				PreConfig: func() { tg.Sim.SetDirectory(name, map[string]map[string]string{"dave": {}}, nil) },
				Config:    config("1"),
			},
			{
				// No directory answers: the sync task fails.
				PreConfig:   func() { tg.Sim.SetDirectory(name, nil, nil) },
				Config:      config("2"),
				ExpectError: regexp.MustCompile(`(?s)Unable To Sync Realm.*Connection refused`),
			},
			{
				PreConfig:        func() { tg.Sim.SetDirectory(name, map[string]map[string]string{"dave": {}, "erin": {}}, nil) },
				Config:           config("2"),
				ConfigPlanChecks: realmActions(realmAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					checkRealmUsers(tg, name, []string{"dave", "erin"}, nil),
				},
			},
		},
	})
}

// Neither the bind password nor the client key reaches a trace log of
// Terraform and the provider. The harness echoes each configuration it
// writes into the log (lines starting with "  | "), where the test's own
// literals are; those lines are not what is scanned. Not parallel: it
// sets the environment of the whole test process.
func TestAccRealm_secretsStayOutOfLogs(t *testing.T) {
	skipSyncOnLive(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	t.Setenv("TF_ACC_LOG", "trace")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	oidc := acctest.Name("tfacc")
	tg.Sim.SetDirectory(name, map[string]map[string]string{"alice": {}}, nil)
	secrets := []string{testBindPassword1, testBindPassword2, testClientKey1, testClientKey2}
	config := func(version int, key string) string {
		return syncRealmConfig(tg, name, `{}`, fmt.Sprint(version)) + fmt.Sprintf(`
resource "pve_realm" "oidc" {
  realm                 = %q
  type                  = "openid"
  issuer_url            = "https://id.example.com"
  client_id             = "pve"
  client_key_wo         = %q
  client_key_wo_version = %d
}
`, oidc, key, version)
	}
	second := strings.Replace(config(2, testClientKey2), testBindPassword1, testBindPassword2, 1)
	second = strings.Replace(second, "password_wo_version = 1", "password_wo_version = 2", 1)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(1, testClientKey1), ConfigStateChecks: []statecheck.StateCheck{realmStateLacks(secrets...)}},
			{Config: second, ConfigStateChecks: []statecheck.StateCheck{realmStateLacks(secrets...)}},
		},
	})

	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "  | ") {
			continue
		}
		scanned++
		for _, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("the trace log holds a secret of %d characters", len(s))
			}
		}
	}
	if scanned < 1000 || !bytes.Contains(data, []byte("sdk.framework")) {
		t.Fatalf("the trace log has %d lines and no provider lines: the scan proves nothing", scanned)
	}
	if !bytes.Contains(data, []byte("PVE API request")) {
		t.Error("the trace log shows no PVE API requests")
	}
}

// A token holding only the access feature's privileges manages a realm
// and syncs it.
func TestAccRealmWithAccessPrivilegesOnly(t *testing.T) {
	skipSyncOnLive(t)
	t.Parallel()
	tg := acctest.NewRestricted(t, "9.1", privilegesOf(t, access.PVE9, "access"))
	name := acctest.Name("tfacc")
	tg.Sim.SetDirectory(name, map[string]map[string]string{"alice": {}}, map[string][]string{"admins": {"alice"}})
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRealmDestroyed(tg, name),
		Steps: []resource.TestStep{{
			Config:            syncRealmConfig(tg, name, `{}`, "1"),
			ConfigStateChecks: []statecheck.StateCheck{checkRealmUsers(tg, name, []string{"alice"}, map[string][]string{"admins": {"alice"}})},
		}},
	})
}
