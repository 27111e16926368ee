package pvesim

import "net/http"

// firewallMount is where one firewall scope's API is mounted and its
// permissions (pve-firewall src/PVE/Firewall.pm rules_audit_permissions,
// rules_modify_permissions for the rule_env of each subclass).
type firewallMount struct {
	kind   string
	prefix string
	audit  permission
	modify permission
}

var firewallMounts = []firewallMount{
	{
		kind:   "cluster",
		prefix: "/cluster/firewall",
		audit:  permission{path: "/", privs: []string{"Sys.Audit"}},
		modify: permission{path: "/", privs: []string{"Sys.Modify"}},
	},
	{
		kind:   "host",
		prefix: "/nodes/{node}/firewall",
		audit:  permission{path: "/nodes/{node}", privs: []string{"Sys.Audit"}},
		modify: permission{path: "/nodes/{node}", privs: []string{"Sys.Modify"}},
	},
	{
		kind:   "vm",
		prefix: "/nodes/{node}/qemu/{vmid}/firewall",
		audit:  permission{path: "/vms/{vmid}", privs: []string{"VM.Audit"}},
		modify: permission{path: "/vms/{vmid}", privs: []string{"VM.Config.Network"}},
	},
	{
		kind:   "ct",
		prefix: "/nodes/{node}/lxc/{vmid}/firewall",
		audit:  permission{path: "/vms/{vmid}", privs: []string{"VM.Audit"}},
		modify: permission{path: "/vms/{vmid}", privs: []string{"VM.Config.Network"}},
	},
}

// registerFirewallRoutes adds the firewall's rules, security groups,
// options, macros and directory indexes (pve-firewall
// src/PVE/API2/Firewall/*.pm). Permissions are rules_audit_permissions
// and rules_modify_permissions of src/PVE/Firewall.pm and the checks of
// the options and groups methods.
func (s *Sim) registerFirewallRoutes() {
	for _, sc := range firewallMounts {
		s.registerFirewallRuleRoutes(sc.kind, sc.prefix+"/rules", sc.audit, sc.modify)
		s.handle(http.MethodGet, sc.prefix+"/options", route{perm: sc.audit, handle: getFirewallOptions(sc.kind)})
		s.handle(http.MethodPut, sc.prefix+"/options", route{perm: sc.modify, handle: setFirewallOptions(sc.kind)})
	}
	s.handle(http.MethodGet, "/cluster/firewall", route{
		handle: firewallIndex("aliases", "rules", "options", "groups", "ipset", "macros", "refs"),
	})
	s.handle(http.MethodGet, "/nodes/{node}/firewall", route{handle: firewallIndex("rules", "options", "log")})
	guestIndex := firewallIndex("rules", "aliases", "ipset", "refs", "options")
	s.handle(http.MethodGet, "/nodes/{node}/qemu/{vmid}/firewall", route{handle: guestIndex})
	s.handle(http.MethodGet, "/nodes/{node}/lxc/{vmid}/firewall", route{handle: guestIndex})
	s.handle(http.MethodGet, "/cluster/firewall/macros", route{handle: firewallMacroList})

	sysModify := permission{path: "/", privs: []string{"Sys.Modify"}}
	s.handle(http.MethodGet, "/cluster/firewall/groups", route{handle: listSecurityGroups})
	s.handle(http.MethodPost, "/cluster/firewall/groups", route{perm: sysModify, handle: createSecurityGroup})
	s.handle(http.MethodDelete, "/cluster/firewall/groups/{group}", route{perm: sysModify, handle: deleteSecurityGroup})
	s.handle(http.MethodGet, "/cluster/firewall/groups/{group}", route{
		perm:   permission{path: "/", privs: []string{"Sys.Audit"}},
		handle: ruleListHandler("group", getFirewallRules),
	})
	s.handle(http.MethodPost, "/cluster/firewall/groups/{group}", route{
		perm: sysModify, handle: ruleListHandler("group", createFirewallRule),
	})
	s.registerFirewallRulePosRoutes("group", "/cluster/firewall/groups/{group}",
		permission{path: "/", privs: []string{"Sys.Audit"}}, sysModify)
}

// registerFirewallRuleRoutes adds a rule list's GET and POST and its
// per-position methods.
func (s *Sim) registerFirewallRuleRoutes(env, base string, audit, modify permission) {
	s.handle(http.MethodGet, base, route{perm: audit, handle: ruleListHandler(env, getFirewallRules)})
	s.handle(http.MethodPost, base, route{perm: modify, handle: ruleListHandler(env, createFirewallRule)})
	s.registerFirewallRulePosRoutes(env, base, audit, modify)
}

func (s *Sim) registerFirewallRulePosRoutes(env, base string, audit, modify permission) {
	s.handle(http.MethodGet, base+"/{pos}", route{perm: audit, handle: ruleListHandler(env, getFirewallRule)})
	s.handle(http.MethodPut, base+"/{pos}", route{perm: modify, handle: ruleListHandler(env, updateFirewallRule)})
	s.handle(http.MethodDelete, base+"/{pos}", route{perm: modify, handle: ruleListHandler(env, deleteFirewallRule)})
}
