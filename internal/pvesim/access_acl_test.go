package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

const bobCI = "bob@pve!ci=s3cret"

// aclEnv is a simulator with root's test token and bob@pve's token
// bob@pve!ci (no privilege separation), whose seeded Administrator entry
// on "/" is gone: bob holds nothing until a test grants it.
func aclEnv(t *testing.T, version string) *env {
	t.Helper()
	e := newEnv(t, Options{PVEVersion: version, Tokens: []string{testToken, bobCI}})
	if err := e.sim.Update(func(c *Cluster) error {
		delete(c.Access.ACL, "/")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return e
}

// aclText is GET /access/acl as "propagate:path:type:ugid:roleid" lines.
func aclText(t *testing.T, e *env, edits ...func(*http.Request)) string {
	t.Helper()
	var entries []struct {
		Path, Type, Ugid, Roleid string
		Propagate                int
	}
	e.call(t, http.MethodGet, "/access/acl", nil, edits...).decode(t, &entries)
	var lines []string
	for _, x := range entries {
		lines = append(lines, strings.Join([]string{itoa(x.Propagate), x.Path, x.Type, x.Ugid, x.Roleid}, ":"))
	}
	return strings.Join(lines, " ")
}

// POST, PUT and DELETE /access/groups (pve-access-control
// src/PVE/API2/Group.pm create_group, update_group, delete_group).
func TestGroupsWrite(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	e.call(t, http.MethodPost, "/access/groups", form("groupid", "ops", "comment", "Operators")).wantOK(t)
	e.call(t, http.MethodPost, "/access/groups", form("groupid", "ops")).
		wantStatus(t, http.StatusInternalServerError, "create group failed: group 'ops' already exists")
	var group map[string]any
	e.call(t, http.MethodGet, "/access/groups/ops", nil).decode(t, &group)
	if jsonText(group) != `{"comment":"Operators","members":[]}` {
		t.Errorf("group = %s", jsonText(group))
	}
	e.call(t, http.MethodPut, "/access/groups/ops", form("comment", "Ops team")).wantOK(t)
	e.call(t, http.MethodGet, "/access/groups/ops", nil).decode(t, &group)
	if group["comment"] != "Ops team" {
		t.Errorf("updated = %s", jsonText(group))
	}
	e.call(t, http.MethodPut, "/access/groups/nope", form("comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "update group failed: group 'nope' does not exist")
	e.call(t, http.MethodDelete, "/access/groups/nope", nil).
		wantStatus(t, http.StatusInternalServerError, "delete group failed: group 'nope' does not exist")

	// delete_group_acl: the group's entries go with it, others stay.
	e.call(t, http.MethodPut, "/access/acl", form("path", "/vms", "groups", "ops", "roles", "PVEVMUser")).wantOK(t)
	e.call(t, http.MethodPut, "/access/acl", form("path", "/vms", "users", "bob@pve", "roles", "PVEAuditor")).wantOK(t)
	e.call(t, http.MethodDelete, "/access/groups/ops", nil).wantOK(t)
	if got := aclText(t, e); got != "1:/vms:user:bob@pve:PVEAuditor" {
		t.Errorf("acl after delete = %s", got)
	}
	e.call(t, http.MethodGet, "/access/groups/ops", nil).
		wantStatus(t, http.StatusInternalServerError, "group 'ops' does not exist")

	// Group.Allocate on /access/groups.
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit")
	e.call(t, http.MethodPost, "/access/groups", form("groupid", "x")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/groups, Group.Allocate)")
}

// PUT /access/acl's checks outside the lock (pve-access-control
// src/PVE/API2/ACL.pm update_acl, AccessControl.pm normalize_path and
// check_path) and inside it, with the "ACL update failed" prefix.
func TestACLUpdateChecks(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	put := func(kv ...string) *answer {
		t.Helper()
		return e.call(t, http.MethodPut, "/access/acl", form(kv...))
	}
	a := put("path", "/vms", "roles", "PVEAuditor")
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	want := "either 'users', 'groups' or 'tokens' is required."
	if a.errors["users"] != want || a.errors["groups"] != want || a.errors["tokens"] != want {
		t.Errorf("errors = %v", a.errors)
	}
	for _, path := range []string{"/nowhere", "/vms/99", "/vms/x", "/vms/100/disk"} {
		a = put("path", path, "users", "bob@pve", "roles", "PVEAuditor")
		a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
		if a.errors["path"] != "invalid ACL path '"+path+"'" {
			t.Errorf("%s: errors = %v", path, a.errors)
		}
	}
	// normalize_path refuses other characters even for a delete;
	// check_path is skipped there, so old entries can go.
	a = put("path", "/vms/1 0", "users", "bob@pve", "roles", "PVEAuditor", "delete", "1")
	if a.errors["path"] != "invalid ACL path '/vms/1 0'" {
		t.Errorf("delete, bad characters: %d %v", a.status, a.errors)
	}
	put("path", "/nowhere", "users", "bob@pve", "roles", "PVEAuditor", "delete", "1").wantOK(t)

	e.call(t, http.MethodPost, "/access/groups", form("groupid", "ops")).wantOK(t)
	cases := []struct {
		kv   []string
		want string
	}{
		{[]string{"roles", "Ghost", "users", "bob@pve"}, "role 'Ghost' does not exist"},
		{[]string{"roles", "PVEAuditor", "groups", "ghosts"}, "group 'ghosts' does not exist"},
		{[]string{"roles", "PVEAuditor", "users", "ghost@pve"}, "user 'ghost@pve' does not exist"},
		{[]string{"roles", "PVEAuditor", "tokens", "ghost@pve!tk"}, "no such user ('ghost@pve')"},
		{[]string{"roles", "PVEAuditor", "tokens", "bob@pve!other"}, "no such token 'other' for user 'bob@pve'"},
		// One failure leaves everything as it was: the group's entry is
		// not written either.
		{[]string{"roles", "PVEAuditor", "groups", "ops", "users", "bob@pve,ghost@pve"}, "user 'ghost@pve' does not exist"},
		{[]string{"roles", "PVEAuditor,Ghost", "groups", "ops"}, "role 'Ghost' does not exist"},
	}
	for _, c := range cases {
		put(append([]string{"path", "/vms"}, c.kv...)...).
			wantStatus(t, http.StatusInternalServerError, "ACL update failed: "+c.want)
	}
	if got := aclText(t, e); got != "" {
		t.Errorf("acl after failures = %q", got)
	}

	// Paths are normalized; propagate defaults to 1; removing an entry
	// that is not there is no error; root@pam's entries are not written
	// to user.cfg, so they never show.
	put("path", "//vms//100/", "groups", "ops", "users", "bob@pve", "tokens", "bob@pve!ci",
		"roles", "PVEVMUser,PVEAuditor").wantOK(t)
	put("path", "/storage/local", "users", "bob@pve", "roles", "PVEDatastoreUser", "propagate", "0").wantOK(t)
	put("path", "/", "users", "root@pam", "roles", "PVEAuditor").wantOK(t)
	put("path", "/vms/100", "users", "bob@pve", "roles", "NoAccess", "delete", "1").wantOK(t)
	want = "1:/storage/local:user:bob@pve:PVEDatastoreUser " +
		"1:/vms/100:user:bob@pve:PVEAuditor 1:/vms/100:user:bob@pve:PVEVMUser " +
		"1:/vms/100:group:ops:PVEAuditor 1:/vms/100:group:ops:PVEVMUser " +
		"1:/vms/100:token:bob@pve!ci:PVEAuditor 1:/vms/100:token:bob@pve!ci:PVEVMUser"
	// propagate 0 reads back as 0.
	want = strings.Replace(want, "1:/storage/local", "0:/storage/local", 1)
	if got := aclText(t, e); got != want {
		t.Errorf("acl =\n %s\nwant\n %s", got, want)
	}
	put("path", "/vms/100", "groups", "ops", "users", "bob@pve", "tokens", "bob@pve!ci",
		"roles", "PVEVMUser", "delete", "1").wantOK(t)
	put("path", "/storage/local", "users", "bob@pve", "roles", "PVEDatastoreUser", "delete", "1").wantOK(t)
	want = "1:/vms/100:user:bob@pve:PVEAuditor 1:/vms/100:group:ops:PVEAuditor 1:/vms/100:token:bob@pve!ci:PVEAuditor"
	if got := aclText(t, e); got != want {
		t.Errorf("acl after removal = %s", got)
	}
}

// check_path's list grows with the releases: SDN fabrics came with
// pve-access-control 9.0.1 (PVE 9.1), prefix lists and route maps with
// 9.1.0 (PVE 9.2).
func TestACLPathsPerRelease(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version string
		path    string
		ok      bool
	}{
		{"8.4", "/sdn/fabrics/f1", false},
		{"9.1", "/sdn/fabrics/f1", true},
		{"9.1", "/sdn/route-maps/rm1", false},
		{"9.2", "/sdn/route-maps/rm1", true},
		{"9.2", "/sdn/prefix-lists", true},
		{"8.4", "/pool/a/b/c", true},
		{"8.4", "/pool/a/b/c/d", false},
		{"8.4", "/mapping/pci/gpu0", true},
	} {
		e := aclEnv(t, c.version)
		a := e.call(t, http.MethodPut, "/access/acl", form("path", c.path, "users", "bob@pve", "roles", "PVEAuditor"))
		if ok := a.status == http.StatusOK; ok != c.ok {
			t.Errorf("%s %s: %d %v", c.version, c.path, a.status, a.errors)
		}
	}
}

// Who may change and see which entries: perm-modify on the path
// (RPCEnvironment.pm check_perm_modify), and without Permissions.Modify
// only roles whose privileges the caller holds there, propagated for a
// propagating entry, never NoAccess (ACL.pm update_acl). read_acl shows
// the paths where perm-modify passes, or everything with Sys.Audit on
// /access.
func TestACLDelegation(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	if err := e.sim.Update(func(c *Cluster) error {
		a := c.Access
		a.Users["carol@pve"] = &User{Enable: true}
		a.Roles["VMKeeper"] = map[string]bool{"VM.Allocate": true, "VM.Audit": true, "VM.Console": true}
		a.node("/vms/100").grant(aclUser, "bob@pve", "VMKeeper", true)
		a.node("/vms/200").grant(aclUser, "bob@pve", "VMKeeper", false)
		a.node("/vms/300").grant(aclUser, "carol@pve", "PVEAuditor", true)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Viewer", "privs", "VM.Audit")).wantOK(t)
	asBob := withToken(bobCI)
	put := func(kv ...string) *answer {
		t.Helper()
		return e.call(t, http.MethodPut, "/access/acl", form(kv...), asBob)
	}
	put("path", "/vms/300", "users", "carol@pve", "roles", "Viewer").
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/300, Permissions.Modify|VM.Allocate)")
	// The check runs on the normalized path; a path normalize_path
	// refuses passes it and is refused by update_acl itself.
	put("path", "//vms//100/", "users", "carol@pve", "roles", "Viewer").wantOK(t)
	if a := put("path", "/vms/1 0", "users", "carol@pve", "roles", "Viewer"); a.errors["path"] != "invalid ACL path '/vms/1 0'" {
		t.Errorf("bad path: %d %v", a.status, a.errors)
	}
	lockParam := "ACL update failed: 400 Parameter verification failed."
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"path", "/vms/100", "roles", "PVEVMUser"},
			"role: Cannot add role 'PVEVMUser' - requires 'Permissions.Modify' or superset of privileges.\n"},
		{[]string{"path", "/vms/100", "roles", "PVEVMUser", "delete", "1"},
			"role: Cannot remove role 'PVEVMUser' - requires 'Permissions.Modify' or superset of privileges.\n"},
		{[]string{"path", "/vms/200", "roles", "Viewer"},
			"role: Cannot add role 'Viewer' with propagation - requires 'Permissions.Modify' or propagated superset of privileges.\n"},
		{[]string{"path", "/vms/100", "roles", "NoAccess"},
			"role: Cannot add role 'NoAccess' - requires 'Permissions.Modify'\n"},
	} {
		a := put(append(c.kv, "users", "carol@pve")...)
		a.wantStatus(t, http.StatusInternalServerError, lockParam)
		if a.message != lockParam+"\n"+c.want {
			t.Errorf("%v: message %q", c.kv, a.message)
		}
	}
	put("path", "/vms/200", "users", "carol@pve", "roles", "Viewer", "propagate", "0").wantOK(t)

	// bob sees the entries on the paths he may modify; with Sys.Audit on
	// /access, all of them.
	want := "1:/vms/100:user:bob@pve:VMKeeper 1:/vms/100:user:carol@pve:Viewer " +
		"0:/vms/200:user:bob@pve:VMKeeper 0:/vms/200:user:carol@pve:Viewer"
	if got := aclText(t, e, asBob); got != want {
		t.Errorf("bob sees %s", got)
	}
	e.call(t, http.MethodPut, "/access/acl", form("path", "/access", "users", "bob@pve", "roles", "PVEAuditor")).wantOK(t)
	want = "1:/access:user:bob@pve:PVEAuditor " + want + " 1:/vms/300:user:carol@pve:PVEAuditor"
	if got := aclText(t, e, asBob); got != want {
		t.Errorf("bob with Sys.Audit sees %s", got)
	}
}

// Deleting a role leaves its ACL entries in user.cfg, but the next read
// drops them (AccessControl.pm parse_user_config, "ignore invalid acl
// role"), so they vanish from the ACL and from the permissions.
func TestRoleDeleteDropsACLEntries(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Viewer", "privs", "VM.Audit")).wantOK(t)
	e.call(t, http.MethodPut, "/access/acl", form("path", "/vms", "users", "bob@pve", "roles", "Viewer,PVEVMUser")).wantOK(t)
	e.call(t, http.MethodPut, "/access/acl", form("path", "/vms/100", "users", "bob@pve", "roles", "Viewer")).wantOK(t)
	if got := e.sim.permText("bob@pve", "/vms/100"); got != "VM.Audit" {
		t.Errorf("before: %s", got)
	}
	e.call(t, http.MethodDelete, "/access/roles/Viewer", nil).wantOK(t)
	if got := aclText(t, e); got != "1:/vms:user:bob@pve:PVEVMUser" {
		t.Errorf("acl = %s", got)
	}
	// With the /vms/100 entry gone, /vms's propagated roles reach it.
	if got := e.sim.permText("bob@pve", "/vms/100"); !strings.Contains(got, "VM.PowerMgmt") {
		t.Errorf("after: %s", got)
	}
}

// The whole way: a role and a group made through the API, the group
// granted the role on a pool through PUT /access/acl, a user put in the
// group; then the permissions endpoint and a real check agree.
func TestACLGrantFlow(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	asBob := withToken(bobCI)
	e.call(t, http.MethodPost, "/pools", form("poolid", "x")).wantOK(t)
	// Without any entry, bob may not read the pool.
	e.call(t, http.MethodGet, "/pools/x", nil, asBob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/pool/x, Pool.Audit)")

	e.call(t, http.MethodPost, "/access/roles", form("roleid", "PoolReader", "privs", "Pool.Audit,VM.Audit")).wantOK(t)
	e.call(t, http.MethodPost, "/access/groups", form("groupid", "readers")).wantOK(t)
	e.call(t, http.MethodPut, "/access/acl", form("path", "/pool/x", "groups", "readers", "roles", "PoolReader")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.Groups["readers"].Users = []string{"bob@pve"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var perms map[string]map[string]int
	e.call(t, http.MethodGet, "/access/permissions", form("path", "/pool/x"), asBob).decode(t, &perms)
	if jsonText(perms) != `{"/pool/x":{"Pool.Audit":1,"VM.Audit":1}}` {
		t.Errorf("permissions = %s", jsonText(perms))
	}
	e.call(t, http.MethodGet, "/pools/x", nil, asBob).wantOK(t)
	// Pool.Allocate is not in the role: bob may not change the pool.
	e.call(t, http.MethodPut, "/pools/x", form("comment", "mine"), asBob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/pool/x, Pool.Allocate)")

	// A privilege-separated token holds only what its own entries give
	// and its user also holds.
	setPrivsep := func(on bool) {
		t.Helper()
		if err := e.sim.Update(func(c *Cluster) error {
			c.Access.Users["bob@pve"].Tokens["ci"].Privsep = on
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	setPrivsep(true)
	e.call(t, http.MethodGet, "/pools/x", nil, asBob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/pool/x, Pool.Audit)")
	e.call(t, http.MethodPut, "/access/acl", form("path", "/pool", "tokens", "bob@pve!ci", "roles", "PVEPoolAdmin")).wantOK(t)
	e.call(t, http.MethodGet, "/pools/x", nil, asBob).wantOK(t)
	e.call(t, http.MethodPut, "/pools/x", form("comment", "mine"), asBob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/pool/x, Pool.Allocate)")
	setPrivsep(false)

	// Taking the entry back takes the permission away.
	e.call(t, http.MethodPut, "/access/acl",
		form("path", "/pool/x", "groups", "readers", "roles", "PoolReader", "delete", "1")).wantOK(t)
	e.call(t, http.MethodGet, "/pools/x", nil, asBob).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/pool/x, Pool.Audit)")
}

// RPCEnvironment.pm get_effective_permissions walks the whole ACL tree
// (iterate_acl_tree), so the inner paths of an entry's path are listed
// too when the caller holds something there.
func TestEffectivePermissionsInnerPaths(t *testing.T) {
	t.Parallel()
	e := aclEnv(t, "")
	e.call(t, http.MethodPut, "/access/acl", form("path", "/", "users", "bob@pve", "roles", "PVESDNUser")).wantOK(t)
	e.call(t, http.MethodPut, "/access/acl", form("path", "/sdn/zones/z1/vnet1", "users", "bob@pve", "roles", "PVEAuditor")).wantOK(t)
	var perms map[string]map[string]int
	e.call(t, http.MethodGet, "/access/permissions", nil, withToken(bobCI)).decode(t, &perms)
	for _, path := range []string{"/sdn/zones", "/sdn/zones/z1", "/sdn/zones/z1/vnet1"} {
		if _, ok := perms[path]; !ok {
			t.Errorf("%s missing from %s", path, jsonText(perms))
		}
	}
}
