package pvesim

import (
	"maps"
	"net/http"
	"strconv"
)

// The realm API: pve-access-control src/PVE/API2/Domains.pm over
// domains.cfg (access_realms.go). Changes run inside lock_domain_config
// (src/PVE/Auth/Plugin.pm), which prefixes any failure with the operation
// ("add auth server failed: ...") and leaves domains.cfg untouched.
//
// PVE 8.4 and 9.x: the API schemas of the six realm methods are the same
// in both dumps. pve-access-control 8.2.2 (PVE 8.4) and 9.1.x differ in
// code layout (perltidy), in the group name check of a sync
// (pveProfile.strictGroupNames), in LDAP attribute values decoded as
// UTF-8 (9.1.0, which a Go string has no need for) and in OpenID's
// "audiences" option (9.1.1), which neither schema has.

func (s *Sim) registerRealmRoutes() {
	allocate := permission{path: "/access/realm", privs: []string{"Realm.Allocate"}}
	// pve-access-control src/PVE/API2/Domains.pm index: user => 'world'
	// (the login box lists the realms before anyone is authenticated).
	s.handle(http.MethodGet, "/access/domains", route{public: true, handle: listRealms})
	s.handle(http.MethodPost, "/access/domains", route{perm: allocate, handle: s.createRealm})
	s.handle(http.MethodGet, "/access/domains/{realm}", route{
		perm:   permission{path: "/access/realm", privs: []string{"Realm.Allocate", "Sys.Audit"}, any: true},
		handle: s.readRealm,
	})
	s.handle(http.MethodPut, "/access/domains/{realm}", route{perm: allocate, handle: s.updateRealm})
	s.handle(http.MethodDelete, "/access/domains/{realm}", route{perm: allocate, handle: s.deleteRealm})
	s.handle(http.MethodPost, "/access/domains/{realm}/sync", route{handle: s.syncRealm})
}

// listRealms is Domains.pm index: realm and type of each realm, the
// comment and default=1 when set (true in Perl), and the tfa provider's
// type when the realm has a tfa setting.
func listRealms(c *call) (any, error) {
	a := c.cluster.Access
	out := []map[string]any{}
	for _, name := range a.realmNames() {
		r := a.Realms[name]
		e := map[string]any{"realm": name, "type": r.Type}
		if cm := r.Props["comment"]; perlTruthy(cm) {
			e["comment"] = cm
		}
		if perlTruthy(r.Props["default"]) {
			e["default"] = 1
		}
		if tfa := r.Props["tfa"]; perlTruthy(tfa) {
			if parsed := c.sim.realmPropertyString("tfa", tfa); parsed != nil {
				e["tfa"] = parsed["type"]
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// readRealm is Domains.pm read: the section as parse_config returns it
// (its options with booleans and integers as numbers, the type, the pam
// realm's "plugin" marker that parse_config adds) and the file's digest;
// never the bind password, which is not in the section. An LDAP or AD
// realm's sync-defaults-options come back through
// $map_sync_default_options, keeping the deprecated flags.
func (s *Sim) readRealm(c *call) (any, error) {
	a := c.cluster.Access
	name := c.str("realm")
	r := a.Realms[name]
	if r == nil {
		// pve-access-control src/PVE/API2/Domains.pm read
		return nil, errorf("domain '%s' does not exist", name)
	}
	out := map[string]any{"type": r.Type, "digest": domainsDigest(a)}
	for k, v := range r.Props {
		switch s.realmParamType(k) {
		case "boolean", "integer":
			if n, err := strconv.Atoi(v); err == nil {
				out[k] = n
				continue
			}
		}
		out[k] = v
	}
	if r.Type == "ldap" || r.Type == "ad" {
		if opts, ok := s.mapSyncDefaultOptions(r.Props["sync-defaults-options"], false); ok {
			out["sync-defaults-options"] = opts
		}
	}
	// pve-access-control src/PVE/Auth/Plugin.pm parse_config sets
	// plugin => 'PVE::Auth::PAM' on the pam realm.
	if name == "pam" {
		out["plugin"] = "PVE::Auth::PAM"
	}
	return out, nil
}

// createRealm is Domains.pm create.
func (s *Sim) createRealm(c *call) (any, error) {
	a := c.cluster.Access
	fail := func(err error) error { return wrapLockError("add auth server failed", err) }
	name, typ := c.str("realm"), c.str("type")
	password, hasPassword := c.param("password")
	checkConn, hasCheckConn := c.param("check-connection")
	// pve-access-control src/PVE/API2/Domains.pm create: the checks in
	// this order, inside lock_domain_config. pam and pve always exist
	// (parse_config adds them), so the reserved-name check never fires
	// before the "already exists" one.
	if a.Realms[name] != nil {
		return nil, fail(errorf("domain '%s' already exists", name))
	}
	if name == "pam" || name == "pve" {
		return nil, fail(errorf("unable to use reserved name '%s'", name))
	}
	if typ == "pam" || typ == "pve" {
		return nil, fail(errorf("unable to create builtin type '%s'", typ))
	}
	if hasCheckConn && typ != "ldap" && typ != "ad" {
		// pve-access-control src/PVE/API2/Domains.pm create
		return nil, fail(errorf("'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'"))
	}
	given := map[string]string{}
	for k, v := range c.params {
		switch k {
		case "realm", "type", "password", "check-connection":
			continue
		}
		given[k] = v
	}
	if typ == "ad" || typ == "ldap" {
		if opts, ok := s.mapSyncDefaultOptions(given["sync-defaults-options"], true); ok {
			given["sync-defaults-options"] = opts
		}
	}
	props, err := s.checkRealmConfig(typ, given, true)
	if err != nil {
		return nil, fail(err)
	}
	// The password goes to the plugin's hook, never into the section; a
	// type without a password option ignores it (create warns to the
	// log only). LDAP.pm on_add_hook stores it, or removes a stale file
	// of an earlier realm of the same name.
	if typ == "ldap" || typ == "ad" {
		if hasPassword {
			s.auth.realmPasswords[name] = password
		} else {
			delete(s.auth.realmPasswords, name)
		}
		if checkConn == "1" {
			if err := s.connectDirectory(name, props, password); err != nil {
				return nil, fail(err)
			}
		}
	}
	if perlTruthy(props["default"]) {
		clearDefaultRealm(a)
	}
	a.Realms[name] = &Realm{Type: typ, Props: props}
	return nil, nil
}

// updateRealm is Domains.pm update.
func (s *Sim) updateRealm(c *call) (any, error) {
	a := c.cluster.Access
	fail := func(err error) error { return wrapLockError("update auth server failed", err) }
	name := c.str("realm")
	password, hasPassword := c.param("password")
	checkConn, hasCheckConn := c.param("check-connection")
	if err := assertFirewallDigest(domainsDigest(a), c.str("digest")); err != nil {
		return nil, fail(err)
	}
	current := a.Realms[name]
	typ := ""
	if current != nil {
		typ = current.Type
	}
	// pve-access-control src/PVE/API2/Domains.pm update reads the type
	// with $ids->{$realm}->{type}, which autovivifies an empty section for
	// a missing realm: its "does not exist" check never fires, and the
	// call goes on with no type.
	if hasCheckConn && typ != "ldap" && typ != "ad" {
		// pve-access-control src/PVE/API2/Domains.pm update
		return nil, fail(errorf("'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'"))
	}
	deleteList := c.str("delete")
	given := map[string]string{}
	for k, v := range c.params {
		switch k {
		case "realm", "password", "check-connection", "digest", "delete":
			continue
		}
		given[k] = v
	}
	if deleteList == "" && len(given) == 0 && !hasPassword {
		// pve-access-control src/PVE/API2/Domains.pm update
		return nil, fail(errorf("no options specified"))
	}
	if current == nil {
		// pve-common src/PVE/SectionConfig.pm lookup croaks on the
		// undefined type (the " at FILE line N." suffix is left out,
		// see INFERRED.md).
		return nil, fail(errorf("cannot lookup undefined type!"))
	}
	props := maps.Clone(current.Props)
	deletePassword := false
	for _, opt := range splitList(deleteList) {
		delete(props, opt)
		deletePassword = deletePassword || opt == "password"
	}
	if typ == "ad" || typ == "ldap" {
		if opts, ok := s.mapSyncDefaultOptions(given["sync-defaults-options"], true); ok {
			given["sync-defaults-options"] = opts
		}
	}
	checked, err := s.checkRealmConfig(typ, given, false)
	if err != nil {
		return nil, fail(err)
	}
	maps.Copy(props, checked)
	updated := &Realm{Type: typ, Props: props}
	// LDAP.pm on_update_hook: a new password replaces the stored one,
	// deleting "password" removes it; other types have no hook.
	if (typ == "ldap" || typ == "ad") && (deletePassword || hasPassword) {
		if hasPassword {
			s.auth.realmPasswords[name] = password
		} else {
			delete(s.auth.realmPasswords, name)
		}
	}
	if checkConn == "1" {
		if err := s.connectDirectory(name, props, password); err != nil {
			return nil, fail(err)
		}
	}
	if missing := missingRealmOption(updated); missing != "" {
		// pve-common src/PVE/SectionConfig.pm write_config
		return nil, fail(errorf("section '%s' - missing value for required option '%s'", name, missing))
	}
	if perlTruthy(checked["default"]) {
		clearDefaultRealm(a)
	}
	a.Realms[name] = updated
	a.restoreBuiltinRealms()
	return nil, nil
}

// deleteRealm is Domains.pm delete. Users of the realm stay in user.cfg.
// pam and pve can be deleted, but Auth/Plugin.pm parse_config brings them
// back on the next read with their default comment and nothing else.
func (s *Sim) deleteRealm(c *call) (any, error) {
	a := c.cluster.Access
	name := c.str("realm")
	r := a.Realms[name]
	if r == nil {
		// pve-access-control src/PVE/API2/Domains.pm delete
		return nil, wrapLockError("delete auth server failed", errorf("authentication domain '%s' does not exist", name))
	}
	// LDAP.pm on_delete_hook removes the bind password.
	if r.Type == "ldap" || r.Type == "ad" {
		delete(s.auth.realmPasswords, name)
	}
	delete(a.Realms, name)
	a.restoreBuiltinRealms()
	return nil, nil
}

// checkRealmConfig is pve-common src/PVE/SectionConfig.pm check_config
// with the schema check skipped (the API schema has checked the values):
// every given option must be one of the type's options, none may change
// a fixed one on update, no value may hold a line break; on create every
// required option must be given. Booleans and integers are stored as
// numbers. Options are checked in sorted order (PVE walks a hash).
func (s *Sim) checkRealmConfig(typ string, given map[string]string, create bool) (map[string]string, error) {
	opts := realmTypeOptions[typ]
	out := map[string]string{}
	for _, k := range sortedKeys(given) {
		v := given[k]
		if !create && opts[k].fixed {
			// pve-common src/PVE/SectionConfig.pm check_config
			return nil, errorf("can't change value of fixed parameter '%s'", k)
		}
		if _, ok := opts[k]; !ok {
			// pve-common src/PVE/SectionConfig.pm check_value
			return nil, errorf("unexpected property '%s'", k)
		}
		if containsLineBreak(v) {
			// pve-common src/PVE/SectionConfig.pm check_value
			return nil, errorf("property contains a line feed")
		}
		out[k] = s.normalizeRealmValue(k, v)
	}
	if create {
		for _, k := range sortedKeys(opts) {
			if _, ok := given[k]; opts[k].required && !ok {
				// pve-common src/PVE/SectionConfig.pm check_config
				return nil, errorf("missing value for required option '%s'", k)
			}
		}
	}
	return out, nil
}

func containsLineBreak(s string) bool {
	for _, r := range s {
		if r == '\n' || r == '\r' {
			return true
		}
	}
	return false
}

// clearDefaultRealm removes the default marker from every realm before
// another one takes it (Domains.pm create and update).
func clearDefaultRealm(a *Access) {
	for _, r := range a.Realms {
		delete(r.Props, "default")
	}
}
