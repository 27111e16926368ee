package pvesim

import (
	"sort"
	"strings"
	"testing"
)

// permFixture builds an access configuration in a simulator: users,
// groups ("NAME:member,member"), roles ("NAME:priv,priv"), ACL entries
// ("propagate:path:member:role", groups as "@NAME") and pools
// ("NAME:vmid,vmid:storage,storage").
type permFixture struct {
	users, groups, roles, acl, pools []string
	tokens                           map[string]bool // token id -> privsep
}

func (f permFixture) sim(t *testing.T) *Sim {
	t.Helper()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(c *Cluster) error {
		a := c.Access
		for _, u := range f.users {
			a.Users[u] = &User{Enable: true}
		}
		for id, privsep := range f.tokens {
			user, name, _ := strings.Cut(id, "!")
			if a.Users[user].Tokens == nil {
				a.Users[user].Tokens = map[string]*Token{}
			}
			a.Users[user].Tokens[name] = &Token{Privsep: privsep}
		}
		for _, g := range f.groups {
			name, members, _ := strings.Cut(g, ":")
			a.Groups[name] = &Group{Users: strings.Split(members, ",")}
		}
		for _, r := range f.roles {
			name, privs, _ := strings.Cut(r, ":")
			a.Roles[name] = map[string]bool{}
			for _, p := range strings.Split(privs, ",") {
				a.Roles[name][p] = true
			}
		}
		for _, e := range f.acl {
			parts := strings.Split(e, ":")
			kind, member := aclUser, parts[2]
			switch {
			case strings.HasPrefix(member, "@"):
				kind, member = aclGroup, member[1:]
			case strings.Contains(member, "!"):
				kind = aclToken
			}
			a.node(normalizeACLPath(parts[1])).grant(kind, member, parts[3], parts[0] == "1")
		}
		for _, p := range f.pools {
			parts := strings.Split(p, ":")
			pool := &Pool{ID: parts[0], VMs: map[int]bool{}, Storages: map[string]bool{}}
			for _, v := range strings.Split(parts[1], ",") {
				if n, ok := atoiStrict(v); ok {
					pool.VMs[n] = true
				}
			}
			for _, sid := range strings.Split(parts[2], ",") {
				if sid != "" {
					pool.Storages[sid] = true
				}
			}
			c.Pools[parts[0]] = pool
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *Sim) rolesText(member, path string) string {
	var out []string
	s.View(func(c *Cluster) {
		out = sortedKeys(c.Access.aclRoles(member)(path))
	})
	return strings.Join(out, ",")
}

func (s *Sim) permText(member, path string) string {
	id := identity{user: member}
	if user, _, ok := strings.Cut(member, "!"); ok {
		id = identity{user: user, tokenID: member}
	}
	var out []string
	s.View(func(*Cluster) {
		out = sortedKeys(s.permissions(id, path))
	})
	sort.Strings(out)
	return strings.Join(out, ",")
}

// Groups, NoAccess and pools, as in pve-access-control's own permission
// test with nested pools (src/test/perm-test6.pl): a user entry overrides
// the group's on its level; NoAccess is all that remains; a pool's roles
// reach its guests and storages without propagating, never over NoAccess
// on the path, and a nested pool inherits its parent's propagated roles.
func TestPermissionsGroupsPoolsNoAccess(t *testing.T) {
	t.Parallel()
	s := permFixture{
		users: []string{"u1@pve", "u2@pve", "u3@pve", "u4@pve", "intern@pve"},
		groups: []string{
			"devel:u1@pve,u2@pve,u3@pve", "marketing:u1@pve,u4@pve", "interns:intern@pve",
		},
		roles: []string{"RoleDevel:VM.PowerMgmt", "RoleMarketing:VM.Console", "RoleIntern:VM.Audit", "RoleTest:VM.Console"},
		acl: []string{
			"1:/pool/devel:@devel:RoleDevel", "1:/pool/marketing:@marketing:RoleMarketing",
			"1:/pool/marketing/interns:@interns:RoleIntern",
			"1:/vms:@devel:RoleTest", "1:/vms:u3@pve:NoAccess", "1:/vms/300:@marketing:RoleTest",
		},
		pools: []string{"devel:500,501:store1,store2", "marketing:600:store1", "marketing/interns:700:store3"},
	}.sim(t)
	for _, tc := range []struct{ member, path, roles, perms string }{
		{"u1@pve", "/", "", ""},
		{"u1@pve", "/vms", "RoleTest", "VM.Console"},
		{"u3@pve", "/vms", "NoAccess", ""},
		{"u4@pve", "/vms/100", "", ""},
		{"u4@pve", "/vms/300", "RoleTest", "VM.Console"},
		{"u1@pve", "/vms/500", "RoleTest", "VM.Console,VM.PowerMgmt"},
		{"u3@pve", "/vms/500", "NoAccess", ""},
		{"intern@pve", "/vms/600", "", ""},
		{"intern@pve", "/vms/700", "", "VM.Audit"},
		{"u4@pve", "/vms/700", "", "VM.Console"},
		{"u4@pve", "/pool/marketing/interns", "RoleMarketing", "VM.Console"},
		{"u3@pve", "/vms/600", "NoAccess", ""},
		{"u1@pve", "/storage/store1", "", "VM.Console,VM.PowerMgmt"},
		{"u3@pve", "/storage/store1", "", "VM.PowerMgmt"},
		{"u4@pve", "/storage/store2", "", ""},
	} {
		if got := s.rolesText(tc.member, tc.path); got != tc.roles {
			t.Errorf("roles of %s on %s = %q, want %q", tc.member, tc.path, got, tc.roles)
		}
		if got := s.permText(tc.member, tc.path); got != tc.perms {
			t.Errorf("privileges of %s on %s = %q, want %q", tc.member, tc.path, got, tc.perms)
		}
	}
}

// Tokens, as in pve-access-control's token test (src/test/perm-test8.pl):
// a token without privilege separation has its user's roles; with it, its
// own entries only, and of their privileges those its user holds too. A
// non-propagating entry counts on its own path alone.
func TestPermissionsTokens(t *testing.T) {
	t.Parallel()
	s := permFixture{
		users:  []string{"joe@pve", "max@pve", "alex@pve", "sue@pve", "carol@pam"},
		tokens: map[string]bool{"max@pve!shared": false, "max@pve!sep": true, "carol@pam!shared": false},
		groups: []string{"g1:joe@pve,max@pve,sue@pve", "g2:alex@pve,carol@pam,sue@pve", "g3:max@pve"},
		roles: []string{
			"storage_manager:Datastore.AllocateSpace,Datastore.Audit", "customer:VM.Audit,VM.PowerMgmt",
			"vm_admin:VM.Audit,VM.Allocate,VM.Console",
		},
		acl: []string{
			"1:/vms:@g1:vm_admin", "0:/vms/300:max@pve:customer", "1:/vms/300:max@pve:vm_admin",
			"1:/vms/100/:alex@pve:customer", "1:/vms/100/:max@pve:customer",
			"1:/vms/200:@g3:storage_manager", "1:/vms/200:@g2:NoAccess",
			"1:/vms/200:carol@pam!shared:vm_admin", "1:/vms/200:max@pve!shared:storage_manager",
			"1:/vms/200:max@pve!sep:customer", "1:/vms/300:max@pve!sep:Administrator",
		},
	}.sim(t)
	for _, tc := range []struct{ member, path, roles, perms string }{
		{"max@pve", "/", "", ""},
		{"max@pve", "/vms", "vm_admin", "VM.Allocate,VM.Audit,VM.Console"},
		{"max@pve", "/vms/100", "customer", "VM.Audit,VM.PowerMgmt"},
		{"max@pve", "/vms/101", "vm_admin", "VM.Allocate,VM.Audit,VM.Console"},
		{"alex@pve", "/vms", "", ""},
		{"max@pve", "/vms/200", "storage_manager", "Datastore.AllocateSpace,Datastore.Audit"},
		{"joe@pve", "/vms/200", "vm_admin", "VM.Allocate,VM.Audit,VM.Console"},
		{"sue@pve", "/vms/200", "NoAccess", ""},
		{"carol@pam!shared", "/vms/200", "NoAccess", ""},
		{"max@pve!shared", "/vms/200", "storage_manager", "Datastore.AllocateSpace,Datastore.Audit"},
		{"max@pve!sep", "/vms/200", "customer", ""},
		{"max@pve!sep", "/vms/300", "Administrator", "VM.Allocate,VM.Audit,VM.Console,VM.PowerMgmt"},
		{"max@pve", "/vms/300/x", "vm_admin", "VM.Allocate,VM.Audit,VM.Console"},
	} {
		if got := s.rolesText(tc.member, tc.path); got != tc.roles {
			t.Errorf("roles of %s on %s = %q, want %q", tc.member, tc.path, got, tc.roles)
		}
		if got := s.permText(tc.member, tc.path); got != tc.perms {
			t.Errorf("privileges of %s on %s = %q, want %q", tc.member, tc.path, got, tc.perms)
		}
	}
}

// root@pam holds every privilege of the release, on every path, without
// any ACL (RPCEnvironment.pm permissions); a user without ACLs none.
func TestPermissionsRootAndNobody(t *testing.T) {
	t.Parallel()
	s := permFixture{users: []string{"nobody@pve"}}.sim(t)
	got := s.permText("root@pam", "/vms/100")
	if !strings.Contains(got, "VM.GuestAgent.Audit") || !strings.Contains(got, "Permissions.Modify") || strings.Contains(got, "VM.Monitor") {
		t.Errorf("root@pam on PVE 9 = %s", got)
	}
	if got := s.permText("nobody@pve", "/"); got != "" {
		t.Errorf("nobody = %q", got)
	}
}

// The built-in roles (AccessControl.pm create_roles) per release: PVE 9's
// PVEVMAdmin has the guest agent privileges and VM.Replicate, PVE 8's
// VM.Monitor; PVEAdmin lacks Mapping.Modify; PVEAuditor holds the audit
// privileges; PVETemplateUser VM.Clone and VM.Audit.
func TestSpecialRolesPerRelease(t *testing.T) {
	t.Parallel()
	p9, _ := lookupProfile("9.1")
	p8, _ := lookupProfile("8.4")
	join := func(m map[string]bool) string { return strings.Join(sortedKeys(m), ",") }
	if got := join(p9.specialRoles()["PVEAuditor"]); got != "Datastore.Audit,Mapping.Audit,Pool.Audit,SDN.Audit,Sys.Audit,VM.Audit,VM.GuestAgent.Audit" {
		t.Errorf("PVE 9 PVEAuditor = %s", got)
	}
	if got := join(p8.specialRoles()["PVEAuditor"]); got != "Datastore.Audit,Mapping.Audit,Pool.Audit,SDN.Audit,Sys.Audit,VM.Audit" {
		t.Errorf("PVE 8 PVEAuditor = %s", got)
	}
	if p9.specialRoles()["PVEVMAdmin"]["VM.Monitor"] || !p9.specialRoles()["PVEVMAdmin"]["VM.Replicate"] {
		t.Errorf("PVE 9 PVEVMAdmin = %s", join(p9.specialRoles()["PVEVMAdmin"]))
	}
	if !p8.specialRoles()["PVEVMAdmin"]["VM.Monitor"] || p8.specialRoles()["PVEVMAdmin"]["VM.GuestAgent.Audit"] {
		t.Errorf("PVE 8 PVEVMAdmin = %s", join(p8.specialRoles()["PVEVMAdmin"]))
	}
	if p9.specialRoles()["PVEAdmin"]["Mapping.Modify"] || p9.specialRoles()["PVEAdmin"]["Sys.Modify"] || !p9.specialRoles()["PVEAdmin"]["Sys.Console"] {
		t.Errorf("PVEAdmin = %s", join(p9.specialRoles()["PVEAdmin"]))
	}
	if got := join(p9.specialRoles()["PVETemplateUser"]); got != "VM.Audit,VM.Clone" {
		t.Errorf("PVETemplateUser = %s", got)
	}
	if len(p9.specialRoles()["NoAccess"]) != 0 || len(p9.specialRoles()["Administrator"]) != len(p9.privileges()) {
		t.Error("NoAccess or Administrator")
	}
	names := sortedKeys(p9.specialRoles())
	want := "Administrator,NoAccess,PVEAdmin,PVEAuditor,PVEDatastoreAdmin,PVEDatastoreUser,PVEMappingAdmin,PVEMappingUser," +
		"PVEPoolAdmin,PVEPoolUser,PVESDNAdmin,PVESDNUser,PVESysAdmin,PVETemplateUser,PVEUserAdmin,PVEVMAdmin,PVEVMUser"
	if strings.Join(names, ",") != want {
		t.Errorf("special roles = %s", strings.Join(names, ","))
	}
}
