package pvesim

import (
	"maps"
	"strings"
)

// Permission evaluation: pve-access-control src/PVE/AccessControl.pm roles
// and src/PVE/RPCEnvironment.pm permissions and $compile_acl_path. The
// model lock (Sim.mu) must be held: the ACL tree, the roles and the pools
// are read.

// aclRoles is AccessControl.pm roles: the roles of a user or token on a
// path, role -> propagate. root@pam is Administrator everywhere. A token
// without privilege separation has its user's roles; otherwise the walk
// from "/" down to the path looks, at each level, at the token's own
// entries, then the user's, then the groups' (the first that applies wins
// the level and replaces what the levels above gave); an entry applies on
// its own path, and below it only when it propagates. NoAccess, once
// reached, is all that is left.
func (a *Access) aclRoles(member string) func(path string) map[string]bool {
	return func(path string) map[string]bool {
		if member == "root@pam" {
			return map[string]bool{"Administrator": true}
		}
		if user, _, isToken := strings.Cut(member, "!"); isToken {
			t := a.token(member)
			if t == nil {
				return map[string]bool{}
			}
			if !t.Privsep {
				return a.aclRoles(user)(path)
			}
		}
		roles := map[string]bool{}
		levels := append([]string{""}, aclComponents(path)...)
		current := ""
		for i, comp := range levels {
			if i > 0 {
				current += "/" + comp
			}
			at := current
			if at == "" {
				at = "/"
			}
			node := a.ACL[at]
			if node == nil {
				continue
			}
			final := i == len(levels)-1
			if got := applicable(node.Tokens[member], final); got != nil {
				roles = got
				continue
			}
			if got := applicable(node.Users[member], final); got != nil {
				roles = got
				continue
			}
			var fromGroups map[string]bool
			for _, gid := range sortedKeys(node.Groups) {
				if !a.groupHas(gid, member) {
					continue
				}
				for role, propagate := range applicable(node.Groups[gid], final) {
					if fromGroups == nil {
						fromGroups = map[string]bool{}
					}
					fromGroups[role] = propagate
				}
			}
			if fromGroups != nil {
				roles = fromGroups
			}
		}
		if propagate, ok := roles["NoAccess"]; ok {
			return map[string]bool{"NoAccess": propagate}
		}
		return roles
	}
}

// applicable are the entries of one member on one level that reach the
// checked path: all of them on the path itself, the propagating ones above
// it; nil when none does.
func applicable(entries map[string]bool, final bool) map[string]bool {
	var out map[string]bool
	for role, propagate := range entries {
		if final || propagate {
			if out == nil {
				out = map[string]bool{}
			}
			out[role] = propagate
		}
	}
	return out
}

// permissions is RPCEnvironment.pm permissions: the privileges an identity
// holds on a path, each with whether it propagates (informational: a
// privilege is held when it is in the map). root@pam holds every privilege; a token without
// privilege separation its user's; a token with it the privileges of its
// own ACL entries that its user also holds. Roles granted on a pool reach
// the pool's guests (/vms/ID) and storages (/storage/ID) without
// propagating, unless the path's own roles are NoAccess; NoAccess on the
// pool takes the member's roles away. A test restriction (SetPrivileges)
// narrows the result.
func (s *Sim) permissions(id identity, path string) map[string]bool {
	member := id.String()
	var privs map[string]bool
	switch {
	case member == "root@pam":
		privs = maps.Clone(s.pve.specialRoles()["Administrator"])
	case id.tokenID != "":
		t := s.cluster.Access.token(id.tokenID)
		if t == nil {
			return map[string]bool{}
		}
		userPrivs := s.permissions(identity{user: id.user}, path)
		if !t.Privsep {
			privs = userPrivs
			break
		}
		privs = map[string]bool{}
		for p, propagate := range s.compileACLPath(member, path) {
			if userPropagate, ok := userPrivs[p]; ok {
				privs[p] = propagate && userPropagate
			}
		}
	default:
		privs = s.compileACLPath(member, path)
	}
	return s.restrict(member, privs)
}

// compileACLPath is RPCEnvironment.pm $compile_acl_path for a user or a
// privilege-separated token: its roles on the path, with the pool roles
// added, turned into privileges.
func (s *Sim) compileACLPath(member, path string) map[string]bool {
	a := s.cluster.Access
	rolesOn := a.aclRoles(member)
	roles := rolesOn(path)
	if poolRoles := s.poolRoles(rolesOn, path); poolRoles != nil {
		if _, denied := roles["NoAccess"]; !denied {
			if poolRoles["NoAccess"] {
				roles = map[string]bool{"NoAccess": false}
			} else {
				for role := range poolRoles {
					if _, ok := roles[role]; !ok {
						roles[role] = false
					}
				}
			}
		}
	}
	privs := map[string]bool{}
	for role, propagate := range roles {
		set, _ := a.role(&s.pve, role)
		for p := range set {
			privs[p] = privs[p] || propagate
		}
	}
	return privs
}

// poolRoles are the roles the pools holding a guest or storage give on its
// path (/vms/ID, /storage/ID); nil when no pool does.
func (s *Sim) poolRoles(rolesOn func(string) map[string]bool, path string) map[string]bool {
	var vmid int
	var storage string
	switch {
	case strings.HasPrefix(path, "/vms/"):
		n, ok := atoiStrict(strings.TrimPrefix(path, "/vms/"))
		if !ok {
			return nil
		}
		vmid = n
	case strings.HasPrefix(path, "/storage/"):
		storage = strings.TrimPrefix(path, "/storage/")
	default:
		return nil
	}
	var out map[string]bool
	for _, pid := range sortedKeys(s.cluster.Pools) {
		p := s.cluster.Pools[pid]
		if (storage == "" && !p.VMs[vmid]) || (storage != "" && !p.Storages[storage]) {
			continue
		}
		for role := range rolesOn("/pool/" + pid) {
			if out == nil {
				out = map[string]bool{}
			}
			out[role] = true
		}
	}
	return out
}

// restrict applies a SetPrivileges restriction of the identity, if any.
func (s *Sim) restrict(member string, privs map[string]bool) map[string]bool {
	s.hooksMu.Lock()
	limit, ok := s.restrictions[member]
	s.hooksMu.Unlock()
	if !ok {
		return privs
	}
	out := map[string]bool{}
	for p, propagate := range privs {
		if limit[p] {
			out[p] = propagate
		}
	}
	return out
}

// allowed tells whether id holds the privileges on path: all of them, or
// any of them with anyOf. The model lock must be held.
func (s *Sim) allowed(id identity, path string, anyOf bool, privs []string) bool {
	held := s.permissions(id, path)
	for _, p := range privs {
		_, ok := held[p]
		if ok && anyOf {
			return true
		}
		if !ok && !anyOf {
			return false
		}
	}
	return !anyOf || len(privs) == 0
}

// effectivePermissions is RPCEnvironment.pm get_effective_permissions: the
// privileges on the top-level paths, every ACL path and every pool member's
// path, leaving out paths without any.
func (s *Sim) effectivePermissions(id identity) map[string]map[string]bool {
	paths := map[string]bool{}
	for _, p := range []string{"/", "/access", "/access/groups", "/nodes", "/pool", "/sdn", "/storage", "/vms"} {
		paths[p] = true
	}
	// iterate_acl_tree visits the inner nodes of the tree too: the
	// ancestors of every ACL path.
	for p := range s.cluster.Access.ACL {
		for p != "/" && p != "" {
			paths[p] = true
			p = p[:strings.LastIndexByte(p, '/')]
		}
	}
	for _, pool := range s.cluster.Pools {
		for vmid := range pool.VMs {
			paths["/vms/"+itoa(vmid)] = true
		}
		for sid := range pool.Storages {
			paths["/storage/"+sid] = true
		}
	}
	out := map[string]map[string]bool{}
	for p := range paths {
		if privs := s.permissions(id, p); len(privs) > 0 {
			out[p] = privs
		}
	}
	return out
}

// atoiStrict parses a decimal number without sign or spaces.
func atoiStrict(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, true
}
