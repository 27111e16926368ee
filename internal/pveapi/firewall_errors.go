package pveapi

import "regexp"

// digestMismatchPattern is PVE's refusal of a change whose digest no longer
// matches the configuration it guards: the firewall's lists and options
// (pve-common src/PVE/Tools.pm assert_if_modified) and a guest's config
// (qemu-server's own wording).
var digestMismatchPattern = regexp.MustCompile(`^(detected modified configuration - file changed by other user\? Try again\.|checksum mismatch \(file change by other user\?\))$`)

// IsDigestMismatch reports PVE's refusal of a change guarded by a digest
// that is out of date: someone changed the configuration since it was read.
func IsDigestMismatch(err error) bool {
	apiErr, ok := AsError(err)
	return ok && digestMismatchPattern.MatchString(firstLine(apiErr.Message))
}

// noSuchIPSetPattern is PVE's answer for an IP set that does not exist
// (pve-firewall src/PVE/API2/Firewall/IPSet.pm load_config).
var noSuchIPSetPattern = regexp.MustCompile(`^no such IPSet '[^']*'$`)

// IsNoSuchIPSet reports PVE's answer for an IP set that does not exist.
func IsNoSuchIPSet(err error) bool {
	apiErr, ok := AsError(err)
	return ok && noSuchIPSetPattern.MatchString(firstLine(apiErr.Message))
}
