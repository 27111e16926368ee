package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// Realm API tests: pve-access-control src/PVE/API2/Domains.pm over
// domains.cfg (src/PVE/Auth/Plugin.pm and its plugins).

const ldapBindPassword = "b1nd-s3cret"

// createLDAPRealm creates the LDAP realm "ldap1" with a bind password.
func (e *env) createLDAPRealm(t *testing.T, kv ...string) {
	t.Helper()
	e.call(t, http.MethodPost, "/access/domains", form(append([]string{
		"realm", "ldap1", "type", "ldap", "server1", "ldap.example.com", "base_dn", "dc=example,dc=com",
		"user_attr", "uid", "bind_dn", "cn=sync,dc=example,dc=com", "password", ldapBindPassword,
	}, kv...)...)).wantOK(t)
}

func (e *env) realmConfig(t *testing.T, realm string) map[string]any {
	t.Helper()
	var cfg map[string]any
	a := e.call(t, http.MethodGet, "/access/domains/"+realm, nil)
	a.wantOK(t)
	a.decode(t, &cfg)
	return cfg
}

func (e *env) realmIndex(t *testing.T) string {
	t.Helper()
	var list []map[string]any
	e.call(t, http.MethodGet, "/access/domains", nil, withoutAuth).decode(t, &list)
	return jsonText(list)
}

// The index needs no credentials and lists realm, type, comment, the
// default marker and the tfa type (Domains.pm index).
func TestRealmIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	want := `[{"comment":"Linux PAM standard authentication","realm":"pam","type":"pam"},` +
		`{"comment":"Proxmox VE authentication server","realm":"pve","type":"pve"}]`
	if got := e.realmIndex(t); got != want {
		t.Fatalf("index = %s", got)
	}
	e.call(t, http.MethodPut, "/access/domains/pve", form("default", "1", "tfa", "type=oath,digits=8")).wantOK(t)
	want = `[{"comment":"Linux PAM standard authentication","realm":"pam","type":"pam"},` +
		`{"comment":"Proxmox VE authentication server","default":1,"realm":"pve","tfa":"oath","type":"pve"}]`
	if got := e.realmIndex(t); got != want {
		t.Fatalf("index = %s", got)
	}
}

// An LDAP realm from creation to deletion; the bind password is kept
// apart and no GET ever shows it.
func TestRealmLDAPLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t, "comment", "Corp directory", "port", "389", "verify", "1", "case-sensitive", "0")
	cfg := e.realmConfig(t, "ldap1")
	digest, _ := cfg["digest"].(string)
	delete(cfg, "digest")
	want := `{"base_dn":"dc=example,dc=com","bind_dn":"cn=sync,dc=example,dc=com","case-sensitive":0,` +
		`"comment":"Corp directory","port":389,"server1":"ldap.example.com","type":"ldap","user_attr":"uid","verify":1}`
	if got := jsonText(cfg); got != want || len(digest) != 40 {
		t.Fatalf("read = %s (digest %q)", got, digest)
	}
	if e.sim.auth.realmPasswords["ldap1"] != ldapBindPassword {
		t.Fatalf("bind password not stored")
	}
	if idx := e.realmIndex(t); !strings.Contains(idx, `{"comment":"Corp directory","realm":"ldap1","type":"ldap"}`) {
		t.Fatalf("index = %s", idx)
	}

	// Domains.pm update: digest first, then the changes; a stale digest
	// is refused inside the lock.
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("delete", "comment,verify", "port", "636",
		"mode", "ldaps", "digest", digest)).wantOK(t)
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("comment", "again", "digest", digest)).
		wantStatus(t, http.StatusInternalServerError,
			"update auth server failed: detected modified configuration - file changed by other user? Try again.")
	cfg = e.realmConfig(t, "ldap1")
	if cfg["comment"] != nil || cfg["verify"] != nil || cfg["port"] != float64(636) || cfg["mode"] != "ldaps" || cfg["digest"] == digest {
		t.Fatalf("after update: %v", cfg)
	}
	// A new password replaces the stored one, deleting it removes it.
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("password", "n3w")).wantOK(t)
	if e.sim.auth.realmPasswords["ldap1"] != "n3w" {
		t.Fatalf("password not replaced")
	}
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("delete", "password")).wantOK(t)
	if _, ok := e.sim.auth.realmPasswords["ldap1"]; ok {
		t.Fatalf("password not deleted")
	}
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("password", ldapBindPassword)).wantOK(t)
	for _, path := range []string{"/access/domains", "/access/domains/ldap1", "/access/domains/pam"} {
		if body := string(e.call(t, http.MethodGet, path, nil).body); strings.Contains(body, ldapBindPassword) || strings.Contains(body, "password") {
			t.Fatalf("GET %s shows the bind password: %s", path, body)
		}
	}
	// A required option cannot go: write_config refuses the section.
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("delete", "server1")).
		wantStatus(t, http.StatusInternalServerError,
			"update auth server failed: section 'ldap1' - missing value for required option 'server1'")
	// Another type's option is refused by check_config.
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("domain", "example.com")).
		wantStatus(t, http.StatusInternalServerError, "update auth server failed: unexpected property 'domain'")

	// Deleting the realm leaves its users and removes its password.
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.Users["carol@ldap1"] = &User{Enable: true}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodDelete, "/access/domains/ldap1", nil).wantOK(t)
	if _, ok := e.sim.auth.realmPasswords["ldap1"]; ok {
		t.Fatalf("password left after delete")
	}
	e.call(t, http.MethodGet, "/access/users/carol@ldap1", nil).wantOK(t)
	e.call(t, http.MethodGet, "/access/domains/ldap1", nil).
		wantStatus(t, http.StatusInternalServerError, "domain 'ldap1' does not exist")
	e.call(t, http.MethodDelete, "/access/domains/ldap1", nil).
		wantStatus(t, http.StatusInternalServerError, "delete auth server failed: authentication domain 'ldap1' does not exist")
}

// An OpenID realm: its own required options, a fixed username-claim, no
// tfa, no bind password and no connection check.
func TestRealmOpenIDLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/access/domains", form("realm", "sso", "type", "openid",
		"issuer-url", "https://id.example.com")).
		wantStatus(t, http.StatusInternalServerError, "add auth server failed: missing value for required option 'client-id'")
	e.call(t, http.MethodPost, "/access/domains", form("realm", "sso", "type", "openid",
		"issuer-url", "https://id.example.com", "client-id", "pve", "check-connection", "0")).
		wantStatus(t, http.StatusInternalServerError,
			"add auth server failed: 'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'")
	e.call(t, http.MethodPost, "/access/domains", form("realm", "sso", "type", "openid",
		"issuer-url", "https://id.example.com", "client-id", "pve", "tfa", "type=oath")).
		wantStatus(t, http.StatusInternalServerError, "add auth server failed: unexpected property 'tfa'")
	// A password is ignored for a type without one.
	e.call(t, http.MethodPost, "/access/domains", form("realm", "sso", "type", "openid",
		"issuer-url", "https://id.example.com", "client-id", "pve", "client-key", "k3y",
		"username-claim", "email", "autocreate", "1", "password", "ignored")).wantOK(t)
	if _, ok := e.sim.auth.realmPasswords["sso"]; ok {
		t.Fatalf("openid realm got a password")
	}
	cfg := e.realmConfig(t, "sso")
	delete(cfg, "digest")
	want := `{"autocreate":1,"client-id":"pve","client-key":"k3y","issuer-url":"https://id.example.com",` +
		`"type":"openid","username-claim":"email"}`
	if got := jsonText(cfg); got != want {
		t.Fatalf("read = %s", got)
	}
	// username-claim is fixed: the update schema has no such parameter.
	a := e.call(t, http.MethodPut, "/access/domains/sso", form("username-claim", "sub"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["username-claim"] == "" {
		t.Fatalf("errors = %v", a.errors)
	}
	e.call(t, http.MethodPut, "/access/domains/sso", form("comment", "SSO", "delete", "client-key", "autocreate", "0")).wantOK(t)
	cfg = e.realmConfig(t, "sso")
	if cfg["comment"] != "SSO" || cfg["client-key"] != nil || cfg["autocreate"] != float64(0) {
		t.Fatalf("after update: %v", cfg)
	}
	e.call(t, http.MethodPut, "/access/domains/sso", form("check-connection", "1")).
		wantStatus(t, http.StatusInternalServerError,
			"update auth server failed: 'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'")
	e.call(t, http.MethodDelete, "/access/domains/sso", nil).wantOK(t)
	if strings.Contains(e.realmIndex(t), "sso") {
		t.Fatalf("sso still listed")
	}
}

// Domains.pm create: the checks and their texts.
func TestRealmCreateRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		// pam and pve always exist, so their names are taken.
		{[]string{"realm", "pam", "type", "ldap"}, "add auth server failed: domain 'pam' already exists"},
		{[]string{"realm", "local2", "type", "pve"}, "add auth server failed: unable to create builtin type 'pve'"},
		{[]string{"realm", "ad1", "type", "ad", "server1", "dc.example.com"},
			"add auth server failed: missing value for required option 'domain'"},
		{[]string{"realm", "l1", "type", "ldap", "server1", "ldap.example.com"},
			"add auth server failed: missing value for required option 'base_dn'"},
		{[]string{"realm", "l1", "type", "ldap", "server1", "ldap.example.com", "base_dn", "dc=x", "user_attr", "uid",
			"issuer-url", "https://x"}, "add auth server failed: unexpected property 'issuer-url'"},
		{[]string{"realm", "l1", "type", "ldap", "server1", "ldap.example.com", "base_dn", "dc=x", "user_attr", "uid",
			"comment", "two\nlines"}, "add auth server failed: property contains a line feed"},
	} {
		e.call(t, http.MethodPost, "/access/domains", form(tc.kv...)).wantStatus(t, http.StatusInternalServerError, tc.want)
	}
	e.createLDAPRealm(t)
	e.call(t, http.MethodPost, "/access/domains", form("realm", "ldap1", "type", "openid")).
		wantStatus(t, http.StatusInternalServerError, "add auth server failed: domain 'ldap1' already exists")
}

// Only one realm is the default: taking the marker removes it from the
// others (Domains.pm create and update).
func TestRealmDefaultMarker(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t, "default", "1")
	if cfg := e.realmConfig(t, "ldap1"); cfg["default"] != float64(1) {
		t.Fatalf("ldap1 = %v", cfg)
	}
	e.call(t, http.MethodPost, "/access/domains", form("realm", "corp", "type", "ad", "server1", "dc.example.com",
		"domain", "example.com", "default", "1")).wantOK(t)
	if cfg := e.realmConfig(t, "ldap1"); cfg["default"] != nil {
		t.Fatalf("ldap1 kept the default: %v", cfg)
	}
	e.call(t, http.MethodPut, "/access/domains/pam", form("default", "1")).wantOK(t)
	idx := e.realmIndex(t)
	if strings.Count(idx, `"default"`) != 1 || !strings.Contains(idx, `"default":1,"realm":"pam"`) {
		t.Fatalf("index = %s", idx)
	}
	// default=0 is stored as it is, and takes nothing from the others.
	e.call(t, http.MethodPut, "/access/domains/corp", form("default", "0")).wantOK(t)
	if cfg := e.realmConfig(t, "corp"); cfg["default"] != float64(0) {
		t.Fatalf("corp = %v", cfg)
	}
	if !strings.Contains(e.realmIndex(t), `"default":1,"realm":"pam"`) {
		t.Fatalf("pam lost the default")
	}
}

// Domains.pm update on a realm that does not exist goes past its own
// check (autovivification) and fails in the plugin lookup.
func TestRealmUpdateRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPut, "/access/domains/pve", nil).
		wantStatus(t, http.StatusInternalServerError, "update auth server failed: no options specified")
	e.call(t, http.MethodPut, "/access/domains/nope", nil).
		wantStatus(t, http.StatusInternalServerError, "update auth server failed: no options specified")
	e.call(t, http.MethodPut, "/access/domains/nope", form("comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "update auth server failed: cannot lookup undefined type!")
	e.call(t, http.MethodPut, "/access/domains/nope", form("check-connection", "1")).
		wantStatus(t, http.StatusInternalServerError,
			"update auth server failed: 'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'")
	if strings.Contains(e.realmIndex(t), "nope") {
		t.Fatalf("a failed update created a realm")
	}
}

// pam and pve can be deleted, but parse_config brings them back with their
// default comment; a deleted comment comes back the same way.
func TestRealmBuiltinsComeBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPut, "/access/domains/pve", form("comment", "Local users", "tfa", "type=oath")).wantOK(t)
	cfg := e.realmConfig(t, "pve")
	if cfg["comment"] != "Local users" || cfg["tfa"] != "type=oath" {
		t.Fatalf("pve = %v", cfg)
	}
	e.call(t, http.MethodDelete, "/access/domains/pve", nil).wantOK(t)
	cfg = e.realmConfig(t, "pve")
	delete(cfg, "digest")
	if got := jsonText(cfg); got != `{"comment":"Proxmox VE authentication server","type":"pve"}` {
		t.Fatalf("pve after delete = %s", got)
	}
	e.call(t, http.MethodPut, "/access/domains/pam", form("delete", "comment")).wantOK(t)
	cfg = e.realmConfig(t, "pam")
	delete(cfg, "digest")
	if got := jsonText(cfg); got != `{"comment":"Linux PAM standard authentication","plugin":"PVE::Auth::PAM","type":"pam"}` {
		t.Fatalf("pam = %s", got)
	}
}

// The deprecated full and purge flags of sync-defaults-options become
// remove-vanished on write; a read maps them without dropping them.
func TestRealmSyncDefaultsMapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t, "sync-defaults-options", "scope=both,full=1,purge=1,enable-new=0")
	if got := e.realmConfig(t, "ldap1")["sync-defaults-options"]; got != "enable-new=0,remove-vanished=entry;properties;acl,scope=both" {
		t.Fatalf("sync-defaults-options = %v", got)
	}
	// A stored value with the flags (written by an older release) reads
	// with both.
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.Realms["ldap1"].Props["sync-defaults-options"] = "purge=1,scope=users"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := e.realmConfig(t, "ldap1")["sync-defaults-options"]; got != "purge=1,remove-vanished=acl,scope=users" {
		t.Fatalf("sync-defaults-options = %v", got)
	}
}

// Permissions as the methods declare them.
func TestRealmPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createLDAPRealm(t)
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit")
	e.call(t, http.MethodGet, "/access/domains/ldap1", nil).wantOK(t)
	e.call(t, http.MethodPost, "/access/domains", form("realm", "l2", "type", "ldap")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/realm, Realm.Allocate)")
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("comment", "x")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/realm, Realm.Allocate)")
	e.call(t, http.MethodDelete, "/access/domains/ldap1", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/realm, Realm.Allocate)")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit")
	e.call(t, http.MethodGet, "/access/domains/ldap1", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/realm, Realm.Allocate|Sys.Audit)")
	// The index is public.
	e.call(t, http.MethodGet, "/access/domains", nil).wantOK(t)
}

// check-connection binds to the directory: a realm without one is
// unreachable, a bind DN needs a password.
func TestRealmCheckConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	base := []string{"realm", "ldap1", "type", "ldap", "server1", "ldap.example.com", "base_dn", "dc=example,dc=com",
		"user_attr", "uid", "check-connection", "1"}
	e.call(t, http.MethodPost, "/access/domains", form(base...)).
		wantStatus(t, http.StatusInternalServerError, "add auth server failed: "+msgDirectoryUnreachable)
	e.sim.SetDirectory("ldap1", map[string]map[string]string{}, nil)
	e.call(t, http.MethodPost, "/access/domains", form(append(base, "bind_dn", "cn=sync")...)).
		wantStatus(t, http.StatusInternalServerError, "add auth server failed: missing password for realm ldap1")
	e.call(t, http.MethodPost, "/access/domains", form(append(base, "bind_dn", "cn=sync", "password", "pw")...)).wantOK(t)
	e.call(t, http.MethodPut, "/access/domains/ldap1", form("check-connection", "1", "delete", "password")).
		wantStatus(t, http.StatusInternalServerError, "update auth server failed: missing password for realm ldap1")
}
