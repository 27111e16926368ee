package wire

import (
	"strconv"
	"strings"
)

// What a PVE node can do with an existing API token depends on the
// pve-access-control package it runs, which the API does not report. GET
// /version reports the pve-manager version, and each pve-manager release
// requires a minimum pve-access-control (pve-manager debian/control), so
// the checks below hold from the first pve-manager release whose
// requirement includes the change. A node between the change and that
// release may already have it; the checks then under-promise, which costs
// a replacement or a plan-time refusal, never a failed apply.

var (
	// tokenCommentClearFrom is pve-manager 9.0.13, the first release
	// requiring libpve-access-control 9.0.4, which holds "api: token: fix
	// #6890: add ability to remove comment with empty string" (src/PVE/API2/User.pm
	// update_token_info). Before it, an empty comment leaves the old one
	// in place and nothing else removes it; the PVE 8.4 branch never got it.
	tokenCommentClearFrom = packageVersion{9, 0, 13}
	// tokenRegenerateFrom is pve-manager 9.1.14, the first release
	// requiring libpve-access-control 9.1.1; its 9.1.0 added "api: token:
	// support regenerating the secret on update" (update_token_info's
	// regenerate parameter). Earlier releases refuse the parameter.
	tokenRegenerateFrom = packageVersion{9, 1, 14}
)

// TokenCommentClearable tells whether a PVE node of this pve-manager
// version (GET /version "version", e.g. "9.1.4") removes an API token's
// comment when the update sends an empty one. An unreadable version is
// treated as not able to.
func TokenCommentClearable(version string) bool {
	v, ok := parsePackageVersion(version)
	return ok && v.atLeast(tokenCommentClearFrom)
}

// TokenRegenerateSupported tells whether a PVE node of this pve-manager
// version can give an existing API token a new secret in place (the
// update's regenerate flag), keeping the token's ACL entries. An
// unreadable version is treated as not able to.
func TokenRegenerateSupported(version string) bool {
	v, ok := parsePackageVersion(version)
	return ok && v.atLeast(tokenRegenerateFrom)
}

// packageVersion is a Debian package version's upstream part, MAJOR.MINOR.PATCH.
type packageVersion [3]int

// parsePackageVersion reads "9.1.14" (a missing patch level is 0, "9.1");
// anything after the numbers of a part ("14~rc1", "3-1") is ignored.
func parsePackageVersion(version string) (packageVersion, bool) {
	parts := strings.SplitN(strings.TrimSpace(version), ".", 3)
	if len(parts) < 2 {
		return packageVersion{}, false
	}
	var v packageVersion
	for i, part := range parts {
		digits := part
		if end := strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
			digits = part[:end]
		}
		n, err := strconv.Atoi(digits)
		if err != nil || (i < 2 && digits != part) {
			return packageVersion{}, false
		}
		v[i] = n
	}
	return v, true
}

func (v packageVersion) atLeast(other packageVersion) bool {
	for i := range v {
		if v[i] != other[i] {
			return v[i] > other[i]
		}
	}
	return true
}
