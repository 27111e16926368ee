package wire

import (
	"fmt"
	"regexp"
	"strings"
)

// What PVE keeps of a user's settings. user.cfg holds a user on one line
// of ':'-separated fields (pve-access-control src/PVE/AccessControl.pm
// write_user_config); PVE drops some values on the way and changes others,
// so a configuration that sets them would never match what PVE reads back.

// Lengths of the user fields (src/PVE/API2/User.pm, the user-firstname,
// user-lastname, user-comment and user-email options).
const (
	MaxUserNameLength    = 1024
	MaxUserCommentLength = 2048
	MaxEmailLength       = 254
)

// UserTextProblem checks a first name, last name or comment of a user, or
// a group's comment, as user.cfg keeps it: PVE stores none of "" and "0"
// (it tests the value for truth: src/PVE/API2/User.pm create_user,
// src/PVE/AccessControl.pm write_user_config and parse_user_config), and
// it trims the spaces around every field when it reads user.cfg back
// (parse_user_config; other white space is percent-encoded by
// PVE::Tools::encode_text and survives). "" when PVE keeps the value as
// it is.
func UserTextProblem(value string) string {
	switch {
	case value == "":
		return "must not be empty: PVE keeps no empty value (leave the attribute out instead)"
	case value == "0":
		return `must not be "0": PVE treats "0" as no value and drops it`
	case strings.TrimLeft(value, " ") != value || strings.TrimRight(value, " ") != value:
		return fmt.Sprintf("%q starts or ends with a space, which PVE trims when it reads its configuration back", value)
	}
	return ""
}

// emailPattern is PVE's email format (pve-common src/PVE/JSONSchema.pm
// pve_verify_email with $PVE::ParseUtils::EMAIL_RE), \w read as ASCII word
// characters. The user-email option uses it as email-opt.
var emailPattern = lazyPattern(`^[\w+\-~]+(?:\.[\w+\-~]+)*@[a-zA-Z0-9\-]+(?:\.[a-zA-Z0-9\-]+)*$`)

// EmailProblem checks a user's email address: PVE's email format, at most
// 254 characters. An empty address is accepted by PVE's email-opt but
// means no address, which the caller represents by leaving it out.
func EmailProblem(email string) string {
	if len(email) > MaxEmailLength {
		return fmt.Sprintf("email address is %d characters long, at most %d are allowed", len(email), MaxEmailLength)
	}
	if !emailPattern().MatchString(email) {
		return fmt.Sprintf("%q does not look like an email address PVE accepts (NAME@DOMAIN of letters, digits, '.', '_', '+', '-', '~')", email)
	}
	return ""
}

// userKeysPattern is the user-keys option's pattern (src/PVE/API2/User.pm),
// [0-9a-zA-Z!=]{0,4096}; Go's regexp counts no further than 1000, so the
// length is checked apart.
var userKeysPattern = lazyPattern(`^[0-9a-zA-Z!=]*$`)

const maxUserKeysLength = 4096

// tfaMarkerPattern is the value PVE itself writes into a user's keys
// field once the user has two-factor entries in tfa.cfg: "x", optionally
// followed by "!" and more (src/PVE/API2/TFA.pm set_user_tfa_enabled;
// src/PVE/AccessControl.pm user_get_tfa skips it).
var tfaMarkerPattern = regexp.MustCompile(`^x(?:!.*)?$`)

// IsTFAMarker reports whether a user's keys field holds PVE's own marker
// for "this user has two-factor entries" rather than keys.
func IsTFAMarker(keys string) bool { return tfaMarkerPattern.MatchString(keys) }

// UserKeysProblem checks a user's keys field (the key ids of the two-factor
// setting before PVE 7): the user-keys pattern, not empty or "0" (PVE
// drops them), and not PVE's own two-factor marker.
func UserKeysProblem(keys string) string {
	switch {
	case keys == "" || keys == "0":
		return fmt.Sprintf("must not be %q: PVE keeps no such value (leave the attribute out instead)", keys)
	case len(keys) > maxUserKeysLength || !userKeysPattern().MatchString(keys):
		return "must be at most 4096 letters, digits, '!' and '='"
	case IsTFAMarker(keys):
		return fmt.Sprintf("%q is the marker PVE writes itself for a user with two-factor entries, not a key", keys)
	}
	return ""
}

// The realms whose type PVE fixes (src/PVE/Auth/Plugin.pm
// parse_config forces their types; src/PVE/API2/Domains.pm create
// refuses both names and both types for any other realm).
const (
	RealmPVE = "pve"
	RealmPAM = "pam"
)

// Password lengths of POST /access/users and PUT /access/password
// (src/PVE/API2/User.pm create_user, src/PVE/API2/AccessControl.pm
// change_password).
const (
	MinPasswordLength = 8
	MaxPasswordLength = 64
)

// PasswordRealmProblem tells whether PVE can keep a password for users of
// realm, and why not. Only the pve realm stores passwords in the cluster
// (src/PVE/Auth/PVE.pm store_password). A pam user's password is the
// Linux password of the one node that answers the request (src/PVE/Auth/
// PAM.pm store_password runs usermod there, which fails when that node
// has no such Linux user), and PVE lets only root@pam change another pam
// user's password (src/PVE/API2/AccessControl.pm change_password). Every
// other realm type (LDAP, Active Directory, OpenID Connect) refuses:
// "can't set password on auth type" (src/PVE/Auth/Plugin.pm
// store_password).
func PasswordRealmProblem(realm string) string {
	switch realm {
	case RealmPVE:
		return ""
	case RealmPAM:
		return "a pam user's password is the Linux password of one node: PVE would set it only on the node that answers " +
			"(and only if that node has the Linux user), not cluster-wide. Set it with passwd on each node instead"
	}
	return fmt.Sprintf("PVE keeps passwords only for users of the pve realm; realm %q authenticates against its own "+
		"directory or identity provider (LDAP, Active Directory, OpenID Connect), which holds the password", realm)
}
