package pvesim

import (
	"net/http"
	"sort"
	"strings"
)

// Read access to users and groups: pve-access-control
// src/PVE/API2/User.pm index and read_user, src/PVE/API2/Group.pm index
// and read_group, over user.cfg as src/PVE/AccessControl.pm
// parse_user_config reads it (access_model.go).

func (s *Sim) registerAccessReadRoutes() {
	s.handle(http.MethodGet, "/access/users", route{handle: s.listUsers})
	s.handle(http.MethodGet, "/access/groups", route{handle: listGroups})
	s.handle(http.MethodGet, "/access/users/{userid}", route{check: readUserCheck, handle: s.readUser})
	s.handle(http.MethodGet, "/access/permissions", route{handle: s.readPermissions})
	s.handle(http.MethodGet, "/access/groups/{groupid}", route{
		perm:   permission{path: "/access/groups", any: true, privs: []string{"Sys.Audit", "Group.Allocate"}},
		handle: readGroup,
	})
}

// userData is User.pm $extract_user_data over a user as parse_user_config
// reads its line back: enable and expire always; firstname, lastname and
// comment when not empty ("0" counts as empty); email whenever a field
// after it (comment, keys) is set, as the line's trailing empty fields are
// all Perl's split drops; keys when set. full adds the sorted groups and
// the tokens (undefined, so null, for a user without any).
func userData(a *Access, id string, u *User, full bool) map[string]any {
	out := map[string]any{"enable": boolInt(u.Enable), "expire": u.Expire}
	for _, f := range []struct{ key, val string }{
		{"firstname", u.Firstname}, {"lastname", u.Lastname}, {"comment", u.Comment}, {"keys", u.Keys},
	} {
		if perlTruthy(f.val) {
			out[f.key] = f.val
		}
	}
	if u.Email != "" || u.Comment != "" || u.Keys != "" {
		out["email"] = u.Email
	}
	if !full {
		return out
	}
	out["groups"] = append([]string{}, a.groupsOf(id)...)
	if len(u.Tokens) == 0 {
		out["tokens"] = nil
	} else {
		tokens := map[string]any{}
		for name, t := range u.Tokens {
			tokens[name] = tokenData(t)
		}
		out["tokens"] = tokens
	}
	return out
}

// tokenData is a token's entry as parse_user_config reads it: privsep and
// expire always, the comment when not empty.
func tokenData(t *Token) map[string]any {
	out := map[string]any{"privsep": boolInt(t.Privsep), "expire": t.Expire}
	if perlTruthy(t.Comment) {
		out["comment"] = t.Comment
	}
	return out
}

// canSeeUser is the visibility test of User.pm index and of
// RPCEnvironment.pm's 'userid-group' check: one of privs on
// /access/groups, or on a group the user is in.
func (c *call) canSeeUser(userid string, privs ...string) bool {
	if c.can("/access/groups", true, privs...) {
		return true
	}
	for _, gid := range c.cluster.Access.groupsOf(userid) {
		if c.can("/access/groups/"+gid, true, privs...) {
			return true
		}
	}
	return false
}

// listUsers is User.pm index: every user when the caller has User.Modify
// or Sys.Audit on /access/groups; else the caller itself (a token is not
// its user) and the members of the groups where the caller has one of
// them on /access/groups/GROUP. enabled filters; full adds groups (the
// sorted array, which index then joins with commas, "" when empty) and
// tokens (an array of objects, null for a user without any:
// $extract_user_data copies the undefined hash). realm-type comes from
// domains.cfg.
func (s *Sim) listUsers(c *call) (any, error) {
	a := c.cluster.Access
	authUser := c.user.String()
	enabled, filter := c.param("enabled")
	full := c.boolParam("full")
	out := []map[string]any{}
	for _, id := range sortedKeys(a.Users) {
		if id != authUser && !c.canSeeUser(id, "User.Modify", "Sys.Audit") {
			continue
		}
		u := a.Users[id]
		if filter && u.Enable != (enabled == "1") {
			continue
		}
		entry := userData(a, id, u, full)
		if full {
			entry["groups"] = strings.Join(entry["groups"].([]string), ",")
			if len(u.Tokens) > 0 {
				tokens := []map[string]any{}
				for _, name := range sortedKeys(u.Tokens) {
					t := tokenData(u.Tokens[name])
					t["tokenid"] = name
					tokens = append(tokens, t)
				}
				entry["tokens"] = tokens
			}
		}
		if i := strings.LastIndexByte(id, '@'); i >= 0 {
			if realm := a.Realms[id[i+1:]]; realm != nil {
				entry["realm-type"] = realm.Type
			}
		}
		entry["userid"] = id
		out = append(out, entry)
	}
	return out, nil
}

// listGroups is Group.pm index: the groups where the caller has
// User.Modify, Sys.Audit or Group.Allocate on /access/groups/GROUP, each
// with its comment and its members comma-joined and sorted. PVE walks a
// Perl hash (no order); the simulator sorts by id.
func listGroups(c *call) (any, error) {
	groups := c.cluster.Access.Groups
	out := []map[string]any{}
	for _, gid := range sortedKeys(groups) {
		if !c.can("/access/groups/"+gid, true, "User.Modify", "Sys.Audit", "Group.Allocate") {
			continue
		}
		g := groups[gid]
		entry := map[string]any{"groupid": gid, "users": strings.Join(sortedStrings(g.Users), ",")}
		if perlTruthy(g.Comment) {
			entry["comment"] = g.Comment
		}
		out = append(out, entry)
	}
	return out, nil
}

// readUserCheck is read_user's check (pve-access-control
// src/PVE/API2/User.pm): RPCEnvironment.pm exec_api2_perm_check's
// 'userid-group' with User.Modify or Sys.Audit: the user must exist
// ("no such user"), then the caller needs one of them on /access/groups or
// on a group the user is in (else a bare permission error).
func readUserCheck(c *call) error {
	_, err := c.useridGroup([]string{"User.Modify", "Sys.Audit"}, groupsNone, false)
	return err
}

// readUser is pve-access-control src/PVE/API2/User.pm read_user:
// $extract_user_data with full, for a user that exists (root@pam skips
// the check, AccessControl.pm check_user_exist says it here).
func (s *Sim) readUser(c *call) (any, error) {
	id := c.str("userid")
	a := c.cluster.Access
	u, err := checkUserExist(a, id)
	if err != nil {
		return nil, err
	}
	return userData(a, id, u, true), nil
}

// readGroup is pve-access-control src/PVE/API2/Group.pm read_group (its "does not exist" text): the
// members (keys of a Perl hash, no order; sorted here) and the comment.
func readGroup(c *call) (any, error) {
	gid := c.str("groupid")
	g := c.cluster.Access.Groups[gid]
	if g == nil {
		return nil, errorf("group '%s' does not exist", gid)
	}
	out := map[string]any{"members": append([]string{}, sortedStrings(g.Users)...)}
	if perlTruthy(g.Comment) {
		out["comment"] = g.Comment
	}
	return out, nil
}

// sortedStrings returns a sorted copy.
func sortedStrings(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// readPermissions is pve-access-control src/PVE/API2/AccessControl.pm
// permissions: the privileges of a user or token (the caller by default),
// privilege -> propagate as 0/1, on one path or, without one, on every path
// of RPCEnvironment.pm get_effective_permissions. Callers may read their
// own and their tokens'; anyone else needs Sys.Audit on /access.
func (s *Sim) readPermissions(c *call) (any, error) {
	auth := c.user.String()
	target, ok := c.param("userid")
	if !ok {
		target = auth
	}
	owner, _, isToken := strings.Cut(target, "!")
	if target != auth && (!isToken || owner != auth) {
		if err := c.check("/access", false, "Sys.Audit"); err != nil {
			return nil, err
		}
	}
	id := identity{user: target}
	if isToken {
		id = identity{user: owner, tokenID: target}
	}
	asInts := func(privs map[string]bool) map[string]int {
		out := make(map[string]int, len(privs))
		for p, propagate := range privs {
			out[p] = boolInt(propagate)
		}
		return out
	}
	out := map[string]map[string]int{}
	if path := c.str("path"); path != "" {
		out[path] = asInts(s.permissions(id, path))
		return out, nil
	}
	for path, privs := range s.effectivePermissions(id) {
		out[path] = asInts(privs)
	}
	return out, nil
}
