package fwutil

import "strings"

// Capitalize starts a sentence built from a phrase ("the cluster's
// firewall") with a capital letter.
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
