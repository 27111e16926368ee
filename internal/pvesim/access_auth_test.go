package pvesim

import (
	"net/http"
	"testing"
)

func withToken(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "PVEAPIToken="+token) }
}

// A token authenticates only while its user is enabled and not expired and
// the token is in user.cfg and not expired (pve-access-control
// src/PVE/AccessControl.pm verify_token, check_user_enabled); a ticket
// only while its user is enabled (pve-manager PVE/HTTPServer.pm
// auth_handler); a login only for an enabled user (AccessControl.pm
// authenticate_user). Every refusal is the same 401.
func TestAuthFollowsUserConfig(t *testing.T) {
	t.Parallel()
	const bobToken = "bob@pve!ci=s3cret"
	e := newEnv(t, Options{Tokens: []string{testToken, bobToken}, Passwords: []string{testPassword}})
	e.call(t, http.MethodGet, "/version", nil, withToken(bobToken)).wantOK(t)
	tk := login(t, e, "alice@pve", "correct horse")
	e.call(t, http.MethodGet, "/version", nil, withTicket(tk.Ticket)).wantOK(t)

	edit := func(fn func(a *Access)) {
		t.Helper()
		if err := e.sim.Update(func(c *Cluster) error { fn(c.Access); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	edit(func(a *Access) { a.Users["bob@pve"].Tokens["ci"].Expire = 1 })
	e.call(t, http.MethodGet, "/version", nil, withToken(bobToken)).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	edit(func(a *Access) {
		a.Users["bob@pve"].Tokens["ci"].Expire = 0
		a.Users["bob@pve"].Enable = false
	})
	e.call(t, http.MethodGet, "/version", nil, withToken(bobToken)).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	edit(func(a *Access) {
		a.Users["bob@pve"].Enable = true
		delete(a.Users["bob@pve"].Tokens, "ci")
	})
	e.call(t, http.MethodGet, "/version", nil, withToken(bobToken)).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)

	edit(func(a *Access) { a.Users["alice@pve"].Expire = 1 })
	e.call(t, http.MethodGet, "/version", nil, withTicket(tk.Ticket)).wantStatus(t, http.StatusUnauthorized, msgAuthFailed)
	e.call(t, http.MethodPost, "/access/ticket", form("username", "alice@pve", "password", "correct horse"), withoutAuth).
		wantStatus(t, http.StatusUnauthorized, msgLoginFailure)
}

// GET /access/permissions (pve-access-control src/PVE/API2/AccessControl.pm
// permissions): the caller's own privileges by default, propagate as 0/1,
// on one path or on the effective paths; another user's need Sys.Audit on
// /access, an owned token's do not.
func TestPermissionsEndpoint(t *testing.T) {
	t.Parallel()
	const bobToken = "bob@pve!ci=s3cret"
	e := newEnv(t, Options{Tokens: []string{testToken, bobToken}})
	if err := e.sim.Update(func(c *Cluster) error {
		a := c.Access
		a.Roles["Auditor"] = map[string]bool{"VM.Audit": true}
		delete(a.ACL, "/")
		a.node("/vms").grant(aclUser, "bob@pve", "Auditor", false)
		a.node("/vms/100").grant(aclUser, "bob@pve", "Auditor", true)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var perms map[string]map[string]int
	e.call(t, http.MethodGet, "/access/permissions", nil, withToken(bobToken)).decode(t, &perms)
	if jsonText(perms) != `{"/vms":{"VM.Audit":0},"/vms/100":{"VM.Audit":1}}` {
		t.Errorf("own = %s", jsonText(perms))
	}
	perms = nil
	e.call(t, http.MethodGet, "/access/permissions", form("path", "/vms/101"), withToken(bobToken)).decode(t, &perms)
	if jsonText(perms) != `{"/vms/101":{}}` {
		t.Errorf("one path = %s", jsonText(perms))
	}
	e.call(t, http.MethodGet, "/access/permissions", form("userid", "root@pam"), withToken(bobToken)).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access, Sys.Audit)")
	perms = nil
	e.call(t, http.MethodGet, "/access/permissions", form("userid", "bob@pve", "path", "/vms/100")).decode(t, &perms)
	if jsonText(perms) != `{"/vms/100":{"VM.Audit":1}}` {
		t.Errorf("as root = %s", jsonText(perms))
	}
}

// The guest endpoints check the ACLs the access API manages: a token whose
// user holds PVEVMAdmin on a pool (and space on the storage) may create a
// VM in that pool, not outside it; the VM it made is then its to change,
// through the pool (pve-access-control src/PVE/RPCEnvironment.pm
// $compile_acl_path: pool roles reach the pool's guests; qemu-server
// src/PVE/API2/Qemu.pm create_vm: VM.Allocate on the VM or on the pool).
func TestGuestEndpointsUseACLs(t *testing.T) {
	t.Parallel()
	const bobToken = "bob@pve!ci=s3cret"
	e := newEnv(t, Options{Tokens: []string{testToken, bobToken}})
	e.call(t, http.MethodPost, "/pools", form("poolid", "dev")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		a := c.Access
		delete(a.ACL, "/")
		a.node("/pool/dev").grant(aclUser, "bob@pve", "PVEVMAdmin", true)
		a.node("/storage/local-lvm").grant(aclUser, "bob@pve", "PVEDatastoreUser", true)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	create := func(vmid, pool string) *answer {
		f := form("vmid", vmid, "memory", "512", "scsi0", "local-lvm:4")
		if pool != "" {
			f.Set("pool", pool)
		}
		return e.call(t, http.MethodPost, "/nodes/pve1/qemu", f, withToken(bobToken))
	}
	create("100", "").wantStatus(t, http.StatusForbidden, "Permission check failed")
	e.taskOK(t, create("101", "dev"))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/101/config", form("memory", "1024"), withToken(bobToken)).wantOK(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/101/config", form("scsi1", "local:4"), withToken(bobToken)).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/storage/local, Datastore.AllocateSpace)")
}
