package pvesim

import (
	"net/http"
	"strconv"
	"strings"
)

// Writes to users: pve-access-control src/PVE/API2/User.pm create_user,
// update_user and delete_user, and src/PVE/API2/AccessControl.pm
// change_password, over user.cfg (Access) and the realms' password stores
// (authState.passwords). The user.cfg changes run inside lock_user_config,
// which prefixes a failure with the operation ("create user failed: ...").

func (s *Sim) registerAccessUserRoutes() {
	s.handle(http.MethodPost, "/access/users", route{check: createUserCheck, handle: s.createUser})
	s.handle(http.MethodPut, "/access/users/{userid}", route{check: updateUserCheck, handle: updateUser})
	s.handle(http.MethodDelete, "/access/users/{userid}", route{check: deleteUserCheck, handle: s.deleteUser})
	s.handle(http.MethodPut, "/access/password", route{check: changePasswordCheck, handle: s.changePassword})
}

// createUserCheck is create_user's ['and', ['userid-param',
// 'Realm.AllocateUser'], ['userid-group', ['User.Modify'], groups_param =>
// 'create']] (pve-access-control src/PVE/API2/User.pm).
func createUserCheck(c *call) error {
	if err := c.useridRealmAllocate(); err != nil {
		return err
	}
	_, err := c.useridGroup([]string{"User.Modify"}, groupsCreate, false)
	return err
}

// updateUserCheck is update_user's ['userid-group', ['User.Modify'],
// groups_param => 'update'] (pve-access-control src/PVE/API2/User.pm): a
// caller without User.Modify on /access/groups must name groups, even to
// change only a name.
func updateUserCheck(c *call) error {
	_, err := c.useridGroup([]string{"User.Modify"}, groupsUpdate, false)
	return err
}

// deleteUserCheck is delete_user's ['and', ['userid-param',
// 'Realm.AllocateUser'], ['userid-group', ['User.Modify']]]
// (pve-access-control src/PVE/API2/User.pm).
func deleteUserCheck(c *call) error {
	if err := c.useridRealmAllocate(); err != nil {
		return err
	}
	_, err := c.useridGroup([]string{"User.Modify"}, groupsNone, false)
	return err
}

// changePasswordCheck is change_password's ['or', ['userid-param',
// 'self'], ['and', ['userid-param', 'Realm.AllocateUser'], ['userid-group',
// ['User.Modify']]]] (pve-access-control src/PVE/API2/AccessControl.pm).
// The 'and' inside the 'or' runs its tests without noerr
// (RPCEnvironment.pm exec_api2_perm_check), so its refusal names the realm
// path, and a missing user is "no such user".
func changePasswordCheck(c *call) error {
	if ok, err := c.useridSelf(); err != nil || ok {
		return err
	}
	if err := c.useridRealmAllocate(); err != nil {
		return err
	}
	_, err := c.useridGroup([]string{"User.Modify"}, groupsNone, false)
	return err
}

// userCfgText is a text field of a user or token line as user.cfg reads it
// back (pve-access-control src/PVE/AccessControl.pm write_user_config and
// parse_user_config): a false value is written empty, the parser trims the
// blanks around each field and keeps a field only when it is true.
func userCfgText(v string) string {
	if !perlTruthy(v) {
		return ""
	}
	v = strings.Trim(v, " ")
	if !perlTruthy(v) {
		return ""
	}
	return v
}

// epochParam reads an integer parameter the schema checked (is_integer:
// an optional sign, digits) as user.cfg stores it, int().
func epochParam(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(v, "+"), 10, 64)
	return n
}

// createUser is pve-access-control src/PVE/API2/User.pm create_user. The
// password is stored before the groups are checked and stays stored when
// a group does not exist (the realm's store is not user.cfg). Realms are
// case-sensitive here: lookup_username's case folding applies to LDAP and
// AD realms, which the simulator does not model.
func (s *Sim) createUser(c *call) (any, error) {
	fail := func(err error) error { return wrapLockError("create user failed", err) }
	a := c.cluster.Access
	userid := c.str("userid")
	ruid, realm, err := verifyUsername(userid)
	if err != nil {
		return nil, fail(err)
	}
	if a.Users[userid] != nil {
		return nil, fail(errorf("user '%s' already exists", userid))
	}
	if pw, ok := c.param("password"); ok {
		if err := s.setRealmPassword(realm, ruid, userid, pw); err != nil {
			return nil, fail(err)
		}
	}
	groups := splitList(c.str("groups"))
	for _, g := range groups {
		if a.Groups[g] == nil {
			// pve-access-control src/PVE/API2/User.pm create_user
			return nil, fail(errorf("no such group '%s'", g))
		}
	}
	u := &User{Enable: true}
	if v, ok := c.param("enable"); ok {
		u.Enable = v == "1"
	}
	u.Expire = epochParam(c.str("expire"))
	u.Firstname = userCfgText(c.str("firstname"))
	u.Lastname = userCfgText(c.str("lastname"))
	u.Email = userCfgText(c.str("email"))
	u.Comment = userCfgText(c.str("comment"))
	u.Keys = userCfgText(c.str("keys"))
	a.Users[userid] = u
	for _, g := range groups {
		a.addToGroup(g, userid)
	}
	return nil, nil
}

// updateUser is pve-access-control src/PVE/API2/User.pm update_user: each
// field given replaces the stored one, an empty one clears it (a form
// field without a value is not given at all; a JSON "" is); groups
// replace the memberships, or add to them with append; the first group
// that does not exist fails the whole update.
func updateUser(c *call) (any, error) {
	fail := func(err error) error { return wrapLockError("update user failed", err) }
	a := c.cluster.Access
	userid := c.str("userid")
	if _, _, err := verifyUsername(userid); err != nil {
		return nil, err
	}
	u, err := checkUserExist(a, userid)
	if err != nil {
		return nil, fail(err)
	}
	groupsText, setGroups := c.param("groups")
	groups := splitList(groupsText)
	for _, g := range groups {
		if a.Groups[g] == nil {
			// pve-access-control src/PVE/API2/User.pm update_user
			return nil, fail(errorf("no such group '%s'", g))
		}
	}
	if v, ok := c.param("enable"); ok {
		u.Enable = v == "1"
	}
	if v, ok := c.param("expire"); ok {
		u.Expire = epochParam(v)
	}
	if setGroups && !c.boolParam("append") {
		a.removeFromGroups(userid)
	}
	for _, g := range groups {
		a.addToGroup(g, userid)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{"firstname", &u.Firstname}, {"lastname", &u.Lastname}, {"email", &u.Email},
		{"comment", &u.Comment}, {"keys", &u.Keys},
	} {
		if v, ok := c.param(f.name); ok {
			*f.dst = userCfgText(v)
		}
	}
	return nil, nil
}

// deleteUser is pve-access-control src/PVE/API2/User.pm delete_user: the
// realm's delete_user (the pve realm drops the password; PAM keeps the
// system account), then the user with its tokens, its group memberships
// and its own ACL entries. Its tokens' ACL entries and token.cfg secrets
// are not removed there, but parse_user_config drops ACL entries of tokens
// that no longer exist and verify_token needs the token in user.cfg, so
// both go here. A user that does not exist is no error for root@pam, who
// skips the permission check that would refuse it. root@pam comes back
// (userconfig_force_defaults), enabled and with nothing else. TFA entries
// are not simulated.
func (s *Sim) deleteUser(c *call) (any, error) {
	a := c.cluster.Access
	userid := c.str("userid")
	_, realm, err := verifyUsername(userid)
	if err != nil {
		return nil, err
	}
	if r := a.Realms[realm]; r != nil && r.Type == "pve" {
		delete(s.auth.passwords, userid)
	}
	if u := a.Users[userid]; u != nil {
		for name := range u.Tokens {
			s.dropToken(a, userid+"!"+name)
		}
	}
	delete(a.Users, userid)
	a.removeFromGroups(userid)
	for _, n := range a.ACL {
		delete(n.Users, userid)
	}
	if userid == rootUser {
		a.Users[rootUser] = &User{Enable: true}
	}
	return nil, nil
}

// dropToken removes what a deleted token leaves behind: its secret
// (TokenConfig.pm delete_token) and its ACL entries, which
// parse_user_config ignores once the token is gone from user.cfg
// (pve-access-control src/PVE/AccessControl.pm).
func (s *Sim) dropToken(a *Access, tokenID string) {
	delete(s.auth.tokens, tokenID)
	for _, n := range a.ACL {
		delete(n.Tokens, tokenID)
	}
}

// addToGroup is AccessControl.pm add_user_group.
func (a *Access) addToGroup(group, userid string) {
	if !a.groupHas(group, userid) {
		g := a.Groups[group]
		g.Users = append(g.Users, userid)
	}
}

// removeFromGroups is AccessControl.pm delete_user_group: the user leaves
// every group.
func (a *Access) removeFromGroups(userid string) {
	for _, g := range a.Groups {
		kept := g.Users[:0]
		for _, m := range g.Users {
			if m != userid {
				kept = append(kept, m)
			}
		}
		g.Users = kept
	}
}

// setRealmPassword is pve-access-control src/PVE/AccessControl.pm
// domain_set_password with the realm plugin's store_password: the pve
// realm keeps it in its shadow file (Auth/PVE.pm); PAM runs usermod on the
// node (Auth/PAM.pm), which needs the system account; other realm types
// cannot store one (Auth/Plugin.pm).
func (s *Sim) setRealmPassword(realm, ruid, userid, password string) error {
	r := s.cluster.Access.Realms[realm]
	if r == nil {
		// pve-access-control src/PVE/AccessControl.pm domain_set_password
		return errorf("auth domain '%s' does not exist", realm)
	}
	switch r.Type {
	case "pve":
		s.auth.passwords[userid] = password
		return nil
	case "pam":
		if !s.systemAccount(ruid) {
			// pve-access-control src/PVE/Auth/PAM.pm store_password runs
			// usermod with errmsg 'change password failed'; pve-common
			// src/PVE/Cmd.pm run strips the "usermod: " of its last
			// stderr line. inferred: usermod's own text (shadow-utils).
			return errorf("change password failed: user '%s' does not exist", ruid)
		}
		s.auth.passwords[userid] = password
		return nil
	}
	// pve-access-control src/PVE/Auth/Plugin.pm store_password
	return errorf("can't set password on auth type '%s'", r.Type)
}

// systemAccount tells whether the node has a system (PAM) account: root,
// and the pam users given a password in Options.Passwords. inferred: the
// simulator models no /etc/passwd; these are the accounts its tests set
// up.
func (s *Sim) systemAccount(ruid string) bool {
	_, ok := s.auth.passwords[ruid+"@pam"]
	return ruid == "root" || ok
}

// changePassword is pve-access-control src/PVE/API2/AccessControl.pm
// change_password after its permission check (changePasswordCheck; the
// schema's allowtoken => 0 keeps tokens out): RPCEnvironment.pm
// reauth_user_for_user_modification (the user must exist; only root@pam
// changes root@pam's password; everyone else confirms with their own
// current password), then a user other than root@pam may change another
// user's password only outside the pam realm, and the realm stores it.
func (s *Sim) changePassword(c *call) (any, error) {
	a := c.cluster.Access
	auth := c.user.String()
	userid := c.str("userid")
	ruid, realm, err := verifyUsername(userid)
	if err != nil {
		return nil, err
	}
	if _, err := checkUserExist(a, userid); err != nil {
		return nil, err
	}
	if auth != rootUser {
		// pve-access-control src/PVE/RPCEnvironment.pm
		// reauth_user_for_user_modification
		if userid == rootUser {
			return nil, permError("")
		}
		confirm, ok := c.param("confirmation-password")
		if !ok {
			return nil, paramError(map[string]string{"confirmation-password": "password is required to modify user"})
		}
		if err := s.authenticateUser(auth, confirm); err != nil {
			return nil, err
		}
		// pve-access-control src/PVE/API2/AccessControl.pm change_password:
		// no system user's password for anyone but root@pam.
		if auth != userid && realm == "pam" {
			return nil, permError("")
		}
	}
	return nil, s.setRealmPassword(realm, ruid, userid, c.str("password"))
}

// authenticateUser is the realm plugin's authenticate_user for a password
// confirmation: pve-access-control src/PVE/Auth/PVE.pm ("no password set",
// "invalid credentials") and src/PVE/Auth/PAM.pm (PAM's own text).
func (s *Sim) authenticateUser(userid, password string) error {
	_, realm, err := verifyUsername(userid)
	if err != nil {
		return err
	}
	r := s.cluster.Access.Realms[realm]
	if r == nil {
		// pve-access-control src/PVE/RPCEnvironment.pm
		// reauth_user_for_user_modification
		return errorf("auth domain '%s' does not exist", realm)
	}
	want, known := s.auth.passwords[userid]
	switch r.Type {
	case "pve":
		if !known {
			// pve-access-control src/PVE/Auth/PVE.pm authenticate_user
			return errorf("no password set")
		}
		if want != password {
			// pve-access-control src/PVE/Auth/PVE.pm authenticate_user
			return errorf("invalid credentials")
		}
		return nil
	case "pam":
		if !known || want != password {
			// pve-access-control src/PVE/Auth/PAM.pm authenticate_user
			// dies with pam_strerror's text. inferred: Linux-PAM words
			// PAM_AUTH_ERR "Authentication failure", which Debian's
			// common-auth stack gives for an unknown user too.
			return errorf("Authentication failure")
		}
		return nil
	}
	// not simulated: authentication against LDAP, AD or OpenID realms.
	return errorf("not simulated: authentication for realm type '%s'", r.Type)
}
