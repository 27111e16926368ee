package pvesim

import (
	"net/http"
	"strings"
)

// Roles: pve-access-control src/PVE/API2/Role.pm over user.cfg's roles
// and the release's built-in ones (access_roles.go), which
// userconfig_force_defaults adds to every read of user.cfg.

func (s *Sim) registerRoleRoutes() {
	modify := permission{path: "/access", privs: []string{"Sys.Modify"}}
	s.handle(http.MethodGet, "/access/roles", route{handle: s.listRoles})
	s.handle(http.MethodGet, "/access/roles/{roleid}", route{handle: s.readRole})
	s.handle(http.MethodPost, "/access/roles", route{perm: modify, handle: s.createRole})
	s.handle(http.MethodPut, "/access/roles/{roleid}", route{perm: modify, handle: s.updateRole})
	s.handle(http.MethodDelete, "/access/roles/{roleid}", route{perm: modify, handle: s.deleteRole})
}

// listRoles is pve-access-control src/PVE/API2/Role.pm index: every role,
// the built-in ones included, with its privileges sorted and comma-joined
// ("" for none) and special 1 for a built-in one. PVE walks a Perl hash
// (no order); the simulator sorts by id.
func (s *Sim) listRoles(c *call) (any, error) {
	a := c.cluster.Access
	special := s.pve.specialRoles()
	ids := sortedKeys(special)
	for id := range a.Roles {
		if _, builtIn := special[id]; !builtIn {
			ids = append(ids, id)
		}
	}
	ids = sortedStrings(ids)
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		privs, _ := a.role(&s.pve, id)
		_, builtIn := special[id]
		out = append(out, map[string]any{
			"roleid":  id,
			"privs":   strings.Join(sortedKeys(privs), ","),
			"special": boolInt(builtIn),
		})
	}
	return out, nil
}

// readRole is pve-access-control src/PVE/API2/Role.pm read_role: the
// role's privilege set as user.cfg's parser holds it, privilege -> 1; a
// role without privileges (NoAccess, or a role created without any) is an
// empty object, which is true in Perl, so not an error.
func (s *Sim) readRole(c *call) (any, error) {
	id := c.str("roleid")
	privs, ok := c.cluster.Access.role(&s.pve, id)
	if !ok {
		// pve-access-control src/PVE/API2/Role.pm read_role
		return nil, errorf("role '%s' does not exist", id)
	}
	out := make(map[string]int, len(privs))
	for p := range privs {
		out[p] = 1
	}
	return out, nil
}

// rolePrivs checks the privs parameter the way its format does before the
// handler runs: pve-priv-list is pve-common src/PVE/JSONSchema.pm
// check_format calling AccessControl.pm verify_privname on each item of
// split_list, whose die becomes "invalid format - ...". The valid set is
// the release's ($valid_privs), which the generated schema tables cannot
// know, so the check is here. AccessControl.pm add_role_privs dies with
// the same text inside the lock, which a request can therefore not reach.
// PVE reports this error together with any other parameter error of the
// request; here the others, found first, are reported alone.
func (s *Sim) rolePrivs(c *call) ([]string, error) {
	list := splitList(c.str("privs"))
	valid := s.pve.roles().valid
	for _, p := range list {
		if !valid[p] {
			// pve-access-control src/PVE/AccessControl.pm verify_privname,
			// through pve-common src/PVE/JSONSchema.pm check_format
			return nil, paramError(map[string]string{"privs": "invalid format - invalid privilege '" + p + "'\n"})
		}
	}
	return list, nil
}

// createRole is pve-access-control src/PVE/API2/Role.pm create_role: a
// role id starting with "PVE" in any case is refused before the lock;
// inside it, an existing role (built-in ones included) is refused, then
// the role is created with the given privileges (add_role_privs).
func (s *Sim) createRole(c *call) (any, error) {
	privs, err := s.rolePrivs(c)
	if err != nil {
		return nil, err
	}
	id := c.str("roleid")
	if strings.HasPrefix(strings.ToUpper(id), "PVE") {
		// pve-access-control src/PVE/API2/Role.pm create_role (00b90e7)
		return nil, paramError(map[string]string{
			"roleid": "cannot use role ID starting with the (case-insensitive) 'PVE' namespace",
		})
	}
	a := c.cluster.Access
	if _, exists := a.role(&s.pve, id); exists {
		// pve-access-control src/PVE/API2/Role.pm create_role
		return nil, wrapLockError("create role failed", errorf("role '%s' already exists", id))
	}
	set := map[string]bool{}
	for _, p := range privs {
		set[p] = true
	}
	a.Roles[id] = set
	return nil, nil
}

// updateRole is pve-access-control src/PVE/API2/Role.pm update_role: a
// built-in role is refused before the lock; inside it, the role must
// exist; without append its privileges are replaced by the given ones,
// so a call without privs leaves it with none.
func (s *Sim) updateRole(c *call) (any, error) {
	privs, err := s.rolePrivs(c)
	if err != nil {
		return nil, err
	}
	id := c.str("roleid")
	if _, builtIn := s.pve.specialRoles()[id]; builtIn {
		// pve-access-control src/PVE/API2/Role.pm update_role
		// (role_is_special)
		return nil, errorf("auto-generated role '%s' cannot be modified", id)
	}
	a := c.cluster.Access
	set, ok := a.Roles[id]
	if !ok {
		// pve-access-control src/PVE/API2/Role.pm update_role
		return nil, wrapLockError("update role failed", errorf("role '%s' does not exist", id))
	}
	if !c.boolParam("append") || set == nil {
		set = map[string]bool{}
		a.Roles[id] = set
	}
	for _, p := range privs {
		set[p] = true
	}
	return nil, nil
}

// deleteRole is pve-access-control src/PVE/API2/Role.pm delete_role: a
// built-in role is refused before the lock; inside it, the role must
// exist. delete_role leaves the ACL alone ("fixme: delete role from
// acl?"), but user.cfg's next read drops the entries naming a role that
// no longer exists (settleACL), so they vanish all the same.
func (s *Sim) deleteRole(c *call) (any, error) {
	id := c.str("roleid")
	if _, builtIn := s.pve.specialRoles()[id]; builtIn {
		// pve-access-control src/PVE/API2/Role.pm delete_role
		// (role_is_special)
		return nil, errorf("auto-generated role '%s' cannot be deleted", id)
	}
	a := c.cluster.Access
	if _, ok := a.Roles[id]; !ok {
		// pve-access-control src/PVE/API2/Role.pm delete_role
		return nil, wrapLockError("delete role failed", errorf("role '%s' does not exist", id))
	}
	delete(a.Roles, id)
	a.settleACL(&s.pve)
	return nil, nil
}
