package wire

import "strings"

// A rule's source or dest names an IP set as "+NAME" and an alias as
// "NAME", either optionally scoped: "dc/" for the cluster's, "guest/" for
// the guest's own (IP sets also "sdn/"), as pve-firewall
// src/PVE/Firewall.pm verify_rule (check_ipset_or_alias_property) reads
// them. Anything else is addresses.

// IsFirewallReference reports whether spec names an alias or an IP set
// rather than addresses.
func IsFirewallReference(spec string) bool {
	kind, name, _ := ParseFirewallReference(spec)
	return kind != "" && name != ""
}

// ParseFirewallReference splits a reference into its kind ("alias" or
// "ipset", as PVE's refs listing names them), its name and its scope
// ("dc", "guest", "sdn" or empty for either); kind is empty for a spec
// that is no reference.
func ParseFirewallReference(spec string) (kind, name, scope string) {
	rest := spec
	kind = "alias"
	if strings.HasPrefix(rest, "+") {
		kind, rest = "ipset", rest[1:]
	}
	if head, tail, ok := strings.Cut(rest, "/"); ok {
		switch {
		case head == "dc" || head == "guest" || (head == "sdn" && kind == "ipset"):
			scope, rest = head, tail
		default:
			return "", "", ""
		}
	}
	if !firewallNamePattern().MatchString(rest) {
		return "", "", ""
	}
	return kind, rest, scope
}
