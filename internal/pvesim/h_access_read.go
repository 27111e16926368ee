package pvesim

import (
	"net/http"
	"sort"
	"strings"
)

// Read access to users and groups: pve-access-control
// src/PVE/API2/User.pm index and src/PVE/API2/Group.pm index, over
// user.cfg as src/PVE/AccessControl.pm parse_user_config reads it.
//
// The users are those the simulator knows: root@pam (which
// userconfig_force_defaults always adds), every user with a password
// login and every owner of an API token, each enabled and without
// expiry. Tokens are listed as privsep 0 (the simulator's tokens hold
// their user's privileges) without expiry.

// Group is a user group of user.cfg: its comment and members.
type Group struct {
	Comment string
	Users   []string
}

func (s *Sim) registerAccessReadRoutes() {
	s.handle(http.MethodGet, "/access/users", route{handle: s.listUsers})
	s.handle(http.MethodGet, "/access/groups", route{handle: listGroups})
	s.handle(http.MethodGet, "/access/users/{userid}", route{handle: s.readUser})
	s.handle(http.MethodGet, "/access/groups/{groupid}", route{
		perm:   permission{path: "/access/groups", any: true, privs: []string{"Sys.Audit", "Group.Allocate"}},
		handle: readGroup,
	})
}

// simUser is one user.cfg user entry.
type simUser struct {
	tokens []string // token names, sorted
	groups []string // sorted
}

// users is user.cfg's users as the simulator knows them.
func (s *Sim) users(cl *Cluster) map[string]*simUser {
	out := map[string]*simUser{"root@pam": {}}
	for u := range s.auth.passwords {
		if out[u] == nil {
			out[u] = &simUser{}
		}
	}
	for _, t := range s.auth.tokens {
		if out[t.user] == nil {
			out[t.user] = &simUser{}
		}
		_, name, _ := strings.Cut(t.id, "!")
		out[t.user].tokens = append(out[t.user].tokens, name)
	}
	for gid, g := range cl.Groups {
		for _, member := range g.Users {
			if u := out[member]; u != nil {
				u.groups = append(u.groups, gid)
			}
		}
	}
	for _, u := range out {
		sort.Strings(u.tokens)
		sort.Strings(u.groups)
	}
	return out
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
	privs := []string{"User.Modify", "Sys.Audit"}
	authUser := c.user.String()
	canUserMod := c.can("/access/groups", true, privs...)
	allowed := map[string]bool{}
	for gid, g := range c.cluster.Groups {
		if c.can("/access/groups/"+gid, true, privs...) {
			for _, m := range g.Users {
				allowed[m] = true
			}
		}
	}
	enabled, filter := c.param("enabled")
	full := c.boolParam("full")
	users := s.users(c.cluster)
	out := []map[string]any{}
	for _, id := range sortedKeys(users) {
		if !canUserMod && id != authUser && !allowed[id] {
			continue
		}
		if filter && enabled != "1" {
			continue // every simulated user is enabled
		}
		u := users[id]
		entry := map[string]any{"userid": id, "enable": 1, "expire": 0}
		if full {
			entry["groups"] = strings.Join(u.groups, ",")
			if len(u.tokens) == 0 {
				entry["tokens"] = nil
			} else {
				tokens := []map[string]any{}
				for _, name := range u.tokens {
					tokens = append(tokens, map[string]any{"tokenid": name, "privsep": 0, "expire": 0})
				}
				entry["tokens"] = tokens
			}
		}
		if _, realm, ok := strings.Cut(id, "@"); ok && (realm == "pam" || realm == "pve") {
			entry["realm-type"] = realm
		}
		out = append(out, entry)
	}
	return out, nil
}

// listGroups is Group.pm index: the groups where the caller has
// User.Modify, Sys.Audit or Group.Allocate on /access/groups/GROUP, each
// with its comment and its members comma-joined and sorted. PVE walks a
// Perl hash (no order); the simulator sorts by id.
func listGroups(c *call) (any, error) {
	out := []map[string]any{}
	for _, gid := range sortedKeys(c.cluster.Groups) {
		if !c.can("/access/groups/"+gid, true, "User.Modify", "Sys.Audit", "Group.Allocate") {
			continue
		}
		g := c.cluster.Groups[gid]
		members := append([]string(nil), g.Users...)
		sort.Strings(members)
		entry := map[string]any{"groupid": gid, "users": strings.Join(members, ",")}
		if g.Comment != "" {
			entry["comment"] = g.Comment
		}
		out = append(out, entry)
	}
	return out, nil
}

// readUser is pve-access-control src/PVE/API2/User.pm read_user. Its check
// is src/PVE/RPCEnvironment.pm check_api2_permissions' 'userid-group' with
// User.Modify or Sys.Audit: the user must exist (src/PVE/AccessControl.pm
// check_user_exist: "no such user"), then the caller needs one of them on /access/groups
// or on a group the user is in (else a bare permission error); root@pam
// skips the check. The answer is $extract_user_data with full: groups as a
// sorted array, tokens as a hash by name (null without tokens).
func (s *Sim) readUser(c *call) (any, error) {
	id := c.str("userid")
	users := s.users(c.cluster)
	u := users[id]
	if c.user.String() != "root@pam" {
		if u == nil {
			return nil, errorf("no such user ('%s')", id)
		}
		privs := []string{"User.Modify", "Sys.Audit"}
		if !c.can("/access/groups", true, privs...) {
			allowed := false
			for _, gid := range u.groups {
				if c.can("/access/groups/"+gid, true, privs...) {
					allowed = true
				}
			}
			if !allowed {
				return nil, permError("")
			}
		}
	}
	if u == nil {
		return nil, errorf("no such user ('%s')", id)
	}
	out := map[string]any{"enable": 1, "expire": 0, "groups": append([]string{}, u.groups...)}
	if len(u.tokens) == 0 {
		out["tokens"] = nil
	} else {
		tokens := map[string]any{}
		for _, name := range u.tokens {
			tokens[name] = map[string]any{"privsep": 0, "expire": 0}
		}
		out["tokens"] = tokens
	}
	return out, nil
}

// readGroup is pve-access-control src/PVE/API2/Group.pm read_group (its
// "does not exist" text): the members (keys of a Perl hash, no
// order; sorted here) and the comment.
func readGroup(c *call) (any, error) {
	gid := c.str("groupid")
	g := c.cluster.Groups[gid]
	if g == nil {
		return nil, errorf("group '%s' does not exist", gid)
	}
	members := append([]string{}, g.Users...)
	sort.Strings(members)
	out := map[string]any{"members": members}
	if g.Comment != "" {
		out["comment"] = g.Comment
	}
	return out, nil
}
