package pvesim

import (
	"net/http"
	"strings"
)

// Writes to user.cfg's groups and ACL: pve-access-control
// src/PVE/API2/Group.pm create_group, update_group, delete_group and
// src/PVE/API2/ACL.pm read_acl, update_acl. Each change runs inside
// AccessControl.pm lock_user_config, which prefixes a failure with the
// operation and leaves user.cfg untouched, then writes user.cfg, which the
// next read parses back (settleACL).

func (s *Sim) registerAccessWriteRoutes() {
	allocate := permission{path: "/access/groups", privs: []string{"Group.Allocate"}}
	s.handle(http.MethodPost, "/access/groups", route{perm: allocate, handle: createGroup})
	s.handle(http.MethodPut, "/access/groups/{groupid}", route{perm: allocate, handle: updateGroup})
	s.handle(http.MethodDelete, "/access/groups/{groupid}", route{perm: allocate, handle: s.deleteGroup})
	s.handle(http.MethodGet, "/access/acl", route{handle: readACL})
	s.handle(http.MethodPut, "/access/acl", route{
		perm:   permission{path: "{path}", modify: true},
		handle: s.updateACL,
	})
	s.registerRoleRoutes()
}

// createGroup is pve-access-control src/PVE/API2/Group.pm create_group:
// a new group without members, with the comment when it is true in Perl.
func createGroup(c *call) (any, error) {
	a := c.cluster.Access
	gid := c.str("groupid")
	if a.Groups[gid] != nil {
		// pve-access-control src/PVE/API2/Group.pm create_group
		return nil, wrapLockError("create group failed", errorf("group '%s' already exists", gid))
	}
	g := &Group{}
	if comment := c.str("comment"); perlTruthy(comment) {
		g.Comment = comment
	}
	a.Groups[gid] = g
	return nil, nil
}

// updateGroup is pve-access-control src/PVE/API2/Group.pm update_group:
// only the comment changes, to whatever is given ("" included).
func updateGroup(c *call) (any, error) {
	gid := c.str("groupid")
	g := c.cluster.Access.Groups[gid]
	if g == nil {
		// pve-access-control src/PVE/API2/Group.pm update_group
		return nil, wrapLockError("update group failed", errorf("group '%s' does not exist", gid))
	}
	if comment, ok := c.param("comment"); ok {
		g.Comment = comment
	}
	return nil, nil
}

// deleteGroup is pve-access-control src/PVE/API2/Group.pm delete_group:
// the group goes, and with it its ACL entries (delete_group_acl). Its
// members stay users.
func (s *Sim) deleteGroup(c *call) (any, error) {
	a := c.cluster.Access
	gid := c.str("groupid")
	if a.Groups[gid] == nil {
		// pve-access-control src/PVE/API2/Group.pm delete_group
		return nil, wrapLockError("delete group failed", errorf("group '%s' does not exist", gid))
	}
	delete(a.Groups, gid)
	a.deleteGroupACL(gid)
	a.settleACL(&s.pve)
	return nil, nil
}

// readACL is pve-access-control src/PVE/API2/ACL.pm read_acl: every entry
// of the tree, in iterate_acl_tree's order and on each path users, then
// groups, then tokens; a caller without Sys.Audit on /access sees a path's
// entries only where RPCEnvironment.pm check_perm_modify passes. PVE lists
// the members and their roles in hash order; they are sorted here.
func readACL(c *call) (any, error) {
	a := c.cluster.Access
	audit := c.can("/access", false, "Sys.Audit")
	out := []map[string]any{}
	for _, path := range a.aclPaths() {
		node := a.ACL[path]
		for _, k := range aclKinds {
			members := node.entries(k.kind)
			if len(members) == 0 {
				continue
			}
			if !audit && c.checkPermModify(path) != nil {
				continue
			}
			for _, member := range sortedKeys(members) {
				for _, role := range sortedKeys(members[member]) {
					out = append(out, map[string]any{
						"path": path, "type": k.name, "ugid": member, "roleid": role,
						"propagate": boolInt(members[member][role]),
					})
				}
			}
		}
	}
	return out, nil
}

// aclChange is one entry update_acl sets or removes.
type aclChange struct {
	kind         aclKind
	member, role string
}

// updateACL is pve-access-control src/PVE/API2/ACL.pm update_acl. The
// route checked perm-modify on the normalized path. Outside the lock: at
// least one of users, groups and tokens, and a path normalize_path takes
// and (unless deleting) check_path knows. Inside it, role by role: the
// role exists; a caller without Permissions.Modify on the path may only
// hand out (or take back) roles whose privileges it holds there, with
// propagation only where its own propagate, and never NoAccess; then the
// groups, users and tokens, which must exist. The first failure leaves
// the ACL as it was. Removing an entry that is not there is no error.
func (s *Sim) updateACL(c *call) (any, error) {
	users, groups, tokens := c.str("users"), c.str("groups"), c.str("tokens")
	if !perlTruthy(users) && !perlTruthy(groups) && !perlTruthy(tokens) {
		// pve-access-control src/PVE/API2/ACL.pm update_acl
		const msg = "either 'users', 'groups' or 'tokens' is required."
		return nil, paramError(map[string]string{"users": msg, "groups": msg, "tokens": msg})
	}
	raw := c.str("path")
	remove := c.boolParam("delete")
	path := normalizeACLPath(raw)
	if path == "" || (!remove && !s.pve.validACLPath(path)) {
		// pve-access-control src/PVE/API2/ACL.pm update_acl
		// (normalize_path, check_path)
		return nil, paramError(map[string]string{"path": "invalid ACL path '" + raw + "'"})
	}
	propagate := true
	if v, ok := c.param("propagate"); ok {
		propagate = v == "1"
	}
	changes, err := s.aclChanges(c, path, propagate, remove)
	if err != nil {
		return nil, wrapLockError("ACL update failed", err)
	}
	a := c.cluster.Access
	node := a.node(path)
	for _, ch := range changes {
		if remove {
			delete(node.entries(ch.kind)[ch.member], ch.role)
		} else {
			node.grant(ch.kind, ch.member, ch.role, propagate)
		}
	}
	a.settleACL(&s.pve)
	return nil, nil
}

// aclChanges checks update_acl's lists in its order and returns the
// entries to set or remove, or the first failure (inside the lock).
func (s *Sim) aclChanges(c *call, path string, propagate, remove bool) ([]aclChange, error) {
	a := c.cluster.Access
	held := s.permissions(c.user, path)
	_, mayModify := held["Permissions.Modify"]
	verb := "add"
	if remove {
		verb = "remove"
	}
	var out []aclChange
	for _, role := range splitList(c.str("roles")) {
		privs, ok := a.role(&s.pve, role)
		if !ok {
			// pve-access-control src/PVE/API2/ACL.pm update_acl
			return nil, errorf("role '%s' does not exist", role)
		}
		if !mayModify {
			if err := checkGrantable(role, verb, privs, held, propagate && !remove); err != nil {
				return nil, err
			}
		}
		for _, gid := range splitList(c.str("groups")) {
			if a.Groups[gid] == nil {
				// pve-access-control src/PVE/API2/ACL.pm update_acl
				return nil, errorf("group '%s' does not exist", gid)
			}
			out = append(out, aclChange{aclGroup, gid, role})
		}
		for _, user := range splitList(c.str("users")) {
			if a.Users[user] == nil {
				// pve-access-control src/PVE/API2/ACL.pm update_acl
				// (verify_username, then the user.cfg lookup)
				return nil, errorf("user '%s' does not exist", user)
			}
			out = append(out, aclChange{aclUser, user, role})
		}
		for _, tokenID := range splitList(c.str("tokens")) {
			user, name, _ := strings.Cut(tokenID, "!")
			u := a.Users[user]
			if u == nil {
				// pve-access-control src/PVE/AccessControl.pm
				// check_token_exist (check_user_exist)
				return nil, errorf("no such user ('%s')", user)
			}
			if u.Tokens[name] == nil {
				// pve-access-control src/PVE/AccessControl.pm check_token_exist
				return nil, errorf("no such token '%s' for user '%s'", name, user)
			}
			out = append(out, aclChange{aclToken, tokenID, role})
		}
	}
	return out, nil
}

// checkGrantable is update_acl's rule for a caller without
// Permissions.Modify on the path (pve-access-control 46bfd59 "acls:
// restrict less-privileged ACL modifications", 7d05a23): every privilege
// of the role must be held there and, when a propagating entry is added,
// held with propagation; NoAccess, which has none, is refused outright.
// PVE walks the role's privileges in hash order, so which of the first
// two texts a role failing both ways gets varies; the simulator walks them
// sorted.
func checkGrantable(role, verb string, privs, held map[string]bool, propagating bool) error {
	for _, p := range sortedKeys(privs) {
		heldPropagate, ok := held[p]
		if !ok {
			// pve-access-control src/PVE/API2/ACL.pm update_acl
			return paramError(map[string]string{"role": "Cannot " + verb + " role '" + role +
				"' - requires 'Permissions.Modify' or superset of privileges."})
		}
		if propagating && !heldPropagate {
			// pve-access-control src/PVE/API2/ACL.pm update_acl
			return paramError(map[string]string{"role": "Cannot " + verb + " role '" + role +
				"' with propagation - requires 'Permissions.Modify' or propagated superset of privileges."})
		}
	}
	if role == "NoAccess" {
		// pve-access-control src/PVE/API2/ACL.pm update_acl
		return paramError(map[string]string{"role": "Cannot " + verb + " role '" + role +
			"' - requires 'Permissions.Modify'"})
	}
	return nil
}
