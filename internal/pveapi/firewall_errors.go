package pveapi

import (
	"regexp"
)

// noSuchIPSetPattern is PVE's answer for an IP set that does not exist
// (pve-firewall src/PVE/API2/Firewall/IPSet.pm load_config).
var noSuchIPSetPattern = regexp.MustCompile(`^no such IPSet '[^']*'$`)

// IsNoSuchIPSet reports PVE's answer for an IP set that does not exist.
func IsNoSuchIPSet(err error) bool {
	apiErr, ok := AsError(err)
	return ok && noSuchIPSetPattern.MatchString(firstLine(apiErr.Message))
}
