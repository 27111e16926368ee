package pvesim

import (
	"net/http"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Firewall aliases, IPSets and the references rules may use, for the
// cluster (cluster.fw) and each guest (VMID.fw). pve-firewall
// src/PVE/API2/Firewall/Aliases.pm, IPSet.pm, Cluster.pm refs and VM.pm
// refs. Each change is stored the way the file writer and parser leave it
// (see firewall_model.go): firewall_sets_aliases.go, firewall_sets_ipsets.go
// and firewall_sets_refs.go hold the handlers.

// firewallSetHandler is a handler that works on one scope's file.
type firewallSetHandler func(c *call, scope firewallScope) (any, error)

func (s *Sim) registerFirewallSetRoutes() {
	for _, sc := range firewallMounts {
		if sc.kind == "host" {
			continue // host.fw has no aliases or IPSets
		}
		kind := sc.kind
		bind := func(h firewallSetHandler) handlerFunc {
			return func(c *call) (any, error) { return h(c, firewallScopeOf(c, kind)) }
		}
		aliases := sc.prefix + "/aliases"
		s.handle(http.MethodGet, aliases, route{perm: sc.audit, handle: bind(listFirewallAliases)})
		s.handle(http.MethodPost, aliases, route{perm: sc.modify, handle: bind(createFirewallAlias)})
		s.handle(http.MethodGet, aliases+"/{name}", route{perm: sc.audit, handle: bind(readFirewallAlias)})
		s.handle(http.MethodPut, aliases+"/{name}", route{perm: sc.modify, handle: bind(updateFirewallAlias)})
		s.handle(http.MethodDelete, aliases+"/{name}", route{perm: sc.modify, handle: bind(deleteFirewallAlias)})

		ipsets := sc.prefix + "/ipset"
		s.handle(http.MethodGet, ipsets, route{perm: sc.audit, handle: bind(listFirewallIPSets)})
		s.handle(http.MethodPost, ipsets, route{perm: sc.modify, handle: bind(createFirewallIPSet)})
		s.handle(http.MethodGet, ipsets+"/{name}", route{perm: sc.audit, handle: bind(listFirewallIPSetEntries)})
		s.handle(http.MethodPost, ipsets+"/{name}", route{perm: sc.modify, handle: bind(createFirewallIPSetEntry)})
		s.handle(http.MethodDelete, ipsets+"/{name}", route{perm: sc.modify, handle: bind(deleteFirewallIPSet)})
		s.handle(http.MethodGet, ipsets+"/{name}/{cidr}", route{perm: sc.audit, handle: bind(readFirewallIPSetEntry)})
		s.handle(http.MethodPut, ipsets+"/{name}/{cidr}", route{perm: sc.modify, handle: bind(updateFirewallIPSetEntry)})
		s.handle(http.MethodDelete, ipsets+"/{name}/{cidr}", route{perm: sc.modify, handle: bind(deleteFirewallIPSetEntry)})

		// The refs methods carry their own permission, which is the audit
		// one of their scope (pve-firewall src/PVE/API2/Firewall/Cluster.pm
		// and VM.pm refs).
		s.handle(http.MethodGet, sc.prefix+"/refs", route{perm: sc.audit, handle: bind(listFirewallRefs)})
	}
}

// fileComment is what is left of a comment after it went through a
// firewall file. The API stores it only when it is true, the writer writes
// it only when it is not blank (pve-firewall src/PVE/Firewall.pm
// $format_aliases, $format_ipsets), and the parser takes the text after '#'
// without the white space around it and keeps it only when it is true
// (parse_alias, generic_fw_config_parser). A line break ends the line in
// the file, so only the first line comes back.
//
// inferred: what follows a line break is read back as a line of its own;
// the simulator drops it (INFERRED.md).
func fileComment(s string) string {
	if !commentWritten(s) {
		return ""
	}
	line, _, _ := strings.Cut(s, "\n")
	// The parser's \s works on the file's bytes: ASCII white space.
	line = strings.Trim(line, " \t\n\v\f\r")
	if !pvegrammar.PerlTruthy(line) {
		return ""
	}
	return line
}
