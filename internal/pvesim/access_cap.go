package pvesim

import (
	"regexp"
	"strings"
)

// pvePrivileges are the privileges PVE 9 knows (pve-access-control
// src/PVE/AccessControl.pm $privgroups, plus Permissions.Modify).
var pvePrivileges = []string{
	"VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network", "VM.Config.HWType",
	"VM.Config.Options", "VM.Allocate", "VM.Clone", "VM.GuestAgent.Unrestricted", "VM.Migrate",
	"VM.Replicate", "VM.Snapshot", "VM.Snapshot.Rollback", "VM.Config.CDROM", "VM.Config.Cloudinit",
	"VM.Console", "VM.Backup", "VM.GuestAgent.FileRead", "VM.GuestAgent.FileSystemMgmt",
	"VM.GuestAgent.FileWrite", "VM.PowerMgmt", "VM.Audit", "VM.GuestAgent.Audit",
	"Sys.PowerMgmt", "Sys.Modify", "Sys.Incoming", "Sys.AccessNetwork", "Sys.Console", "Sys.Syslog", "Sys.Audit",
	"Datastore.Allocate", "Datastore.AllocateTemplate", "Datastore.AllocateSpace", "Datastore.Audit",
	"SDN.Allocate", "SDN.Audit", "SDN.Use",
	"Realm.Allocate", "User.Modify", "Group.Allocate", "Realm.AllocateUser",
	"Pool.Allocate", "Pool.Audit",
	"Mapping.Modify", "Mapping.Use", "Mapping.Audit",
	"Permissions.Modify",
}

// pve8Privileges is PVE 8's list: VM.Monitor instead of the guest agent
// privileges, and no VM.Replicate. pve-access-control 0706945 ("privileges:
// drop VM.Monitor"), 922f710 ("add VM.GuestAgent privileges") and 5f7544f
// ("add VM.Replicate privilege") came with PVE 9.0.
var pve8Privileges = func() []string {
	out := []string{"VM.Monitor"}
	for _, p := range pvePrivileges {
		if p != "VM.Replicate" && !strings.HasPrefix(p, "VM.GuestAgent.") {
			out = append(out, p)
		}
	}
	return out
}()

// privileges are the privileges the profile's release knows.
func (p *pveProfile) privileges() []string {
	if p.guestAgentPrivileges {
		return pvePrivileges
	}
	return pve8Privileges
}

// capCategories are compute_api_permission's categories and the
// privileges each one lists (pve-access-control src/PVE/RPCEnvironment.pm
// compute_api_permission, $priv_re_map; the regexes are anchored at the
// start, and Permissions.Modify's dot is any character in "mapping").
var capCategories = map[string]*regexp.Regexp{
	"vms":     regexp.MustCompile(`^(VM\.|Permissions\.Modify)`),
	"access":  regexp.MustCompile(`^((User|Group)\.|Permissions\.Modify)`),
	"storage": regexp.MustCompile(`^(Datastore\.|Permissions\.Modify)`),
	"nodes":   regexp.MustCompile(`^(Sys\.|Permissions\.Modify)`),
	"sdn":     regexp.MustCompile(`^(SDN\.|Permissions\.Modify)`),
	"dc":      regexp.MustCompile(`^(Sys\.Audit|Sys\.Modify|SDN\.)`),
	"mapping": regexp.MustCompile(`^(Mapping\.|Permissions.Modify)`),
}

// apiCapabilities is the login answer's "cap": per category, the
// privileges the user holds on it, each as 1. The simulator's privileges
// hold on every path, so each category's path grants the same set; the
// pool paths of PVE's walk over the ACL tree add nothing beyond it.
func (s *Sim) apiCapabilities(user identity) map[string]map[string]int {
	out := make(map[string]map[string]int, len(capCategories))
	for category, re := range capCategories {
		held := map[string]int{}
		for _, p := range s.pve.privileges() {
			if re.MatchString(p) && s.allowed(user, "/", false, []string{p}) {
				held[p] = 1
			}
		}
		out[category] = held
	}
	return out
}
