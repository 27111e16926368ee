package pvesim

import (
	"regexp"
	"strings"
)

// The permission tests of the user and token methods: pve-access-control
// src/PVE/RPCEnvironment.pm exec_api2_perm_check, its 'userid-group' and
// 'userid-param' tests. A route runs them as its check (route.check),
// before the parameters are validated, so they see the raw userid. The
// model lock must be held.

// rootUser is the superuser check_api2_permissions lets through every check.
const rootUser = "root@pam"

// userNamePattern is Auth/Plugin.pm's m!^(${user_regex})\@(${realm_regex})$!:
// the user part may itself hold an '@' (the last one splits).
var userNamePattern = regexp.MustCompile(`^([^\s:/]+)@([A-Za-z][A-Za-z0-9.\-_]+)$`)

// verifyUsername is pve-access-control src/PVE/Auth/Plugin.pm
// verify_username: the user id split into the name inside its realm and the
// realm, or its error.
func verifyUsername(userid string) (ruid, realm string, err error) {
	if n := len(userid); n < 3 {
		return "", "", errorf("user name '%s' is too short", userid)
	} else if n > 64 {
		return "", "", errorf("user name '%s' is too long (%d > 64)", userid, n)
	}
	m := userNamePattern.FindStringSubmatch(userid)
	if m == nil {
		return "", "", errorf("value '%s' does not look like a valid user name", userid)
	}
	return m[1], m[2], nil
}

// checkUserExist is pve-access-control src/PVE/AccessControl.pm
// check_user_exist: the user of user.cfg, or "no such user".
func checkUserExist(a *Access, userid string) (*User, error) {
	if _, _, err := verifyUsername(userid); err != nil {
		return nil, err
	}
	if u := a.Users[userid]; u != nil {
		return u, nil
	}
	return nil, errorf("no such user ('%s')", userid)
}

// checkTokenExist is pve-access-control src/PVE/AccessControl.pm
// check_token_exist: the user must exist, then the token.
func checkTokenExist(a *Access, userid, tokenid string) (*User, *Token, error) {
	u, err := checkUserExist(a, userid)
	if err != nil {
		return nil, nil, err
	}
	if t := u.Tokens[tokenid]; t != nil {
		return u, t, nil
	}
	return nil, nil, errorf("no such token '%s' for user '%s'", tokenid, userid)
}

// groupsParam is the groups_param option of a 'userid-group' test.
type groupsParam int

const (
	groupsNone groupsParam = iota
	// groupsCreate: the user need not exist yet; the caller needs the
	// privileges on every group of the groups parameter.
	groupsCreate
	// groupsUpdate: as groupsCreate, and the user must exist and be a
	// member of a group where the caller holds them.
	groupsUpdate
)

// useridGroup is pve-access-control src/PVE/RPCEnvironment.pm
// exec_api2_perm_check's 'userid-group':
// pass with any of privs on /access/groups; otherwise with groups_param the
// caller needs them on each group named (none named: refused naming
// /access/groups), and for an existing user on a group the user is in.
// With noerr a refusal is false without an error (inside an 'or'); a user
// that does not exist is then false too, else "no such user".
func (c *call) useridGroup(privs []string, groups groupsParam, noerr bool) (bool, error) {
	userid := c.str("userid")
	a := c.cluster.Access
	checkExisting := groups != groupsCreate
	if checkExisting {
		if _, err := checkUserExist(a, userid); err != nil {
			if noerr {
				return false, nil
			}
			return false, err
		}
	}
	if c.can("/access/groups", true, privs...) {
		return true, nil
	}
	want := strings.Join(privs, "|")
	if groups != groupsNone {
		named := splitList(c.str("groups"))
		if len(named) == 0 {
			return false, permError("/access/groups, " + want)
		}
		for _, g := range named {
			// filter_groups: only groups of user.cfg count.
			if a.Groups[g] == nil || !c.can("/access/groups/"+g, true, privs...) {
				return false, permError("/access/groups/" + g + ", " + want)
			}
		}
	}
	if checkExisting && !c.canSeeUser(userid, privs...) {
		if noerr {
			return false, nil
		}
		return false, permError("")
	}
	return true, nil
}

// useridSelf is pve-access-control src/PVE/RPCEnvironment.pm
// exec_api2_perm_check's ['userid-param', 'self']: the
// caller is the user (a token is not its user). An invalid user id dies
// even inside an 'or'; a missing user is false.
func (c *call) useridSelf() (bool, error) {
	userid := c.str("userid")
	if _, _, err := verifyUsername(userid); err != nil {
		return false, err
	}
	if c.cluster.Access.Users[userid] == nil {
		return false, nil
	}
	return c.user.String() == userid, nil
}

// useridRealmAllocate is pve-access-control src/PVE/RPCEnvironment.pm
// exec_api2_perm_check's ['userid-param', 'Realm.AllocateUser']: that privilege on /access/realm/REALM of the user
// id's realm.
func (c *call) useridRealmAllocate() error {
	_, realm, err := verifyUsername(c.str("userid"))
	if err != nil {
		return err
	}
	return c.check("/access/realm/"+realm, false, "Realm.AllocateUser")
}

// selfOrUserModify is the check of the token methods (pve-access-control
// src/PVE/API2/User.pm token_index, read_token, generate_token,
// update_token_info, remove_token): ['or', ['userid-param', 'self'],
// ['userid-group', ['User.Modify']]]; when neither passes, a bare
// permission error.
func selfOrUserModify(c *call) error {
	if ok, err := c.useridSelf(); err != nil || ok {
		return err
	}
	if ok, err := c.useridGroup([]string{"User.Modify"}, groupsNone, true); err != nil || ok {
		return err
	}
	return permError("")
}
