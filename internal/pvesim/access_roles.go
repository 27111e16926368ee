package pvesim

import "sync"

// privilegeGroup is one category of pve-access-control
// src/PVE/AccessControl.pm $privgroups: the privileges only root should
// hold, those of an administrator, of a normal user, and of an auditor.
type privilegeGroup struct {
	name                     string
	root, admin, user, audit []string
}

// privilegeGroups is $privgroups as PVE 9 has it. PVE 8 differs in the VM
// category only (pve8VMGroup).
var privilegeGroups = []privilegeGroup{
	{
		name: "VM",
		admin: []string{
			"VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network",
			"VM.Config.HWType", "VM.Config.Options", "VM.Allocate", "VM.Clone",
			"VM.GuestAgent.Unrestricted", "VM.Migrate", "VM.Replicate", "VM.Snapshot",
			"VM.Snapshot.Rollback",
		},
		user: []string{
			"VM.Config.CDROM", "VM.Config.Cloudinit", "VM.Console", "VM.Backup",
			"VM.GuestAgent.FileRead", "VM.GuestAgent.FileSystemMgmt", "VM.GuestAgent.FileWrite",
			"VM.PowerMgmt",
		},
		audit: []string{"VM.Audit", "VM.GuestAgent.Audit"},
	},
	{
		name:  "Sys",
		root:  []string{"Sys.PowerMgmt", "Sys.Modify", "Sys.Incoming", "Sys.AccessNetwork"},
		admin: []string{"Sys.Console", "Sys.Syslog"},
		audit: []string{"Sys.Audit"},
	},
	{
		name:  "Datastore",
		admin: []string{"Datastore.Allocate", "Datastore.AllocateTemplate"},
		user:  []string{"Datastore.AllocateSpace"},
		audit: []string{"Datastore.Audit"},
	},
	{
		name:  "SDN",
		admin: []string{"SDN.Allocate", "SDN.Audit"},
		user:  []string{"SDN.Use"},
		audit: []string{"SDN.Audit"},
	},
	{
		name:  "User",
		root:  []string{"Realm.Allocate"},
		admin: []string{"User.Modify", "Group.Allocate", "Realm.AllocateUser"},
	},
	{
		name:  "Pool",
		admin: []string{"Pool.Allocate"},
		user:  []string{"Pool.Audit"},
		audit: []string{"Pool.Audit"},
	},
	{
		name:  "Mapping",
		admin: []string{"Mapping.Modify"},
		user:  []string{"Mapping.Use"},
		audit: []string{"Mapping.Audit"},
	},
}

// pve8VMGroup is the VM category before PVE 9.0: VM.Monitor among the
// administrator's privileges, no guest agent privileges and no
// VM.Replicate. pve-access-control 922f710 ("add VM.GuestAgent
// privileges"), 0706945 ("privileges: drop VM.Monitor") and 5f7544f ("add
// VM.Replicate privilege") came with PVE 9.0.
var pve8VMGroup = privilegeGroup{
	name: "VM",
	admin: []string{
		"VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network",
		"VM.Config.HWType", "VM.Config.Options", "VM.Allocate", "VM.Clone", "VM.Migrate",
		"VM.Monitor", "VM.Snapshot", "VM.Snapshot.Rollback",
	},
	user:  []string{"VM.Config.CDROM", "VM.Config.Cloudinit", "VM.Console", "VM.Backup", "VM.PowerMgmt"},
	audit: []string{"VM.Audit"},
}

// releaseRoles is what a release knows of privileges and built-in roles.
type releaseRoles struct {
	privileges []string // in $privgroups order, Permissions.Modify first
	valid      map[string]bool
	special    map[string]map[string]bool
}

var (
	rolesOnce sync.Once
	pve9Roles *releaseRoles
	pve8Roles *releaseRoles
)

func buildReleaseRoles() {
	pve9Roles = makeReleaseRoles(privilegeGroups)
	groups := append([]privilegeGroup{pve8VMGroup}, privilegeGroups[1:]...)
	pve8Roles = makeReleaseRoles(groups)
}

// makeReleaseRoles is AccessControl.pm create_roles: every privilege of a
// category is valid; PVE<Cat>Admin and PVEAdmin hold the admin, user and
// audit privileges; PVE<Cat>User, for categories with user privileges, the
// user and audit ones; PVEAuditor every audit privilege; PVEAdmin loses
// Mapping.Modify; Administrator holds every valid privilege (it is the
// $valid_privs hash itself, Permissions.Modify included); NoAccess none;
// PVETemplateUser VM.Clone and VM.Audit.
func makeReleaseRoles(groups []privilegeGroup) *releaseRoles {
	r := &releaseRoles{valid: map[string]bool{}, special: map[string]map[string]bool{}}
	addPriv := func(p string) {
		if !r.valid[p] {
			r.valid[p] = true
			r.privileges = append(r.privileges, p)
		}
	}
	addPriv("Permissions.Modify")
	grant := func(role string, privs ...[]string) {
		if r.special[role] == nil {
			r.special[role] = map[string]bool{}
		}
		for _, list := range privs {
			for _, p := range list {
				r.special[role][p] = true
			}
		}
	}
	for _, g := range groups {
		for _, list := range [][]string{g.root, g.admin, g.user, g.audit} {
			for _, p := range list {
				addPriv(p)
			}
		}
		grant("PVE"+g.name+"Admin", g.admin, g.user, g.audit)
		grant("PVEAdmin", g.admin, g.user, g.audit)
		if len(g.user) > 0 {
			grant("PVE"+g.name+"User", g.user, g.audit)
		}
		grant("PVEAuditor", g.audit)
	}
	delete(r.special["PVEAdmin"], "Mapping.Modify")
	grant("PVETemplateUser", []string{"VM.Clone", "VM.Audit"})
	grant("NoAccess")
	grant("Administrator", r.privileges)
	return r
}

// roles are the release's privileges and built-in roles.
func (p *pveProfile) roles() *releaseRoles {
	rolesOnce.Do(buildReleaseRoles)
	if p.guestAgentPrivileges {
		return pve9Roles
	}
	return pve8Roles
}

// privileges are the privileges the profile's release knows.
func (p *pveProfile) privileges() []string { return p.roles().privileges }

// specialRoles are the release's built-in roles (role_is_special).
func (p *pveProfile) specialRoles() map[string]map[string]bool { return p.roles().special }
