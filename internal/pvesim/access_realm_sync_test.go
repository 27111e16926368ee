package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// Realm sync tests: pve-access-control src/PVE/API2/Domains.pm sync over
// the stand-in directory (SetDirectory).

func (e *env) syncRealm(t *testing.T, realm string, kv ...string) TaskInfo {
	t.Helper()
	return e.taskOK(t, e.call(t, http.MethodPost, "/access/domains/"+realm+"/sync", form(kv...)))
}

func wantLog(t *testing.T, info TaskInfo, want ...string) {
	t.Helper()
	if got := strings.Join(info.Log, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("task log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func (e *env) userEntry(t *testing.T, userid string) map[string]any {
	t.Helper()
	var u map[string]any
	a := e.call(t, http.MethodGet, "/access/users/"+userid, nil)
	a.wantOK(t)
	a.decode(t, &u)
	return u
}

// A sync creates the directory's users and groups ("NAME-REALM"); a second
// one with remove-vanished removes what is gone, with its ACL entries.
func TestRealmSyncCreatesAndRemoves(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t, "sync_attributes", "email=mail, firstname=givenName")
	e.sim.SetDirectory("ldap1", map[string]map[string]string{
		"alice": {"mail": "alice@example.com", "givenName": "Alice", "lastname": "Liddell"},
		"bob":   {"MAIL": "bob@example.com", "comment": "ops"},
	}, map[string][]string{
		"devs": {"alice", "bob", "ghost"},
		"ops":  {"bob"},
	})
	info := e.syncRealm(t, "ldap1", "scope", "both")
	if info.Type != "auth-realm-sync" || info.ID != "ldap1" || info.Node != "pve1" {
		t.Fatalf("task = %+v", info)
	}
	wantLog(t, info,
		"starting sync for realm ldap1",
		"got data from server, updating users and groups",
		"syncing users (remove-vanished opts: none)",
		"adding user 'alice@ldap1'",
		"adding user 'bob@ldap1'",
		"syncing groups (remove-vanished opts: none)",
		"adding group 'devs-ldap1'",
		"adding group 'ops-ldap1'",
		"successfully updated users and groups configuration",
		"TASK OK")
	alice := e.userEntry(t, "alice@ldap1")
	if alice["email"] != "alice@example.com" || alice["firstname"] != "Alice" || alice["lastname"] != "Liddell" || alice["enable"] != float64(1) {
		t.Fatalf("alice = %v", alice)
	}
	var groups []map[string]any
	e.call(t, http.MethodGet, "/access/groups", nil).decode(t, &groups)
	if got := jsonText(groups); got != `[{"groupid":"devs-ldap1","users":"alice@ldap1,bob@ldap1"},{"groupid":"ops-ldap1","users":"bob@ldap1"}]` {
		t.Fatalf("groups = %s", got)
	}

	// Local changes and ACL entries for what will vanish.
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.Users["alice@ldap1"].Comment = "local note"
		c.Access.Groups["devs-ldap1"].Comment = "Developers"
		c.Access.node("/vms").grant(aclUser, "bob@ldap1", "PVEVMUser", true)
		c.Access.node("/vms").grant(aclGroup, "ops-ldap1", "PVEAuditor", true)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Without remove-vanished only the synced fields change.
	e.syncRealm(t, "ldap1", "scope", "both")
	if e.userEntry(t, "alice@ldap1")["comment"] != "local note" {
		t.Fatalf("an update without properties dropped a local field")
	}

	e.sim.SetDirectory("ldap1", map[string]map[string]string{
		"alice": {"mail": "alice@corp.example.com"},
	}, map[string][]string{"devs": {"alice"}})
	info = e.syncRealm(t, "ldap1", "scope", "both", "remove-vanished", "acl;entry;properties")
	wantLog(t, info,
		"starting sync for realm ldap1",
		"got data from server, updating users and groups",
		"syncing users (remove-vanished opts: acl;entry;properties)",
		"deleting outdated existing users first",
		"remove user 'bob@ldap1'",
		"purge users 'bob@ldap1' ACL entries",
		"overwriting user 'alice@ldap1'",
		"syncing groups (remove-vanished opts: acl;entry;properties)",
		"deleting outdated existing groups first",
		"remove group 'ops-ldap1'",
		"purge groups 'ops-ldap1' ACL entries",
		"overwriting group 'devs-ldap1'",
		"successfully updated users and groups configuration",
		"TASK OK")
	e.call(t, http.MethodGet, "/access/users/bob@ldap1", nil).
		wantStatus(t, http.StatusInternalServerError, "no such user ('bob@ldap1')")
	// properties: alice is the directory's alice now, enabled as before.
	alice = e.userEntry(t, "alice@ldap1")
	if alice["email"] != "alice@corp.example.com" || alice["firstname"] != nil || alice["comment"] != nil || alice["enable"] != float64(1) {
		t.Fatalf("alice = %v", alice)
	}
	e.call(t, http.MethodGet, "/access/groups", nil).decode(t, &groups)
	if got := jsonText(groups); got != `[{"groupid":"devs-ldap1","users":"alice@ldap1"}]` {
		t.Fatalf("groups = %s", got)
	}
	e.sim.View(func(c *Cluster) {
		if n := c.Access.ACL["/vms"]; n != nil && (n.Users["bob@ldap1"] != nil || n.Groups["ops-ldap1"] != nil) {
			t.Errorf("ACL entries left: %+v", n)
		}
	})
}

// dry-run logs what would change and changes nothing.
func TestRealmSyncDryRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t)
	e.sim.SetDirectory("ldap1", map[string]map[string]string{"alice": {}}, nil)
	info := e.syncRealm(t, "ldap1", "scope", "users", "dry-run", "1")
	if info.Type != "auth-realm-sync-test" {
		t.Fatalf("task type %q", info.Type)
	}
	wantLog(t, info,
		"(dry test run) starting sync for realm ldap1",
		"got data from server, updating users",
		"syncing users (remove-vanished opts: none)",
		"adding user 'alice@ldap1'",
		"",
		"NOTE: Dry test run, changes were NOT written to the configuration.",
		"TASK OK")
	e.call(t, http.MethodGet, "/access/users/alice@ldap1", nil).
		wantStatus(t, http.StatusInternalServerError, "no such user ('alice@ldap1')")
}

// The realm's sync-defaults-options stand in for the parameters not
// given: scope and enable-new here.
func TestRealmSyncDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t, "sync-defaults-options", "scope=users,enable-new=0")
	e.sim.SetDirectory("ldap1", map[string]map[string]string{"alice": {}}, map[string][]string{"devs": {"alice"}})
	info := e.syncRealm(t, "ldap1")
	if !strings.Contains(strings.Join(info.Log, "\n"), "got data from server, updating users\n") {
		t.Fatalf("log = %q", info.Log)
	}
	if u := e.userEntry(t, "alice@ldap1"); u["enable"] != float64(0) {
		t.Fatalf("alice = %v", u)
	}
	var groups []map[string]any
	e.call(t, http.MethodGet, "/access/groups", nil).decode(t, &groups)
	if len(groups) != 0 {
		t.Fatalf("groups synced with scope users: %v", groups)
	}
	// The deprecated full flag has no effect any more: remove-vanished
	// always has a value (its default "none") by the time it is mapped.
	e.sim.SetDirectory("ldap1", map[string]map[string]string{}, map[string][]string{"devs": {"alice"}})
	info = e.syncRealm(t, "ldap1", "full", "1", "purge", "1")
	if !strings.Contains(strings.Join(info.Log, "\n"), "syncing users (remove-vanished opts: none)") {
		t.Fatalf("log = %q", info.Log)
	}
	e.userEntry(t, "alice@ldap1")
	// A parameter wins over the default; groups-only keeps the users.
	e.sim.SetDirectory("ldap1", map[string]map[string]string{"alice": {}}, map[string][]string{"devs": {"alice"}})
	e.syncRealm(t, "ldap1", "scope", "groups")
	e.call(t, http.MethodGet, "/access/groups", nil).decode(t, &groups)
	if jsonText(groups) != `[{"groupid":"devs-ldap1","users":"alice@ldap1"}]` {
		t.Fatalf("groups = %s", jsonText(groups))
	}
}

// Domains.pm sync: the checks before the worker.
func TestRealmSyncRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodPost, "/access/domains/nope/sync", form("scope", "both"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["realm"] != "Realm does not exist." {
		t.Fatalf("errors = %v", a.errors)
	}
	e.call(t, http.MethodPost, "/access/domains/pve/sync", form("scope", "both")).
		wantStatus(t, http.StatusInternalServerError, "Cannot sync realm type 'pve'! Only LDAP/AD realms can be synced.")
	e.createLDAPRealm(t)
	a = e.call(t, http.MethodPost, "/access/domains/ldap1/sync", nil)
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["scope"] != "Not passed as parameter and not defined in realm default sync options." {
		t.Fatalf("errors = %v", a.errors)
	}
	e.sim.SetPrivileges(testTokenUser, "User.Modify")
	e.call(t, http.MethodPost, "/access/domains/ldap1/sync", form("scope", "both")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/realm/ldap1, Realm.AllocateUser)")
	e.sim.SetPrivileges(testTokenUser, "Realm.AllocateUser")
	e.call(t, http.MethodPost, "/access/domains/ldap1/sync", form("scope", "both")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/groups, User.Modify)")
	e.sim.ClearPrivileges(testTokenUser)

	// The worker cannot reach a realm without a directory, and cannot
	// bind without the password.
	e.taskFails(t, e.call(t, http.MethodPost, "/access/domains/ldap1/sync", form("scope", "both")), msgDirectoryUnreachable)
	e.sim.SetDirectory("ldap1", map[string]map[string]string{}, nil)
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("delete", "password")).wantOK(t)
	e.taskFails(t, e.call(t, http.MethodPost, "/access/domains/ldap1/sync", form("scope", "both")), "missing password for realm ldap1")
	// An OpenID realm cannot be synced.
	e.call(t, http.MethodPost, "/access/domains", form("realm", "sso", "type", "openid",
		"issuer-url", "https://id.example.com", "client-id", "pve")).wantOK(t)
	e.call(t, http.MethodPost, "/access/domains/sso/sync", form("scope", "both")).
		wantStatus(t, http.StatusInternalServerError, "Cannot sync realm type 'openid'! Only LDAP/AD realms can be synced.")
}

// What the directory holds that PVE cannot take is skipped with a
// warning in the task log, which still ends OK.
func TestRealmSyncSkipsInvalidEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/access/domains", form("realm", "corp", "type", "ad", "server1", "dc.example.com",
		"domain", "example.com", "sync_attributes", "email=mail,phone=telephoneNumber")).wantOK(t)
	e.sim.SetDirectory("corp", map[string]map[string]string{
		"bad name": {},
		"carol":    {"mail": "not-an-email", "expire": "soon"},
	}, map[string][]string{"a:b": {"carol"}})
	info := e.syncRealm(t, "corp", "scope", "both")
	wantLog(t, info,
		"starting sync for realm corp",
		"skipping bad 'sync_attributes' entry \u2013 'phone' is not a valid target attribute",
		"value 'bad name@corp' does not look like a valid user name",
		"skipping attribute mapping 'expire'->'expire' for user 'carol@corp' - 400 invalid value 'soon'",
		"_root: type check ('integer') failed - got 'soon'",
		"skipping attribute mapping 'mail'->'email' for user 'carol@corp' - 400 invalid value 'not-an-email'",
		"_root: invalid format - value does not look like a valid email address",
		"",
		"group name 'a:b-corp' contains invalid characters",
		"got data from server, updating users and groups",
		"syncing users (remove-vanished opts: none)",
		"adding user 'carol@corp'",
		"syncing groups (remove-vanished opts: none)",
		"successfully updated users and groups configuration",
		"TASK OK")
}

// PVE 8.4's group name check also lets ":" and a few other characters
// through (pve-access-control before 6d5db6e).
func TestRealmSyncGroupNames84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.createLDAPRealm(t)
	e.sim.SetDirectory("ldap1", map[string]map[string]string{"alice": {}}, map[string][]string{"a:b": {"alice"}})
	info := e.syncRealm(t, "ldap1", "scope", "groups")
	if !strings.Contains(strings.Join(info.Log, "\n"), "adding group 'a:b-ldap1'") {
		t.Fatalf("log = %q", info.Log)
	}
}
