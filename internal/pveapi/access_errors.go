package pveapi

import (
	"regexp"
	"strings"
)

// PVE's refusals around users, tokens, groups, roles and realms. The
// handlers die with plain texts (500); a handler that works under the
// user.cfg or domains.cfg lock prefixes its own words and ": " ("create
// user failed: user 'x' already exists", pve-access-control
// src/PVE/AccessControl.pm lock_user_config, src/PVE/Auth/Plugin.pm
// lock_domain_config), so the patterns match the text at the end of the
// message's first line. A few refusals are parameter errors (400) and
// are found in the error's per-parameter map instead.

// accessRefusal is one text PVE answers with: a pattern for the end of
// the message, or param and text for a 400 parameter error.
type accessRefusal struct {
	pattern *regexp.Regexp
	param   string
	text    string
}

func refusalText(pattern string) accessRefusal {
	return accessRefusal{pattern: regexp.MustCompile(`(?:^|: )` + pattern + `$`)}
}

func refusalParam(param, text string) accessRefusal {
	return accessRefusal{param: param, text: text}
}

func matchesRefusal(err error, refusals []accessRefusal) bool {
	apiErr, ok := AsError(err)
	if !ok {
		return false
	}
	line := firstLine(apiErr.Message)
	for _, r := range refusals {
		switch {
		case r.pattern != nil:
			if apiErr.StatusCode == 500 && r.pattern.MatchString(line) {
				return true
			}
		case apiErr.StatusCode == 400 && strings.TrimSpace(apiErr.Errors[r.param]) == r.text:
			return true
		}
	}
	return false
}

var (
	noSuchUser = []accessRefusal{
		// src/PVE/AccessControl.pm check_user_exist: reading, updating,
		// deleting a user, its tokens or its password (also from the
		// permission check, src/PVE/RPCEnvironment.pm check_api2_permissions
		// userid-group).
		refusalText(`no such user \('[^']*'\)`),
		// src/PVE/API2/ACL.pm update_acl: an ACL entry for a missing user.
		refusalText(`user '[^']*' does not exist`),
	}
	userExists = []accessRefusal{
		// src/PVE/API2/User.pm create_user.
		refusalText(`user '[^']*' already exists`),
	}
	noSuchGroup = []accessRefusal{
		// src/PVE/API2/Group.pm read_group, update_group, delete_group;
		// src/PVE/API2/ACL.pm update_acl.
		refusalText(`group '[^']*' does not exist`),
		// src/PVE/API2/User.pm create_user, update_user: a user put into
		// a missing group.
		refusalText(`no such group '[^']*'`),
	}
	groupExists = []accessRefusal{
		// src/PVE/API2/Group.pm create_group.
		refusalText(`group '[^']*' already exists`),
	}
	noSuchRole = []accessRefusal{
		// src/PVE/API2/Role.pm read_role, update_role, delete_role;
		// src/PVE/API2/ACL.pm update_acl; src/PVE/AccessControl.pm
		// add_role_privs.
		refusalText(`role '[^']*' does not exist`),
	}
	roleExists = []accessRefusal{
		// src/PVE/API2/Role.pm create_role.
		refusalText(`role '[^']*' already exists`),
	}
	builtinRoleChange = []accessRefusal{
		// src/PVE/API2/Role.pm update_role, delete_role.
		refusalText(`auto-generated role '[^']*' cannot be (?:modified|deleted)`),
		// src/PVE/API2/Role.pm create_role: the PVE prefix is reserved.
		refusalParam("roleid", "cannot use role ID starting with the (case-insensitive) 'PVE' namespace"),
	}
	noSuchToken = []accessRefusal{
		// src/PVE/AccessControl.pm check_token_exist: reading, updating
		// or deleting a token, or an ACL entry for a missing token.
		refusalText(`no such token '[^']*' for user '[^']*'`),
	}
	tokenExists = []accessRefusal{
		// src/PVE/API2/User.pm generate_token: found before the lock, or
		// under it ("generating token failed: Token already exists.").
		refusalParam("tokenid", "Token already exists."),
		refusalText(`Token already exists\.`),
	}
	noSuchRealm = []accessRefusal{
		// src/PVE/API2/Domains.pm read, update.
		refusalText(`domain '[^']*' does not exist`),
		// src/PVE/API2/Domains.pm delete ("authentication domain"), and
		// src/PVE/AccessControl.pm / src/PVE/API2/User.pm ("auth domain").
		refusalText(`(?:authentication|auth) domain '[^']*' does not exist`),
		// src/PVE/API2/Domains.pm sync.
		refusalParam("realm", "Realm does not exist."),
	}
	realmExists = []accessRefusal{
		// src/PVE/API2/Domains.pm create.
		refusalText(`domain '[^']*' already exists`),
	}
	realmsChanged = []accessRefusal{
		// src/PVE/API2/Domains.pm update: pve-common src/PVE/SectionConfig.pm
		// assert_if_modified under the domains.cfg lock ("update auth
		// server failed: detected modified configuration - ...").
		refusalText(`detected modified configuration - file changed by other user\? Try again\.`),
	}
	// src/PVE/AccessControl.pm verify_privname (the pve-priv format, a
	// 400 on privs: "invalid format - invalid privilege 'X'") and
	// add_role_privs (a 500).
	invalidPrivilegePattern = regexp.MustCompile(`invalid privilege '([^']*)'$`)
)

// IsNoSuchUser reports PVE's answer for a user that does not exist:
// "no such user ('USER')", or "user 'USER' does not exist" from an ACL
// change.
func IsNoSuchUser(err error) bool { return matchesRefusal(err, noSuchUser) }

// IsUserExists reports PVE's refusal to create a user that exists.
func IsUserExists(err error) bool { return matchesRefusal(err, userExists) }

// IsNoSuchGroup reports PVE's answer for a group that does not exist:
// "group 'G' does not exist", or "no such group 'G'" when a user is put
// into it.
func IsNoSuchGroup(err error) bool { return matchesRefusal(err, noSuchGroup) }

// IsGroupExists reports PVE's refusal to create a group that exists.
func IsGroupExists(err error) bool { return matchesRefusal(err, groupExists) }

// IsNoSuchRole reports PVE's answer for a role that does not exist.
func IsNoSuchRole(err error) bool { return matchesRefusal(err, noSuchRole) }

// IsRoleExists reports PVE's refusal to create a role that exists.
func IsRoleExists(err error) bool { return matchesRefusal(err, roleExists) }

// IsBuiltinRoleChange reports PVE's refusal to change or delete one of
// its built-in roles, or to create a role named PVE... .
func IsBuiltinRoleChange(err error) bool { return matchesRefusal(err, builtinRoleChange) }

// IsNoSuchToken reports PVE's answer for an API token that does not
// exist, "no such token 'TOKEN' for user 'USER'". A token of a missing user
// is IsNoSuchUser instead.
func IsNoSuchToken(err error) bool { return matchesRefusal(err, noSuchToken) }

// IsTokenExists reports PVE's refusal to create a token that exists.
func IsTokenExists(err error) bool { return matchesRefusal(err, tokenExists) }

// IsNoSuchRealm reports PVE's answer for an authentication realm that
// does not exist (PVE calls realms domains).
func IsNoSuchRealm(err error) bool { return matchesRefusal(err, noSuchRealm) }

// IsRealmExists reports PVE's refusal to create a realm that exists.
func IsRealmExists(err error) bool { return matchesRefusal(err, realmExists) }

// IsRealmsChanged reports PVE's refusal of a realm update whose digest is
// not that of domains.cfg: some realm changed since the digest was read.
func IsRealmsChanged(err error) bool { return matchesRefusal(err, realmsChanged) }

// InvalidPrivilege reports PVE's refusal of a privilege name it does not
// know, and returns the name (wire.PrivilegeProblem explains it).
func InvalidPrivilege(err error) (priv string, ok bool) {
	apiErr, isAPI := AsError(err)
	if !isAPI {
		return "", false
	}
	texts := []string{firstLine(apiErr.Message)}
	if apiErr.StatusCode == 400 {
		texts = append(texts, firstLine(apiErr.Errors["privs"]))
	}
	for _, text := range texts {
		if m := invalidPrivilegePattern.FindStringSubmatch(text); m != nil {
			return m[1], true
		}
	}
	return "", false
}
