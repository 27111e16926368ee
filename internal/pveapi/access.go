package pveapi

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// The access control calls: users and API tokens (access_users.go),
// groups, roles, ACL entries and effective permissions (this file),
// authentication realms (access_realms.go), and PVE's refusals among them
// (access_errors.go). PVE keeps them all in the cluster file system
// (user.cfg, domains.cfg), so every write is synchronous and applies
// cluster-wide at once; only a realm sync runs as a task.

// GroupSummary is one entry of GET /access/groups.
type GroupSummary struct {
	GroupID string `json:"groupid"`
	Comment string `json:"comment,omitempty"`
	Users   IDList `json:"users,omitempty"` // member user ids
}

// Group is GET /access/groups/{groupid}, GroupID filled in.
type Group struct {
	GroupID string `json:"groupid"`
	Comment string `json:"comment,omitempty"`
	Members IDList `json:"members,omitempty"` // user ids, in no particular order
}

// Groups lists the groups the caller may see.
func (c *Client) Groups(ctx context.Context) ([]GroupSummary, error) {
	var out []GroupSummary
	if err := c.Get(ctx, "/access/groups", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetGroup reads one group. A missing group is an error IsNoSuchGroup
// recognises.
func (c *Client) GetGroup(ctx context.Context, groupid string) (*Group, error) {
	var out Group
	if err := c.Get(ctx, groupPath(groupid), nil, &out); err != nil {
		return nil, err
	}
	out.GroupID = groupid
	return &out, nil
}

// CreateGroup creates an empty group. PVE keeps no empty or "0" comment
// (src/PVE/API2/Group.pm create_group), so those are not sent.
func (c *Client) CreateGroup(ctx context.Context, groupid, comment string) error {
	form := url.Values{"groupid": {groupid}}
	if comment != "" {
		form.Set("comment", comment)
	}
	return c.Post(ctx, "/access/groups", form, nil)
}

// UpdateGroup sets a group's comment; "" clears it (PVE stores any comment
// sent, src/PVE/API2/Group.pm update_group). Members are set on the users
// (UserUpdate.Groups).
func (c *Client) UpdateGroup(ctx context.Context, groupid, comment string) error {
	return c.Put(ctx, groupPath(groupid), url.Values{"comment": {comment}}, nil)
}

// DeleteGroup deletes a group and the ACL entries that name it; its
// members stay.
func (c *Client) DeleteGroup(ctx context.Context, groupid string) error {
	return c.Delete(ctx, groupPath(groupid), nil, nil)
}

func groupPath(groupid string) string { return "/access/groups/" + url.PathEscape(groupid) }

// RoleSummary is one entry of GET /access/roles. Special marks PVE's
// built-in roles, which cannot be changed or deleted.
type RoleSummary struct {
	RoleID  string `json:"roleid"`
	Privs   IDList `json:"privs,omitempty"` // sorted
	Special Bool01 `json:"special,omitempty"`
}

// Roles lists every role, built-in ones included.
func (c *Client) Roles(ctx context.Context) ([]RoleSummary, error) {
	var out []RoleSummary
	if err := c.Get(ctx, "/access/roles", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetRole returns a role's privileges, sorted. PVE answers an object with
// one key per privilege, each set to 1. A missing role is an error
// IsNoSuchRole recognises.
func (c *Client) GetRole(ctx context.Context, roleid string) ([]string, error) {
	var raw map[string]Bool01
	if err := c.Get(ctx, rolePath(roleid), nil, &raw); err != nil {
		return nil, err
	}
	privs := make([]string, 0, len(raw))
	for priv, set := range raw {
		if set {
			privs = append(privs, priv)
		}
	}
	sort.Strings(privs)
	return privs, nil
}

// CreateRole creates a role with the given privileges (none is allowed).
func (c *Client) CreateRole(ctx context.Context, roleid string, privs []string) error {
	form := url.Values{"roleid": {roleid}}
	if len(privs) > 0 {
		form.Set("privs", strings.Join(privs, ","))
	}
	return c.Post(ctx, "/access/roles", form, nil)
}

// UpdateRole replaces a role's privileges, or adds to them when
// appendPrivs is set. Replacing with no privileges empties the role (PVE
// clears the role unless append is sent, src/PVE/API2/Role.pm
// update_role).
func (c *Client) UpdateRole(ctx context.Context, roleid string, privs []string, appendPrivs bool) error {
	form := url.Values{}
	if len(privs) > 0 {
		form.Set("privs", strings.Join(privs, ","))
		if appendPrivs {
			form.Set("append", FormBool(true))
		}
	}
	return c.Put(ctx, rolePath(roleid), form, nil)
}

// DeleteRole deletes a role. ACL entries naming it vanish with it: PVE
// skips entries whose role does not exist when it reads user.cfg
// (src/PVE/AccessControl.pm parse_user_config).
func (c *Client) DeleteRole(ctx context.Context, roleid string) error {
	return c.Delete(ctx, rolePath(roleid), nil, nil)
}

func rolePath(roleid string) string { return "/access/roles/" + url.PathEscape(roleid) }

// ACL entry types, as GET /access/acl names them.
const (
	ACLTypeUser  = "user"
	ACLTypeGroup = "group"
	ACLTypeToken = "token"
)

// ACLEntry is one entry of GET /access/acl: one role granted to one user,
// group or token (UGID, by Type) on one path.
type ACLEntry struct {
	Path      string `json:"path"`
	Type      string `json:"type"`
	UGID      string `json:"ugid"`
	RoleID    string `json:"roleid"`
	Propagate Bool01 `json:"propagate"`
}

// UnmarshalJSON decodes an entry; it propagates unless PVE says otherwise.
func (e *ACLEntry) UnmarshalJSON(data []byte) error {
	type plain ACLEntry
	decoded := plain{Propagate: true}
	if err := json.Unmarshal(data, &decoded); err != nil {
		return err
	}
	*e = ACLEntry(decoded)
	return nil
}

// ACLChange is PUT /access/acl: each role is granted on Path to each user,
// group and token listed, or taken from them with Delete. PVE needs at
// least one user, group or token.
type ACLChange struct {
	Path      string
	Roles     []string
	Users     []string
	Groups    []string
	Tokens    []string // full token ids, USER@REALM!TOKENID
	Propagate *bool    // nil: PVE's default, propagate
	Delete    bool
}

// ACL lists the ACL entries the caller may see (all of them with
// Sys.Audit on /access).
func (c *Client) ACL(ctx context.Context) ([]ACLEntry, error) {
	var out []ACLEntry
	if err := c.Get(ctx, "/access/acl", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateACL grants or revokes roles on a path.
func (c *Client) UpdateACL(ctx context.Context, change ACLChange) error {
	form := url.Values{"path": {change.Path}, "roles": {strings.Join(change.Roles, ",")}}
	for key, ids := range map[string][]string{"users": change.Users, "groups": change.Groups, "tokens": change.Tokens} {
		if len(ids) > 0 {
			form.Set(key, strings.Join(ids, ","))
		}
	}
	if change.Propagate != nil {
		form.Set("propagate", FormBool(*change.Propagate))
	}
	if change.Delete {
		form.Set("delete", FormBool(true))
	}
	return c.Put(ctx, "/access/acl", form, nil)
}

// Permissions are effective privileges: ACL path to privilege to whether
// the privilege propagates below the path.
type Permissions map[string]map[string]bool

// GetPermissions returns the effective privileges of a user or token
// (USER@REALM or USER@REALM!TOKENID; empty for the caller), on path only
// when path is not empty, else on every path that has any. Reading
// another user's needs Sys.Audit on /access, except for one's own tokens.
func (c *Client) GetPermissions(ctx context.Context, userid, path string) (Permissions, error) {
	query := url.Values{}
	if userid != "" {
		query.Set("userid", userid)
	}
	if path != "" {
		query.Set("path", path)
	}
	var raw map[string]map[string]Bool01
	if err := c.Get(ctx, "/access/permissions", query, &raw); err != nil {
		return nil, err
	}
	out := make(Permissions, len(raw))
	for p, privs := range raw {
		out[p] = make(map[string]bool, len(privs))
		for priv, propagate := range privs {
			out[p][priv] = bool(propagate)
		}
	}
	return out, nil
}
