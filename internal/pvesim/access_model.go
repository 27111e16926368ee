package pvesim

import (
	"sort"
	"strings"
)

// Access is the cluster's access control configuration: user.cfg (users
// with their API tokens, groups, roles, the ACL tree) and domains.cfg (the
// authentication realms), as pve-access-control src/PVE/AccessControl.pm
// parse_user_config and src/PVE/Auth/Plugin.pm read them. Pools, which
// user.cfg also holds, are Cluster.Pools. Token secrets and passwords are
// not here: PVE keeps them in separate files (authState).
type Access struct {
	Users  map[string]*User
	Groups map[string]*Group
	// Roles are the roles user.cfg defines; the built-in ones are not
	// stored (userconfig_force_defaults adds them on every read, and
	// write_user_config skips them).
	Roles map[string]map[string]bool
	// ACL is the ACL tree, by normalized path.
	ACL    map[string]*ACLNode
	Realms map[string]*Realm
}

// User is one "user:" line of user.cfg with its tokens.
type User struct {
	Enable    bool
	Expire    int64 // epoch seconds; 0: never
	Firstname string
	Lastname  string
	Email     string
	Comment   string
	Keys      string
	Tokens    map[string]*Token
}

// Token is one "token:" line of user.cfg.
type Token struct {
	Privsep bool
	Expire  int64
	Comment string
}

// Group is a user group of user.cfg: its comment and members.
type Group struct {
	Comment string
	Users   []string
}

// ACLNode is the entries on one path: member -> role -> propagate, for
// users ("USER@REALM"), groups (without the "@") and tokens
// ("USER@REALM!NAME").
type ACLNode struct {
	Users  map[string]map[string]bool
	Groups map[string]map[string]bool
	Tokens map[string]map[string]bool
}

// Realm is one domains.cfg section: its type and properties (comment,
// default, tfa and the plugin's own) as strings the way the API takes them.
type Realm struct {
	Type  string
	Props map[string]string
}

// newAccess is the configuration of a fresh install:
// userconfig_force_defaults adds root@pam; the installer writes the pam and
// pve realms with the comments of pve-access-control src/PVE/Auth/PAM.pm
// and PVE.pm defaults (as GET /access/domains shows them).
func newAccess() *Access {
	return &Access{
		Users:  map[string]*User{"root@pam": {Enable: true}},
		Groups: map[string]*Group{},
		Roles:  map[string]map[string]bool{},
		ACL:    map[string]*ACLNode{},
		Realms: map[string]*Realm{
			"pam": {Type: "pam", Props: map[string]string{"comment": "Linux PAM standard authentication"}},
			"pve": {Type: "pve", Props: map[string]string{"comment": "Proxmox VE authentication server"}},
		},
	}
}

// seedIdentities adds the users and tokens of Options.Tokens and
// Options.Passwords, set up as an administrator would for a test harness:
// each user enabled, each token without privilege separation, and every
// user but root@pam (who needs no ACL) granted Administrator on "/". A test
// narrows them with SetPrivileges or through the API.
func (a *Access) seedIdentities(auth *authState) {
	add := func(user string) {
		if a.Users[user] == nil {
			a.Users[user] = &User{Enable: true}
			if user != "root@pam" {
				a.node("/").grant(aclUser, user, "Administrator", true)
			}
		}
	}
	for user := range auth.passwords {
		add(user)
	}
	for _, t := range auth.tokens {
		add(t.user)
		_, name, _ := strings.Cut(t.id, "!")
		u := a.Users[t.user]
		if u.Tokens == nil {
			u.Tokens = map[string]*Token{}
		}
		u.Tokens[name] = &Token{}
	}
}

// aclKind selects one of an ACL node's member maps.
type aclKind int

const (
	aclUser aclKind = iota
	aclGroup
	aclToken
)

func (n *ACLNode) members(kind aclKind) map[string]map[string]bool {
	switch kind {
	case aclGroup:
		if n.Groups == nil {
			n.Groups = map[string]map[string]bool{}
		}
		return n.Groups
	case aclToken:
		if n.Tokens == nil {
			n.Tokens = map[string]map[string]bool{}
		}
		return n.Tokens
	default:
		if n.Users == nil {
			n.Users = map[string]map[string]bool{}
		}
		return n.Users
	}
}

func (n *ACLNode) grant(kind aclKind, member, role string, propagate bool) {
	m := n.members(kind)
	if m[member] == nil {
		m[member] = map[string]bool{}
	}
	m[member][role] = propagate
}

// node returns the ACL node of a normalized path, creating it
// (find_acl_tree_node).
func (a *Access) node(path string) *ACLNode {
	n := a.ACL[path]
	if n == nil {
		n = &ACLNode{}
		a.ACL[path] = n
	}
	return n
}

// role returns a role's privileges: a built-in role of the release, or one
// of user.cfg.
func (a *Access) role(p *pveProfile, name string) (map[string]bool, bool) {
	if privs, ok := p.specialRoles()[name]; ok {
		return privs, true
	}
	privs, ok := a.Roles[name]
	return privs, ok
}

// groupHas tells whether user is a member of group.
func (a *Access) groupHas(group, user string) bool {
	g := a.Groups[group]
	if g == nil {
		return false
	}
	for _, m := range g.Users {
		if m == user {
			return true
		}
	}
	return false
}

// groupsOf are the groups a user is in, sorted.
func (a *Access) groupsOf(user string) []string {
	var out []string
	for gid := range a.Groups {
		if a.groupHas(gid, user) {
			out = append(out, gid)
		}
	}
	sort.Strings(out)
	return out
}

// token returns a token of user.cfg by its full id "USER@REALM!NAME".
func (a *Access) token(tokenID string) *Token {
	user, name, ok := strings.Cut(tokenID, "!")
	if !ok {
		return nil
	}
	u := a.Users[user]
	if u == nil {
		return nil
	}
	return u.Tokens[name]
}

// aclPaths are the paths of the ACL tree in iterate_acl_tree's order: a
// depth-first walk with the children of each node sorted by name.
func (a *Access) aclPaths() []string {
	paths := make([]string, 0, len(a.ACL))
	for p := range a.ACL {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool { return aclPathLess(paths[i], paths[j]) })
	return paths
}

// aclPathLess orders paths as a depth-first walk does: component by
// component, a parent before its children.
func aclPathLess(x, y string) bool {
	xs, ys := aclComponents(x), aclComponents(y)
	for i := 0; i < len(xs) && i < len(ys); i++ {
		if xs[i] != ys[i] {
			return xs[i] < ys[i]
		}
	}
	return len(xs) < len(ys)
}

// aclComponents splits a normalized path into its components; "/" has
// none.
func aclComponents(path string) []string {
	if path == "/" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(path, "/"), "/")
}

// normalizeACLPath is AccessControl.pm normalize_path: repeated slashes
// collapse, a trailing one goes, a leading one is added; "" when the path
// is empty or has other characters than alphanumerics, ".", "-", "_" and
// "/".
func normalizeACLPath(path string) string {
	if path == "" || path == "0" {
		return ""
	}
	for strings.Contains(path, "//") {
		path = strings.ReplaceAll(path, "//", "/")
	}
	path = strings.TrimSuffix(path, "/")
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	for _, r := range path {
		if !isAlnum(r) && r != '.' && r != '-' && r != '_' && r != '/' {
			return ""
		}
	}
	return path
}

// isAlnum is [[:alnum:]] for the ASCII letters and digits; Perl's class
// also takes other Unicode letters, which no simulated path uses.
func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// perlTruthy is a Perl string's truth: neither "" nor "0". user.cfg's
// parser keeps optional fields only when they are true.
func perlTruthy(s string) bool { return s != "" && s != "0" }
