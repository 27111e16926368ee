package pvesim

import (
	"net/http"
	"testing"
)

type generatedToken struct {
	Info  map[string]any `json:"info"`
	Value string         `json:"value"`
	Full  string         `json:"full-tokenid"`
}

// API tokens (pve-access-control src/PVE/API2/User.pm generate_token,
// token_index, read_token, update_token_info, remove_token;
// TokenConfig.pm): a new token is privilege-separated unless asked, its
// secret (a UUID) authenticates at once, a separated token holds only what
// its own ACL entries give and its user also holds, and removing it ends
// its secret and drops its ACL entries.
func TestTokenLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{"hank@pve=hank-pass-1"}})
	editAccess(t, e, func(a *Access) {
		delete(a.ACL, "/")
		a.node("/vms").grant(aclUser, "hank@pve", "PVEVMAdmin", true)
	})
	var gen generatedToken
	e.call(t, http.MethodPost, "/access/users/hank@pve/token/ci", form("comment", "pipeline")).decode(t, &gen)
	if jsonText(gen.Info) != `{"comment":"pipeline","privsep":1}` || gen.Full != "hank@pve!ci" || !uuidShape.MatchString(gen.Value) {
		t.Fatalf("generate_token = %+v", gen)
	}
	// The info echoes the parameters as given: strings.
	var full generatedToken
	e.call(t, http.MethodPost, "/access/users/hank@pve/token/full", form("privsep", "0", "expire", "0")).decode(t, &full)
	if jsonText(full.Info) != `{"expire":"0","privsep":"0"}` || full.Value == gen.Value {
		t.Errorf("generate_token privsep 0 = %+v", full)
	}
	a := e.call(t, http.MethodPost, "/access/users/hank@pve/token/ci", nil)
	a.wantError(t, http.StatusBadRequest, "Parameter verification failed.\n")
	if a.errors["tokenid"] != "Token already exists." {
		t.Errorf("errors = %v", a.errors)
	}
	// root@pam's token is not root@pam: the check refuses a missing user.
	e.call(t, http.MethodPost, "/access/users/nobody@pve/token/ci", nil).
		wantError(t, http.StatusForbidden, "Permission check failed\n")

	ci := withToken(gen.Full + "=" + gen.Value)
	fullToken := withToken(full.Full + "=" + full.Value)
	perms := func(edit func(*http.Request), path string) string {
		t.Helper()
		var out map[string]map[string]int
		e.call(t, http.MethodGet, "/access/permissions", form("path", path), edit).decode(t, &out)
		return jsonText(out[path])
	}
	// Separated: nothing until its own entry; then only that entry's
	// privileges, and only where its user has them too.
	if got := perms(ci, "/vms/100"); got != `{}` {
		t.Errorf("separated token without ACL = %s", got)
	}
	if got := perms(fullToken, "/vms/100"); got == `{}` {
		t.Errorf("unseparated token has nothing")
	}
	editAccess(t, e, func(a *Access) {
		a.node("/vms/100").grant(aclToken, "hank@pve!ci", "PVEAuditor", false)
		a.node("/storage").grant(aclToken, "hank@pve!ci", "PVEAuditor", true)
	})
	if got := perms(ci, "/vms/100"); got != `{"VM.Audit":0,"VM.GuestAgent.Audit":0}` {
		t.Errorf("separated token on /vms/100 = %s", got)
	}
	if got := perms(ci, "/storage/local"); got != `{}` {
		t.Errorf("separated token beyond its user = %s", got)
	}

	var list []map[string]any
	e.call(t, http.MethodGet, "/access/users/hank@pve/token", nil).decode(t, &list)
	if got := jsonText(list); got != `[{"comment":"pipeline","expire":0,"privsep":1,"tokenid":"ci"},{"expire":0,"privsep":0,"tokenid":"full"}]` {
		t.Errorf("token_index = %s", got)
	}
	var info map[string]any
	e.call(t, http.MethodGet, "/access/users/hank@pve/token/ci", nil).decode(t, &info)
	if got := jsonText(info); got != `{"comment":"pipeline","expire":0,"privsep":1}` {
		t.Errorf("read_token = %s", got)
	}
	e.call(t, http.MethodGet, "/access/users/hank@pve/token/nope", nil).
		wantError(t, http.StatusInternalServerError, "no such token 'nope' for user 'hank@pve'\n")

	// update_token_info answers the changed token; regenerate swaps the
	// secret; delete takes only the comment.
	e.call(t, http.MethodPut, "/access/users/hank@pve/token/ci", form("expire", "4102444800")).decode(t, &info)
	if got := jsonText(info); got != `{"comment":"pipeline","expire":"4102444800","privsep":1}` {
		t.Errorf("update_token_info = %s", got)
	}
	e.call(t, http.MethodPut, "/access/users/hank@pve/token/ci", form("delete", "expire")).
		wantError(t, http.StatusInternalServerError,
			"updating token info failed: 400 Parameter verification failed.\ndelete: unknown option 'expire'\n")
	info = nil
	e.call(t, http.MethodPut, "/access/users/hank@pve/token/ci", form("delete", "comment", "regenerate", "1")).decode(t, &info)
	if info["full-tokenid"] != "hank@pve!ci" || !uuidShape.MatchString(info["value"].(string)) || info["comment"] != nil {
		t.Fatalf("regenerate = %s", jsonText(info))
	}
	e.call(t, http.MethodGet, "/version", nil, ci).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	ci = withToken("hank@pve!ci=" + info["value"].(string))
	e.call(t, http.MethodGet, "/version", nil, ci).wantOK(t)

	// remove_token: the secret stops working; its ACL entries go.
	e.call(t, http.MethodDelete, "/access/users/hank@pve/token/ci", nil).wantOK(t)
	e.call(t, http.MethodGet, "/version", nil, ci).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	e.sim.View(func(c *Cluster) {
		if n := c.Access.ACL["/vms/100"]; len(n.Tokens) != 0 {
			t.Errorf("token ACL left: %v", n.Tokens)
		}
	})
	// A new token of the same name starts without the old entries.
	e.call(t, http.MethodPost, "/access/users/hank@pve/token/ci", nil).decode(t, &gen)
	if got := perms(withToken(gen.Full+"="+gen.Value), "/vms/100"); got != `{}` {
		t.Errorf("recreated token = %s", got)
	}
}

// Who may manage tokens: the user itself ('userid-param', 'self'), or
// whoever has User.Modify over the user ('userid-group'); a token is not
// its user, so it needs User.Modify (pve-access-control
// src/PVE/API2/User.pm generate_token, RPCEnvironment.pm
// exec_api2_perm_check).
func TestTokenPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{"ivy@pve=ivy-pass-1", "jack@pve=jack-pass-1"}})
	editAccess(t, e, func(a *Access) { delete(a.ACL, "/") })
	ivy := asUser(t, e, "ivy@pve", "ivy-pass-1")
	var gen generatedToken
	e.call(t, http.MethodPost, "/access/users/ivy@pve/token/own", form("privsep", "0"), ivy).decode(t, &gen)
	own := withToken(gen.Full + "=" + gen.Value)
	e.call(t, http.MethodPost, "/access/users/ivy@pve/token/more", nil, own).wantError(t, http.StatusForbidden, "Permission check failed\n")
	e.call(t, http.MethodGet, "/access/users/ivy@pve/token", nil, own).wantError(t, http.StatusForbidden, "Permission check failed\n")
	e.call(t, http.MethodGet, "/access/users/jack@pve/token", nil, ivy).wantError(t, http.StatusForbidden, "Permission check failed\n")
	// A missing user is a refusal for anyone but root@pam.
	e.call(t, http.MethodGet, "/access/users/nobody@pve/token", nil, ivy).wantError(t, http.StatusForbidden, "Permission check failed\n")
	editAccess(t, e, func(a *Access) {
		a.node("/access/groups").grant(aclUser, "ivy@pve", "PVEUserAdmin", false)
	})
	e.call(t, http.MethodPost, "/access/users/ivy@pve/token/more", nil, own).wantOK(t)
	e.call(t, http.MethodDelete, "/access/users/jack@pve/token/none", nil, ivy).
		wantError(t, http.StatusInternalServerError, "no such token 'none' for user 'jack@pve'\n")
}

// PUT /access/password (pve-access-control src/PVE/API2/AccessControl.pm
// change_password, RPCEnvironment.pm reauth_user_for_user_modification):
// root@pam changes any password; a user changes its own with its current
// one as confirmation; another user's needs Realm.AllocateUser and
// User.Modify, never root@pam's nor a pam user's; tokens are refused (the
// schema's allowtoken).
func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{rootLogin, "kim@pve=kim-pass-1", "lee@pve=lee-pass-1"}})
	editAccess(t, e, func(a *Access) {
		delete(a.ACL, "/")
		a.Users["sys@pam"] = &User{Enable: true}
		a.node("/access").grant(aclUser, "lee@pve", "PVEUserAdmin", true)
	})
	root := e.asRoot(t)
	e.call(t, http.MethodPut, "/access/password", form("userid", "kim@pve", "password", "kim-pass-2"), root).wantOK(t)
	e.call(t, http.MethodPost, "/access/ticket", form("username", "kim@pve", "password", "kim-pass-1"), withoutAuth).
		wantStatus(t, http.StatusUnauthorized, msgLoginFailure)
	kim := asUser(t, e, "kim@pve", "kim-pass-2")

	a := e.call(t, http.MethodPut, "/access/password", form("userid", "kim@pve", "password", "kim-pass-3"), kim)
	a.wantError(t, http.StatusBadRequest, "Parameter verification failed.\n")
	if a.errors["confirmation-password"] != "password is required to modify user" {
		t.Errorf("errors = %v", a.errors)
	}
	e.call(t, http.MethodPut, "/access/password", form("userid", "kim@pve", "password", "kim-pass-3", "confirmation-password", "wrong"), kim).
		wantError(t, http.StatusInternalServerError, "invalid credentials\n")
	e.call(t, http.MethodPut, "/access/password", form("userid", "kim@pve", "password", "kim-pass-3", "confirmation-password", "kim-pass-2"), kim).wantOK(t)
	login(t, e, "kim@pve", "kim-pass-3")

	// Someone else's: the 'and' branch refuses naming the realm path.
	e.call(t, http.MethodPut, "/access/password", form("userid", "lee@pve", "password", "lee-pass-2", "confirmation-password", "kim-pass-3"), kim).
		wantError(t, http.StatusForbidden, "Permission check failed (/access/realm/pve, Realm.AllocateUser)\n")
	lee := asUser(t, e, "lee@pve", "lee-pass-1")
	e.call(t, http.MethodPut, "/access/password", form("userid", "kim@pve", "password", "kim-pass-4", "confirmation-password", "lee-pass-1"), lee).wantOK(t)
	login(t, e, "kim@pve", "kim-pass-4")
	e.call(t, http.MethodPut, "/access/password", form("userid", "root@pam", "password", "root-pass-2", "confirmation-password", "lee-pass-1"), lee).
		wantError(t, http.StatusForbidden, "Permission check failed\n")
	e.call(t, http.MethodPut, "/access/password", form("userid", "sys@pam", "password", "sys-pass-22", "confirmation-password", "lee-pass-1"), lee).
		wantError(t, http.StatusForbidden, "Permission check failed\n")
	e.call(t, http.MethodPut, "/access/password", form("userid", "nobody@pve", "password", "nobody-pass", "confirmation-password", "lee-pass-1"), lee).
		wantError(t, http.StatusInternalServerError, "no such user ('nobody@pve')\n")

	// root@pam: PAM's store needs the system account.
	e.call(t, http.MethodPut, "/access/password", form("userid", "sys@pam", "password", "sys-pass-22"), root).
		wantError(t, http.StatusInternalServerError, "change password failed: user 'sys' does not exist\n")
	e.call(t, http.MethodPut, "/access/password", form("userid", "root@pam", "password", "root-pass-2"), root).wantOK(t)
	login(t, e, "root@pam", "root-pass-2")

	e.call(t, http.MethodPut, "/access/password", form("userid", "kim@pve", "password", "kim-pass-5")).
		wantError(t, http.StatusForbidden, "Permission check failed (URI '/access/password' not available with API token, need proper ticket.\n)\n")
}

// PVE 8.4's update_token_info has neither delete nor regenerate (added by
// pve-access-control 73652d3 and ea5d51c): its API schema refuses them.
func TestUpdateTokenPVE84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	a := e.call(t, http.MethodPut, "/access/users/root@pam/token/test", form("regenerate", "1", "delete", "comment"))
	a.wantError(t, http.StatusBadRequest, "Parameter verification failed.\n")
	if len(a.errors) != 2 || a.errors["regenerate"] == "" || a.errors["delete"] == "" {
		t.Errorf("errors = %v", a.errors)
	}
	var info map[string]any
	e.call(t, http.MethodPut, "/access/users/root@pam/token/test", form("comment", "ci")).decode(t, &info)
	if got := jsonText(info); got != `{"comment":"ci","expire":0,"privsep":0}` {
		t.Errorf("update_token_info = %s", got)
	}
}
