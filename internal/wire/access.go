package wire

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// PVE's access control grammar: user ids, API token ids, group, role and
// realm names and ACL paths (pve-access-control src/PVE/AccessControl.pm
// and src/PVE/Auth/Plugin.pm). Each check returns a problem text for a
// plan-time error, which the caller prefixes with the attribute's name, or
// "" when PVE accepts the value.

// Release is a PVE release, major and minor version. What the access
// control grammar and catalogue allow depends on it.
type Release struct {
	Major int
	Minor int
}

// The releases the provider supports whose access control differs.
var (
	PVE84 = Release{Major: 8, Minor: 4}
	PVE90 = Release{Major: 9, Minor: 0}
	PVE92 = Release{Major: 9, Minor: 2}
)

// ParseRelease reads a release from PVE's version text ("9.1", "9.1.1",
// "8.4.14"; GET /version release or version).
func ParseRelease(version string) (Release, bool) {
	parts := strings.SplitN(strings.TrimSpace(version), ".", 3)
	if len(parts) < 2 {
		return Release{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || major < 0 || minor < 0 {
		return Release{}, false
	}
	return Release{Major: major, Minor: minor}, true
}

// AtLeast tells whether r is other or a later release.
func (r Release) AtLeast(other Release) bool {
	return r.Major > other.Major || r.Major == other.Major && r.Minor >= other.Minor
}

// String prints the release as PVE does, e.g. "9.1".
func (r Release) String() string { return fmt.Sprintf("%d.%d", r.Major, r.Minor) }

const (
	// realmRE is $realm_regex (src/PVE/Auth/Plugin.pm): a letter, then at
	// least one letter, digit, '.', '-' or '_'. Token names share it
	// ($token_subid_regex, src/PVE/AccessControl.pm).
	realmRE = `[A-Za-z][A-Za-z0-9.\-_]+`
	// nameRE is $groupname_regex (src/PVE/Auth/Plugin.pm), and the
	// pattern of verify_rolename (src/PVE/AccessControl.pm).
	nameRE = `[A-Za-z0-9.\-_]+`

	minUserIDLength = 3
	maxUserIDLength = 64
	maxRealmLength  = 32
)

var (
	realmPattern = regexp.MustCompile(`^` + realmRE + `$`)
	namePattern  = regexp.MustCompile(`^` + nameRE + `$`)
)

// UserIDProblem checks a user id, USER@REALM, as PVE's verify_username
// does (src/PVE/Auth/Plugin.pm): 3 to 64 long, USER without white space,
// ':' or '/' (user.cfg separates with ':', the API path with '/'), REALM by
// RealmProblem's pattern. PVE counts characters of a value it received in
// a form but bytes of one in a request path, and reads a user by its path,
// so the limit here is 64 bytes: a longer id could be created but not read.
func UserIDProblem(userid string) string {
	if len(userid) < minUserIDLength {
		return fmt.Sprintf("user id %q is too short: at least %d characters, USER@REALM", userid, minUserIDLength)
	}
	if len(userid) > maxUserIDLength {
		return fmt.Sprintf("user id %q is %d bytes long, at most %d are allowed", userid, len(userid), maxUserIDLength)
	}
	at := strings.LastIndexByte(userid, '@')
	if at < 0 {
		return fmt.Sprintf("user id %q must be USER@REALM, e.g. alice@pve", userid)
	}
	user, realm := userid[:at], userid[at+1:]
	if problem := userNameProblem(user); problem != "" {
		return fmt.Sprintf("user id %q: %s", userid, problem)
	}
	if !realmPattern.MatchString(realm) {
		return fmt.Sprintf("user id %q: the realm %q must be a letter followed by letters, digits, '.', '-' or '_'", userid, realm)
	}
	return ""
}

// userNameProblem checks the part before the last '@': $user_regex,
// [^\s:/]+ . PVE matches it greedily, so the user part may itself hold an
// '@' (alice@corp@pve is user alice@corp of realm pve).
func userNameProblem(user string) string {
	if user == "" {
		return "the user name before '@' is empty"
	}
	for _, r := range user {
		if unicode.IsSpace(r) || r == ':' || r == '/' {
			return fmt.Sprintf("the user name %q must not contain white space, ':' or '/'", user)
		}
	}
	return ""
}

// SplitUserID splits a valid USER@REALM at its last '@'.
func SplitUserID(userid string) (user, realm string, ok bool) {
	if UserIDProblem(userid) != "" {
		return "", "", false
	}
	at := strings.LastIndexByte(userid, '@')
	return userid[:at], userid[at+1:], true
}

// RealmProblem checks a realm (authentication domain) name: PVE's
// pve-realm format with the realm parameter's 32 character limit
// (src/PVE/Auth/Plugin.pm pve_verify_realm and the realm option).
func RealmProblem(realm string) string {
	if len(realm) > maxRealmLength {
		return fmt.Sprintf("realm %q is %d characters long, at most %d are allowed", realm, len(realm), maxRealmLength)
	}
	if !realmPattern.MatchString(realm) {
		return fmt.Sprintf("realm %q must be at least 2 characters: a letter, then letters, digits, '.', '-' or '_'", realm)
	}
	return ""
}

// TokenNameProblem checks the name of an API token, the part after '!'
// ($token_subid_regex, src/PVE/AccessControl.pm; the tokenid parameter).
func TokenNameProblem(name string) string {
	if !realmPattern.MatchString(name) {
		return fmt.Sprintf("token name %q must be at least 2 characters: a letter, then letters, digits, '.', '-' or '_'", name)
	}
	return ""
}

// TokenIDProblem checks a full API token id, USER@REALM!TOKEN, as PVE's
// pve_verify_tokenid does (src/PVE/AccessControl.pm, $token_full_regex):
// a user id, '!', a token name.
func TokenIDProblem(tokenid string) string {
	bang := strings.LastIndexByte(tokenid, '!')
	if bang < 0 {
		return fmt.Sprintf("token id %q must be USER@REALM!TOKEN, e.g. alice@pve!automation", tokenid)
	}
	if problem := UserIDProblem(tokenid[:bang]); problem != "" {
		return fmt.Sprintf("token id %q: %s", tokenid, problem)
	}
	if problem := TokenNameProblem(tokenid[bang+1:]); problem != "" {
		return fmt.Sprintf("token id %q: %s", tokenid, problem)
	}
	return ""
}

// SplitTokenID splits a valid USER@REALM!TOKEN into the user id and the
// token name, as PVE's split_tokenid does.
func SplitTokenID(tokenid string) (userid, name string, ok bool) {
	if TokenIDProblem(tokenid) != "" {
		return "", "", false
	}
	bang := strings.LastIndexByte(tokenid, '!')
	return tokenid[:bang], tokenid[bang+1:], true
}

// JoinTokenID is USER@REALM!TOKEN.
func JoinTokenID(userid, name string) string { return userid + "!" + name }

// GroupNameProblem checks a group name: letters, digits, '.', '-' and '_'
// (src/PVE/AccessControl.pm verify_groupname with $groupname_regex). PVE
// 8.4 and early 9.1 let a few more characters through by mistake, ':'
// among them, which breaks user.cfg (fixed by "fix #7102: fix group name
// validation"); they are refused here on every release.
func GroupNameProblem(name string) string {
	if !namePattern.MatchString(name) {
		return fmt.Sprintf("group name %q must be letters, digits, '.', '-' or '_'", name)
	}
	return ""
}

// RoleNameProblem checks a role name as PVE's verify_rolename does
// (src/PVE/AccessControl.pm): letters, digits, '.', '-' and '_'. Built-in
// roles pass; CustomRoleNameProblem checks a role to create.
func RoleNameProblem(name string) string {
	if !namePattern.MatchString(name) {
		return fmt.Sprintf("role name %q must be letters, digits, '.', '-' or '_'", name)
	}
	return ""
}

// CustomRoleNameProblem checks the name of a role to create: a valid role
// name, not a built-in role's, and not starting with "PVE" in any case,
// which PVE keeps for its own roles (src/PVE/API2/Role.pm create_role).
func CustomRoleNameProblem(name string) string {
	if problem := RoleNameProblem(name); problem != "" {
		return problem
	}
	if IsBuiltinRole(name) {
		return fmt.Sprintf("role %q is one of PVE's built-in roles, which cannot be created or changed", name)
	}
	if len(name) >= 3 && strings.EqualFold(name[:3], "PVE") {
		return fmt.Sprintf("role name %q starts with %q: PVE reserves names starting with PVE, in any case, for its built-in roles", name, name[:3])
	}
	return ""
}

// NormalizeACLPath returns an ACL path in the form PVE stores it, as its
// normalize_path does (src/PVE/AccessControl.pm): runs of '/' collapsed,
// one trailing '/' dropped, a leading '/' added; ok is false for an empty
// path or one with characters other than letters, digits, '.', '-', '_'
// and '/'. (PVE's [[:alnum:]] would also take non-ASCII letters, which no
// object PVE names can hold.)
func NormalizeACLPath(path string) (normalized string, ok bool) {
	if path == "" {
		return "", false
	}
	for strings.Contains(path, "//") {
		path = strings.ReplaceAll(path, "//", "/")
	}
	path = strings.TrimSuffix(path, "/")
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	for _, r := range path {
		if !isASCIIAlnum(r) && !strings.ContainsRune(".-_/", r) {
			return "", false
		}
	}
	return path, true
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// aclPathForms are the paths PVE lets an ACL entry be added on, each with
// the first release that has it (src/PVE/AccessControl.pm check_path).
// PVE 9.0 added /sdn/fabrics ("permissions: add ACL paths for SDN
// fabrics"), PVE 9.2 /sdn/prefix-lists and /sdn/route-maps
// (pve-access-control 9.1.0, "permissions: add ACL path for prefix-lists
// and route-maps"); the rest are in PVE 8.4.
var aclPathForms = []struct {
	pattern *regexp.Regexp
	since   Release
}{
	{aclPath(`/|/access|/access/groups|/access/groups/[[:alnum:].\-_]+`), PVE84},
	{aclPath(`/access/realm|/access/realm/[[:alnum:].\-_]+`), PVE84},
	{aclPath(`/nodes|/nodes/[[:alnum:].\-_]+`), PVE84},
	{aclPath(`/pool|/pool/[A-Za-z0-9.\-_]+(?:/[A-Za-z0-9.\-_]+){0,2}`), PVE84},
	{aclPath(`/sdn|/sdn/controllers|/sdn/controllers/[[:alnum:]_\-]+`), PVE84},
	{aclPath(`/sdn/dns|/sdn/dns/[[:alnum:]]+|/sdn/ipams|/sdn/ipams/[[:alnum:]]+`), PVE84},
	{aclPath(`/sdn/zones|/sdn/zones/[[:alnum:].\-_]+|/sdn/zones/[[:alnum:].\-_]+/[[:alnum:].\-_]+`), PVE84},
	{aclPath(`/sdn/zones/[[:alnum:].\-_]+/[[:alnum:].\-_]+/[1-9][0-9]{0,3}`), PVE84},
	{aclPath(`/storage|/storage/[[:alnum:].\-_]+`), PVE84},
	{aclPath(`/vms|/vms/[1-9][0-9]{2,}`), PVE84},
	{aclPath(`/mapping|/mapping/[[:alnum:].\-_]+|/mapping/[[:alnum:].\-_]+/[[:alnum:].\-_]+`), PVE84},
	{aclPath(`/sdn/fabrics|/sdn/fabrics/[[:alnum:]]+`), PVE90},
	{aclPath(`/sdn/prefix-lists|/sdn/prefix-lists/[[:alnum:]]+|/sdn/route-maps|/sdn/route-maps/[[:alnum:]]+`), PVE92},
}

func aclPath(alternatives string) *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + alternatives + `)$`)
}

// ACLPathProblem checks a path to add an ACL entry on, for release: it is
// normalized (NormalizeACLPath), then must be one of the paths PVE knows
// (src/PVE/API2/ACL.pm update_acl, check_path). PVE checks only the
// normalization when an entry is removed. Compare paths in their
// normalized form: that is the form PVE stores and lists.
func ACLPathProblem(path string, release Release) string {
	normalized, ok := NormalizeACLPath(path)
	if !ok {
		return fmt.Sprintf("ACL path %q must be a path like /, /vms/100, /storage/local or /pool/dev, of letters, digits, '.', '-', '_' and '/'", path)
	}
	for _, form := range aclPathForms {
		if !form.pattern.MatchString(normalized) {
			continue
		}
		if !release.AtLeast(form.since) {
			return fmt.Sprintf("ACL path %q needs PVE %s or later; this is PVE %s", path, form.since, release)
		}
		return ""
	}
	return fmt.Sprintf("ACL path %q is not a path PVE grants permissions on: use /, /access, /access/groups[/GROUP], /access/realm[/REALM], /nodes[/NODE], /pool[/POOL], /sdn/..., /storage[/STORAGE], /vms[/VMID] or /mapping[/TYPE[/ID]]", path)
}
