package pvesim

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// asUser logs a user in and returns the request edit that sends its ticket
// and CSRF token.
func asUser(t *testing.T, e *env, user, password string) func(*http.Request) {
	t.Helper()
	tk := login(t, e, user, password)
	return func(r *http.Request) {
		withTicket(tk.Ticket)(r)
		r.Header.Set(csrfHeader, tk.CSRF)
	}
}

// editAccess changes user.cfg directly, as an administrator's edit would.
func editAccess(t *testing.T, e *env, fn func(a *Access)) {
	t.Helper()
	if err := e.sim.Update(func(c *Cluster) error { fn(c.Access); return nil }); err != nil {
		t.Fatal(err)
	}
}

// wantError fails unless the answer is that status with that whole
// message.
func (a *answer) wantError(t *testing.T, status int, message string) {
	t.Helper()
	if a.status != status || a.message != message {
		t.Fatalf("got %d %q (body %s), want %d %q", a.status, a.message, a.body, status, message)
	}
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// The whole life of a user (pve-access-control src/PVE/API2/User.pm
// create_user, read_user, index, update_user, delete_user): created with
// groups and a password, read back in PVE's shape, changed, and deleted
// with its memberships, ACL entries, password and tokens.
func TestUserLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	editAccess(t, e, func(a *Access) {
		a.Groups["ops"] = &Group{Comment: "Operations"}
		a.Groups["dev"] = &Group{}
	})
	e.call(t, http.MethodPost, "/access/users", form(
		"userid", "carol@pve", "password", "carol-pass-1", "groups", "ops,dev", "firstname", "Carol",
		"email", "carol@example.com", "comment", "on call", "expire", "4102444800",
	)).wantOK(t)

	var user map[string]any
	e.call(t, http.MethodGet, "/access/users/carol@pve", nil).decode(t, &user)
	if got := jsonText(user); got != `{"comment":"on call","email":"carol@example.com","enable":1,"expire":4102444800,`+
		`"firstname":"Carol","groups":["dev","ops"],"tokens":null}` {
		t.Errorf("read_user = %s", got)
	}
	var users []map[string]any
	e.call(t, http.MethodGet, "/access/users", form("full", "1")).decode(t, &users)
	if got := jsonText(users[0]); got != `{"comment":"on call","email":"carol@example.com","enable":1,"expire":4102444800,`+
		`"firstname":"Carol","groups":"dev,ops","realm-type":"pve","tokens":null,"userid":"carol@pve"}` {
		t.Errorf("index full = %s", got)
	}
	login(t, e, "carol@pve", "carol-pass-1")

	// create_user: "user '...' already exists" inside lock_user_config.
	e.call(t, http.MethodPost, "/access/users", form("userid", "carol@pve")).
		wantError(t, http.StatusInternalServerError, "create user failed: user 'carol@pve' already exists\n")

	// update_user: groups replace the memberships, append adds; a JSON ""
	// clears a field (a form field without a value is not given).
	e.call(t, http.MethodPut, "/access/users/carol@pve", form("groups", "dev", "lastname", "Smith", "enable", "0")).wantOK(t)
	user = nil
	e.call(t, http.MethodGet, "/access/users/carol@pve", nil).decode(t, &user)
	if got := jsonText(user); got != `{"comment":"on call","email":"carol@example.com","enable":0,"expire":4102444800,`+
		`"firstname":"Carol","groups":["dev"],"lastname":"Smith","tokens":null}` {
		t.Errorf("after update = %s", got)
	}
	e.call(t, http.MethodPut, "/access/users/carol@pve", form("groups", "ops", "append", "1", "enable", "1")).wantOK(t)
	e.call(t, http.MethodPut, "/access/users/carol@pve", nil, jsonBody(`{"comment":"","firstname":"  ","expire":0}`)).wantOK(t)
	user = nil
	e.call(t, http.MethodGet, "/access/users/carol@pve", nil).decode(t, &user)
	if got := jsonText(user); got != `{"email":"carol@example.com","enable":1,"expire":0,"groups":["dev","ops"],"lastname":"Smith","tokens":null}` {
		t.Errorf("after append and clearing = %s", got)
	}
	e.call(t, http.MethodPut, "/access/users/carol@pve", form("groups", "dev,nope")).
		wantError(t, http.StatusInternalServerError, "update user failed: no such group 'nope'\n")
	e.call(t, http.MethodPut, "/access/users/nobody@pve", form("comment", "x")).
		wantError(t, http.StatusInternalServerError, "no such user ('nobody@pve')\n")

	// A token of carol's with an ACL entry of its own.
	var gen struct {
		Info  map[string]any `json:"info"`
		Value string         `json:"value"`
		Full  string         `json:"full-tokenid"`
	}
	e.call(t, http.MethodPost, "/access/users/carol@pve/token/ci", nil).decode(t, &gen)
	editAccess(t, e, func(a *Access) {
		a.node("/vms").grant(aclUser, "carol@pve", "PVEAuditor", true)
		a.node("/vms").grant(aclToken, "carol@pve!ci", "PVEAuditor", true)
	})
	carolToken := gen.Full + "=" + gen.Value
	e.call(t, http.MethodGet, "/version", nil, withToken(carolToken)).wantOK(t)

	// delete_user: the user, its memberships, its ACL entries, its pve
	// password, its tokens and their secrets and ACL entries are gone.
	e.call(t, http.MethodDelete, "/access/users/carol@pve", nil).wantOK(t)
	e.call(t, http.MethodGet, "/version", nil, withToken(carolToken)).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	e.call(t, http.MethodPost, "/access/ticket", form("username", "carol@pve", "password", "carol-pass-1"), withoutAuth).
		wantStatus(t, http.StatusUnauthorized, msgLoginFailure)
	e.sim.View(func(c *Cluster) {
		a := c.Access
		if a.Users["carol@pve"] != nil || len(a.Groups["ops"].Users) != 0 || len(a.Groups["dev"].Users) != 0 {
			t.Errorf("left behind: user %v, ops %v, dev %v", a.Users["carol@pve"], a.Groups["ops"].Users, a.Groups["dev"].Users)
		}
		if n := a.ACL["/vms"]; len(n.Users) != 0 || len(n.Tokens) != 0 {
			t.Errorf("ACL entries left: %+v", n)
		}
	})
	// Recreated without a password, the old one no longer logs in (the pve
	// realm's delete_user dropped it).
	e.call(t, http.MethodPost, "/access/users", form("userid", "carol@pve")).wantOK(t)
	e.call(t, http.MethodPost, "/access/ticket", form("username", "carol@pve", "password", "carol-pass-1"), withoutAuth).
		wantStatus(t, http.StatusUnauthorized, msgLoginFailure)
	user = nil
	e.call(t, http.MethodGet, "/access/users/carol@pve", nil).decode(t, &user)
	if got := jsonText(user); got != `{"enable":1,"expire":0,"groups":[],"tokens":null}` {
		t.Errorf("recreated = %s", got)
	}
}

// jsonBody replaces the request body with a JSON object.
func jsonBody(body string) func(*http.Request) {
	return func(r *http.Request) {
		r.Body = io.NopCloser(strings.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Type", jsonType)
	}
}

// create_user stores the password through the realm before it checks the
// groups (pve-access-control src/PVE/API2/User.pm create_user,
// AccessControl.pm domain_set_password): the pve realm keeps it even when
// a group is missing; PAM needs a system account (Auth/PAM.pm
// store_password); a realm that does not exist fails only with a
// password.
func TestCreateUserPasswords(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/access/users", form("userid", "dan@pve", "password", "dan-pass-1", "groups", "nope")).
		wantError(t, http.StatusInternalServerError, "create user failed: no such group 'nope'\n")
	e.call(t, http.MethodPost, "/access/users", form("userid", "dan@pve")).wantOK(t)
	login(t, e, "dan@pve", "dan-pass-1")

	e.call(t, http.MethodPost, "/access/users", form("userid", "eve@pam", "password", "eve-pass-1")).
		wantError(t, http.StatusInternalServerError, "create user failed: change password failed: user 'eve' does not exist\n")
	e.call(t, http.MethodPost, "/access/users", form("userid", "eve@nowhere", "password", "eve-pass-1")).
		wantError(t, http.StatusInternalServerError, "create user failed: auth domain 'nowhere' does not exist\n")
	e.call(t, http.MethodPost, "/access/users", form("userid", "eve@nowhere", "enable", "0", "keys", "0")).wantOK(t)
	var users []map[string]any
	e.call(t, http.MethodGet, "/access/users", form("enabled", "0")).decode(t, &users)
	if got := jsonText(users); got != `[{"enable":0,"expire":0,"userid":"eve@nowhere"}]` {
		t.Errorf("disabled = %s", got)
	}
}

// The permission tests of the user methods (pve-access-control
// src/PVE/RPCEnvironment.pm exec_api2_perm_check 'userid-param' and
// 'userid-group' with groups_param), run before the parameters are checked.
func TestUserMethodPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{rootLogin, "helpdesk@pve=help-pass-1", "frank@pve=frank-pass-1"}})
	editAccess(t, e, func(a *Access) {
		delete(a.ACL, "/")
		a.Groups["ops"] = &Group{Users: []string{"frank@pve"}}
		a.Groups["dev"] = &Group{}
		a.node("/access/realm/pve").grant(aclUser, "helpdesk@pve", "PVEUserAdmin", false)
		a.node("/access/groups/ops").grant(aclUser, "helpdesk@pve", "PVEUserAdmin", false)
	})
	helpdesk := asUser(t, e, "helpdesk@pve", "help-pass-1")
	perm := func(what string) string {
		if what == "" {
			return "Permission check failed\n"
		}
		return "Permission check failed (" + what + ")\n"
	}
	e.call(t, http.MethodPost, "/access/users", form("userid", "gina@pve"), helpdesk).
		wantError(t, http.StatusForbidden, perm("/access/groups, User.Modify"))
	e.call(t, http.MethodPost, "/access/users", form("userid", "gina@pve", "groups", "ops,dev"), helpdesk).
		wantError(t, http.StatusForbidden, perm("/access/groups/dev, User.Modify"))
	e.call(t, http.MethodPost, "/access/users", form("userid", "gina@pam", "groups", "ops"), helpdesk).
		wantError(t, http.StatusForbidden, perm("/access/realm/pam, Realm.AllocateUser"))
	e.call(t, http.MethodPost, "/access/users", form("userid", "gina@pve", "groups", "ops"), helpdesk).wantOK(t)
	// The check runs before the schema's: a bad user id is verify_username's
	// die for anyone but root@pam (root@pam's token included).
	e.call(t, http.MethodPost, "/access/users", form("userid", "x"), helpdesk).
		wantError(t, http.StatusInternalServerError, "user name 'x' is too short\n")
	e.call(t, http.MethodPost, "/access/users", form("userid", "x")).
		wantError(t, http.StatusInternalServerError, "user name 'x' is too short\n")
	if a := e.call(t, http.MethodPost, "/access/users", form("userid", "x"), e.asRoot(t)); a.status != http.StatusBadRequest {
		t.Errorf("root@pam: %d %s", a.status, a.body)
	}

	// update_user: groups must be named; the user must be in one of the
	// caller's groups; a missing user is "no such user".
	e.call(t, http.MethodPut, "/access/users/frank@pve", form("comment", "x"), helpdesk).
		wantError(t, http.StatusForbidden, perm("/access/groups, User.Modify"))
	e.call(t, http.MethodPut, "/access/users/frank@pve", form("comment", "x", "groups", "ops"), helpdesk).wantOK(t)
	e.call(t, http.MethodPut, "/access/users/helpdesk@pve", form("groups", "ops"), helpdesk).
		wantError(t, http.StatusForbidden, perm(""))
	e.call(t, http.MethodPut, "/access/users/nobody@pve", form("groups", "ops"), helpdesk).
		wantError(t, http.StatusInternalServerError, "no such user ('nobody@pve')\n")

	// read_user now sees frank (User.Modify on his group), not root@pam.
	e.call(t, http.MethodGet, "/access/users/frank@pve", nil, helpdesk).wantOK(t)
	e.call(t, http.MethodGet, "/access/users/root@pam", nil, helpdesk).wantError(t, http.StatusForbidden, perm(""))

	// delete_user: Realm.AllocateUser, then 'userid-group'.
	e.call(t, http.MethodDelete, "/access/users/root@pam", nil, helpdesk).
		wantError(t, http.StatusForbidden, perm("/access/realm/pam, Realm.AllocateUser"))
	e.call(t, http.MethodDelete, "/access/users/helpdesk@pve", nil, helpdesk).wantError(t, http.StatusForbidden, perm(""))
	e.call(t, http.MethodDelete, "/access/users/gina@pve", nil, helpdesk).wantOK(t)
}

// root@pam may be deleted by whoever may delete pam users; parse_user_config
// brings it back enabled and bare (pve-access-control
// src/PVE/AccessControl.pm userconfig_force_defaults), without its tokens.
// A user that does not exist is no error for root@pam.
func TestDeleteRootAndMissingUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{rootLogin}})
	root := e.asRoot(t)
	e.call(t, http.MethodDelete, "/access/users/ghost@pve", nil, root).wantOK(t)
	e.call(t, http.MethodDelete, "/access/users/ghost@pve", nil).
		wantError(t, http.StatusInternalServerError, "no such user ('ghost@pve')\n")
	e.call(t, http.MethodDelete, "/access/users/root@pam", nil).wantOK(t)
	e.call(t, http.MethodGet, "/version", nil).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	var user map[string]any
	e.call(t, http.MethodGet, "/access/users/root@pam", nil, root).decode(t, &user)
	if got := jsonText(user); got != `{"enable":1,"expire":0,"groups":[],"tokens":null}` {
		t.Errorf("root@pam after delete = %s", got)
	}
	// PAM keeps the system account's password.
	login(t, e, "root@pam", rootPassword)
}
