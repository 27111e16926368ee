package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's config digest is SHA-1; it guards edits, it is no security boundary
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// domains.cfg as pve-access-control src/PVE/Auth/Plugin.pm (a
// PVE::SectionConfig) and its plugins PAM.pm, PVE.pm, LDAP.pm, AD.pm and
// OpenId.pm define it: the options each realm type takes, which of them
// are required and which cannot change, and the file's text, whose SHA-1
// is the digest the API hands out.

// realmOption is one entry of a plugin's options(): required unless
// optional, fixed when an update cannot change it.
type realmOption struct {
	required bool
	fixed    bool
}

// realmTypeOptions are the options() of each Auth plugin. "password" is
// among the LDAP and AD options, but the API takes it out before the
// section is checked and keeps it in its own file (realmPasswords).
var realmTypeOptions = map[string]map[string]realmOption{
	// pve-access-control src/PVE/Auth/PAM.pm and PVE.pm options
	"pam": realmOptions(nil, "default", "comment", "tfa"),
	"pve": realmOptions(nil, "default", "comment", "tfa"),
	// pve-access-control src/PVE/Auth/LDAP.pm options
	"ldap": realmOptions([]string{"server1", "base_dn", "user_attr"}, ldapOptionalOptions...),
	// pve-access-control src/PVE/Auth/AD.pm options: base_dn and
	// user_attr are optional (AD get_users defaults user_attr to
	// sAMAccountName), the AD domain is required.
	"ad": realmOptions([]string{"server1", "domain"}, ldapOptionalOptions...),
	// pve-access-control src/PVE/Auth/OpenId.pm options: username-claim is
	// fixed; no tfa. "audiences" came with 7f0a641 (9.1.1) and is not in
	// the API schemas the simulator serves, so a request cannot carry it.
	"openid": withFixed(realmOptions([]string{"issuer-url", "client-id"},
		"client-key", "autocreate", "username-claim", "groups-claim", "groups-autocreate",
		"groups-overwrite", "prompt", "scopes", "acr-values", "default", "comment", "query-userinfo"),
		"username-claim"),
}

// ldapOptionalOptions are the optional options LDAP.pm and AD.pm share
// (LDAP's base_dn and user_attr are required, AD's are not; AD adds its
// domain).
var ldapOptionalOptions = []string{
	"server2", "bind_dn", "password", "port", "secure", "sslversion", "default", "comment", "tfa",
	"verify", "capath", "cert", "certkey", "filter", "sync_attributes", "user_classes", "group_dn",
	"group_name_attr", "group_filter", "group_classes", "sync-defaults-options", "mode", "case-sensitive",
	"base_dn", "user_attr",
}

func realmOptions(required []string, optional ...string) map[string]realmOption {
	out := map[string]realmOption{}
	for _, o := range optional {
		out[o] = realmOption{}
	}
	for _, o := range required {
		out[o] = realmOption{required: true}
	}
	return out
}

func withFixed(opts map[string]realmOption, names ...string) map[string]realmOption {
	for _, n := range names {
		o := opts[n]
		o.fixed = true
		opts[n] = o
	}
	return opts
}

// builtinRealmComments are the comments Auth/Plugin.pm parse_config gives
// the pam and pve realms, which it adds on every read of domains.cfg (with
// the type forced) whether the file has them or not.
var builtinRealmComments = map[string]string{
	"pam": "Linux PAM standard authentication",
	"pve": "Proxmox VE authentication server",
}

// restoreBuiltinRealms is pve-access-control src/PVE/Auth/Plugin.pm
// parse_config: pam and pve always exist, with their own type, and with
// the default comment when theirs is empty. The simulator applies it after
// each write, as the next read would.
func (a *Access) restoreBuiltinRealms() {
	for name, comment := range builtinRealmComments {
		r := a.Realms[name]
		if r == nil {
			r = &Realm{Props: map[string]string{}}
			a.Realms[name] = r
		}
		r.Type = name
		if !perlTruthy(r.Props["comment"]) {
			r.Props["comment"] = comment
		}
	}
}

// realmParamType is the JSON type of a realm property in the API schema
// (the create method lists every plugin's properties); "" when unknown.
func (s *Sim) realmParamType(name string) string {
	m, _, _ := s.pve.api.Lookup(http.MethodPost, "/access/domains")
	if m == nil {
		return ""
	}
	info, ok := m.Param(name)
	if !ok {
		return ""
	}
	return info.Type
}

// realmPropertyString parses a property-string option of the realm
// schema (sync-defaults-options, tfa) as parse_property_string does:
// booleans become 1 or 0. The stored value passed the schema, so a parse
// failure yields nil.
func (s *Sim) realmPropertyString(name, value string) map[string]string {
	m, _, _ := s.pve.api.Lookup(http.MethodPost, "/access/domains")
	if m == nil {
		return nil
	}
	parsed, errText := m.PropertyString(name, value)
	if errText != "" {
		return nil
	}
	return parsed
}

// normalizeRealmValue is SectionConfig check_value's "$value + 0" for
// booleans and integers (pve-common src/PVE/SectionConfig.pm check_value).
func (s *Sim) normalizeRealmValue(name, value string) string {
	switch s.realmParamType(name) {
	case "boolean", "integer":
		if n, err := strconv.Atoi(strings.TrimPrefix(value, "+")); err == nil {
			return strconv.Itoa(n)
		}
	}
	return value
}

// renderDomainsCfg is domains.cfg as pve-common src/PVE/SectionConfig.pm
// write_config writes it: per section "TYPE: NAME", the comment, the
// required options sorted, then the optional ones sorted, booleans as 0/1,
// a blank line after each section. inferred: sections are written sorted
// by name (PVE keeps the order the file had, new realms last); only the
// digest's value depends on it.
func renderDomainsCfg(a *Access) string {
	var b strings.Builder
	for _, name := range sortedKeys(a.Realms) {
		r := a.Realms[name]
		b.WriteString(r.Type + ": " + name + "\n")
		if c := r.Props["comment"]; perlTruthy(c) {
			b.WriteString("\tcomment " + c + "\n")
		}
		opts := realmTypeOptions[r.Type]
		keys := sortedKeys(opts)
		for _, pass := range []bool{true, false} {
			for _, k := range keys {
				v, ok := r.Props[k]
				if k == "comment" || opts[k].required != pass || !ok || v == "" {
					continue
				}
				b.WriteString("\t" + k + " " + v + "\n")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// domainsDigest is SectionConfig parse_config's digest: the SHA-1 of the
// file's text.
func domainsDigest(a *Access) string {
	sum := sha1.Sum([]byte(renderDomainsCfg(a))) //nolint:gosec // see the import
	return hex.EncodeToString(sum[:])
}

// missingRealmOption is the first required option a section lacks, as
// pve-common src/PVE/SectionConfig.pm write_config finds it (required
// options in sorted order); "" when none is missing.
func missingRealmOption(r *Realm) string {
	opts := realmTypeOptions[r.Type]
	for _, k := range sortedKeys(opts) {
		if opts[k].required && r.Props[k] == "" {
			return k
		}
	}
	return ""
}

// realmSyncOptionKeys are the keys of the realm-sync-options format, in
// print_property_string's order (all optional, so sorted).
var realmSyncOptionKeys = []string{"enable-new", "full", "purge", "remove-vanished", "scope"}

// printSyncOptions is pve-common src/PVE/JSONSchema.pm
// print_property_string for realm-sync-options: the defined keys sorted,
// "key=value" joined by commas.
func printSyncOptions(opts map[string]string) string {
	var parts []string
	for _, k := range realmSyncOptionKeys {
		if v, ok := opts[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// mapRemoveVanished is pve-access-control src/PVE/API2/Domains.pm
// $map_remove_vanished: the deprecated full and purge flags become
// remove-vanished (full: entry and properties, purge: acl) unless
// remove-vanished is set; with dropDeprecated the two flags go.
func mapRemoveVanished(opts map[string]string, dropDeprecated bool) {
	if _, set := opts["remove-vanished"]; !set && (perlTruthy(opts["full"]) || perlTruthy(opts["purge"])) {
		var props []string
		if perlTruthy(opts["full"]) {
			props = append(props, "entry", "properties")
		}
		if perlTruthy(opts["purge"]) {
			props = append(props, "acl")
		}
		opts["remove-vanished"] = strings.Join(props, ";")
	}
	if dropDeprecated {
		delete(opts, "full")
		delete(opts, "purge")
	}
}

// mapSyncDefaultOptions is Domains.pm $map_sync_default_options: a realm's
// sync-defaults-options, parsed, mapped by mapRemoveVanished and printed
// again; "" and false when there is none.
func (s *Sim) mapSyncDefaultOptions(value string, dropDeprecated bool) (string, bool) {
	if value == "" {
		return "", false
	}
	opts := s.realmPropertyString("sync-defaults-options", value)
	if opts == nil {
		return value, true
	}
	mapRemoveVanished(opts, dropDeprecated)
	return printSyncOptions(opts), true
}

// realmNames are the realms in the order the index lists them.
// inferred: sorted by name; PVE walks a Perl hash, whose order varies.
func (a *Access) realmNames() []string { return sortedKeys(a.Realms) }
