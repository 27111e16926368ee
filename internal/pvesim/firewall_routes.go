package pvesim

import "net/http"

// registerFirewallRoutes adds the firewall's rules, security groups,
// options, macros and directory indexes (pve-firewall
// src/PVE/API2/Firewall/*.pm). Permissions are rules_audit_permissions
// and rules_modify_permissions of src/PVE/Firewall.pm and the checks of
// the options and groups methods.
func (s *Sim) registerFirewallRoutes() {
	type scope struct {
		env, base, permPath, audit, modify string
	}
	for _, sc := range []scope{
		{"cluster", "/cluster/firewall", "/", "Sys.Audit", "Sys.Modify"},
		{"host", "/nodes/{node}/firewall", "/nodes/{node}", "Sys.Audit", "Sys.Modify"},
		{"vm", "/nodes/{node}/qemu/{vmid}/firewall", "/vms/{vmid}", "VM.Audit", "VM.Config.Network"},
		{"ct", "/nodes/{node}/lxc/{vmid}/firewall", "/vms/{vmid}", "VM.Audit", "VM.Config.Network"},
	} {
		audit := permission{path: sc.permPath, privs: []string{sc.audit}}
		modify := permission{path: sc.permPath, privs: []string{sc.modify}}
		s.registerFirewallRuleRoutes(sc.env, sc.base+"/rules", audit, modify)
		s.handle(http.MethodGet, sc.base+"/options", route{perm: audit, handle: getFirewallOptions(sc.env)})
		s.handle(http.MethodPut, sc.base+"/options", route{perm: modify, handle: setFirewallOptions(sc.env)})
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
