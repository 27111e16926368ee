package wire

import (
	"fmt"
	"sort"
	"strings"
)

// PVE's privileges and built-in roles, per release. PVE generates both
// from one table of privilege groups ($privgroups in pve-access-control
// src/PVE/AccessControl.pm): per category, the privileges only root
// should hold, an administrator's, a user's and an auditor's. create_roles
// turns it into the built-in ("special") roles.
//
// PVE 8.4 ships pve-access-control 8.2.x, PVE 9.x ships 9.x; between the
// two, PVE 9.0 added the VM.GuestAgent.* privileges ("add VM.GuestAgent
// privileges"), dropped VM.Monitor ("privileges: drop VM.Monitor") and
// added VM.Replicate ("add VM.Replicate privilege"), all in
// pve-access-control 9.0.2 and 9.0.3, before PVE 9.0 came out. The rest
// was in 8.4 already (pve-access-control versions): Sys.Incoming (7.2-5);
// Permissions.Modify outside every group, so held by Administrator alone
// ("roles: restrict Permissions.Modify to Administrator"), SDN.Use, and
// the Mapping.* privileges with their roles (8.0.0); Sys.AccessNetwork
// (8.1.2).

// privilegeGroup is one category of $privgroups.
type privilegeGroup struct {
	category                 string
	root, admin, user, audit []string
}

// privilegeGroups returns $privgroups as release has it.
func privilegeGroups(release Release) []privilegeGroup {
	vm := privilegeGroup{
		category: "VM",
		admin: []string{"VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network",
			"VM.Config.HWType", "VM.Config.Options", "VM.Allocate", "VM.Clone", "VM.Migrate",
			"VM.Snapshot", "VM.Snapshot.Rollback"},
		user:  []string{"VM.Config.CDROM", "VM.Config.Cloudinit", "VM.Console", "VM.Backup", "VM.PowerMgmt"},
		audit: []string{"VM.Audit"},
	}
	if release.AtLeast(PVE90) {
		vm.admin = append(vm.admin, "VM.GuestAgent.Unrestricted", "VM.Replicate")
		vm.user = append(vm.user, "VM.GuestAgent.FileRead", "VM.GuestAgent.FileSystemMgmt", "VM.GuestAgent.FileWrite")
		vm.audit = append(vm.audit, "VM.GuestAgent.Audit")
	} else {
		vm.admin = append(vm.admin, "VM.Monitor")
	}
	return []privilegeGroup{
		vm,
		{
			category: "Sys",
			root:     []string{"Sys.PowerMgmt", "Sys.Modify", "Sys.Incoming", "Sys.AccessNetwork"},
			admin:    []string{"Sys.Console", "Sys.Syslog"},
			audit:    []string{"Sys.Audit"},
		},
		{
			category: "Datastore",
			admin:    []string{"Datastore.Allocate", "Datastore.AllocateTemplate"},
			user:     []string{"Datastore.AllocateSpace"},
			audit:    []string{"Datastore.Audit"},
		},
		{
			category: "SDN",
			admin:    []string{"SDN.Allocate", "SDN.Audit"},
			user:     []string{"SDN.Use"},
			audit:    []string{"SDN.Audit"},
		},
		{
			category: "User",
			root:     []string{"Realm.Allocate"},
			admin:    []string{"User.Modify", "Group.Allocate", "Realm.AllocateUser"},
		},
		{
			category: "Pool",
			admin:    []string{"Pool.Allocate"},
			user:     []string{"Pool.Audit"},
			audit:    []string{"Pool.Audit"},
		},
		{
			category: "Mapping",
			admin:    []string{"Mapping.Modify"},
			user:     []string{"Mapping.Use"},
			audit:    []string{"Mapping.Audit"},
		},
	}
}

// permissionsModify is the one privilege outside every group.
const permissionsModify = "Permissions.Modify"

// Privileges lists, sorted, every privilege PVE knows on release.
func Privileges(release Release) []string {
	set := map[string]bool{permissionsModify: true}
	for _, group := range privilegeGroups(release) {
		for _, list := range [][]string{group.root, group.admin, group.user, group.audit} {
			for _, priv := range list {
				set[priv] = true
			}
		}
	}
	return sortedSet(set)
}

// IsPrivilege tells whether PVE knows priv on release (names are case
// sensitive).
func IsPrivilege(priv string, release Release) bool {
	for _, known := range Privileges(release) {
		if known == priv {
			return true
		}
	}
	return false
}

// guestAgentPrivileges replaced VM.Monitor's guest agent part in PVE 9.0.
var guestAgentPrivileges = []string{
	"VM.GuestAgent.Audit", "VM.GuestAgent.FileRead", "VM.GuestAgent.FileWrite",
	"VM.GuestAgent.FileSystemMgmt", "VM.GuestAgent.Unrestricted",
}

// PrivilegeProblem says why PVE would refuse priv on release ("" when it
// would not). For a privilege of the other major release it names what
// takes its place: on PVE 9, VM.Monitor's guest agent part went to the
// VM.GuestAgent.* privileges and its QEMU monitor part to Sys.Audit (the
// commit message of "privileges: drop VM.Monitor"); on PVE 8.4,
// VM.Monitor guards the guest agent, and replication needs
// Datastore.Allocate on /storage ("add VM.Replicate privilege").
func PrivilegeProblem(priv string, release Release) string {
	if priv == "" {
		return "privilege name is empty"
	}
	if IsPrivilege(priv, release) {
		return ""
	}
	onRelease := fmt.Sprintf("does not exist on PVE %s", release)
	switch {
	case priv == "VM.Monitor" && release.AtLeast(PVE90):
		return fmt.Sprintf("privilege %q %s (PVE 9.0 dropped it): for the guest agent use %s (all agent commands, guest-exec included), and for the QEMU monitor Sys.Audit",
			priv, onRelease, strings.Join(guestAgentPrivileges, ", "))
	case strings.HasPrefix(priv, "VM.GuestAgent.") && IsPrivilege(priv, PVE90):
		return fmt.Sprintf("privilege %q %s (PVE 9.0 added it): on PVE 8 VM.Monitor grants guest agent access", priv, onRelease)
	case priv == "VM.Replicate" && !release.AtLeast(PVE90):
		return fmt.Sprintf("privilege %q %s (PVE 9.0 added it): on PVE 8 replication needs Datastore.Allocate on /storage", priv, onRelease)
	}
	for _, known := range Privileges(release) {
		if strings.EqualFold(known, priv) {
			return fmt.Sprintf("privilege %q %s: privilege names are case sensitive, did you mean %q?", priv, onRelease, known)
		}
	}
	return fmt.Sprintf("privilege %q %s", priv, onRelease)
}

// BuiltinRoles returns PVE's built-in roles on release with their sorted
// privileges, as create_roles builds them (src/PVE/AccessControl.pm):
// NoAccess holds nothing and Administrator everything; per category,
// PVE<Cat>Admin holds the admin, user and audit privileges, and
// PVE<Cat>User the user and audit ones when the category has user
// privileges; PVEAdmin holds every PVE<Cat>Admin privilege but
// Mapping.Modify; PVEAuditor every audit privilege; PVETemplateUser
// VM.Clone and VM.Audit. No built-in role but Administrator holds a root
// privilege or Permissions.Modify.
func BuiltinRoles(release Release) map[string][]string {
	roles := map[string]map[string]bool{
		"NoAccess":        {},
		"PVEAdmin":        {},
		"PVEAuditor":      {},
		"PVETemplateUser": {"VM.Clone": true, "VM.Audit": true},
	}
	add := func(role string, lists ...[]string) {
		if roles[role] == nil {
			roles[role] = map[string]bool{}
		}
		for _, list := range lists {
			for _, priv := range list {
				roles[role][priv] = true
			}
		}
	}
	for _, group := range privilegeGroups(release) {
		add("PVE"+group.category+"Admin", group.admin, group.user, group.audit)
		add("PVEAdmin", group.admin, group.user, group.audit)
		if len(group.user) > 0 {
			add("PVE"+group.category+"User", group.user, group.audit)
		}
		add("PVEAuditor", group.audit)
	}
	delete(roles["PVEAdmin"], "Mapping.Modify")
	out := make(map[string][]string, len(roles)+1)
	for name, privs := range roles {
		out[name] = sortedSet(privs)
	}
	out["Administrator"] = Privileges(release)
	return out
}

// builtinRoleNames are the same on every supported release.
var builtinRoleNames = BuiltinRoles(PVE84)

// IsBuiltinRole tells whether name is one of PVE's built-in roles, which
// cannot be changed or deleted (src/PVE/AccessControl.pm role_is_special;
// names are case sensitive).
func IsBuiltinRole(name string) bool {
	_, ok := builtinRoleNames[name]
	return ok
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for key := range set {
		out = append(out, key)
	}
	sort.Strings(out)
	return out
}
