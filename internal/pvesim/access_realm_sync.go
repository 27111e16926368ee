package pvesim

import (
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Realm sync: pve-access-control src/PVE/API2/Domains.pm sync with
// $parse_sync_opts, $update_users and $update_groups, over the users and
// groups src/PVE/Auth/LDAP.pm get_users and get_groups read from the
// directory (AD.pm get_users only changes the default user attribute).
// The simulator has no directory server: SetDirectory stands in for it.

// directory is a realm's stand-in directory server (SetDirectory).
type directory struct {
	users  map[string]map[string]string
	groups map[string][]string
}

// SetDirectory is a test hook, not a PVE feature: it stands in for the
// directory server (LDAP or Active Directory) of a realm, which the
// simulator cannot reach. users maps a user's name (the value of the
// realm's user attribute: user_attr, for AD sAMAccountName by default) to
// its directory attributes by LDAP name ("mail", "givenName", or the PVE
// field names "email", "firstname", "lastname", "comment", "expire",
// "keys", "enable" that the sync maps by default); the realm's
// sync_attributes map others, names match case-insensitively as in LDAP.
// groups maps a group's name (what group_name_attr or the first value of
// its DN gives) to the names of its members; members that are not in users
// are dropped, as members whose DN matches no synced user are. A sync or
// a connection check of a realm without a directory fails as an
// unreachable server does; nil users and nil groups remove the directory.
func (s *Sim) SetDirectory(realm string, users map[string]map[string]string, groups map[string][]string) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	if users == nil && groups == nil {
		delete(s.directories, realm)
		return
	}
	d := &directory{users: map[string]map[string]string{}, groups: map[string][]string{}}
	for name, attrs := range users {
		d.users[name] = maps.Clone(attrs)
	}
	for name, members := range groups {
		d.groups[name] = append([]string(nil), members...)
	}
	if s.directories == nil {
		s.directories = map[string]*directory{}
	}
	s.directories[realm] = d
}

func (s *Sim) directory(realm string) *directory {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	return s.directories[realm]
}

// msgDirectoryUnreachable is what a realm without a directory fails with.
// inferred: Net::LDAP->new's error for a refused connection, which
// pve-common src/PVE/LDAP.pm ldap_connect dies with; the text is
// IO::Socket::IP's.
const msgDirectoryUnreachable = "IO::Socket::IP: connect: Connection refused"

// connectDirectory is pve-access-control src/PVE/Auth/LDAP.pm
// connect_and_bind: connect to the servers, then bind with bind_dn and the
// given password, else the stored one; anonymously without bind_dn.
func (s *Sim) connectDirectory(realm string, props map[string]string, password string) error {
	if s.directory(realm) == nil {
		// inferred: see msgDirectoryUnreachable
		return errorf("%s", msgDirectoryUnreachable)
	}
	if props["bind_dn"] != "" {
		if password == "" {
			password = s.auth.realmPasswords[realm]
		}
		if password == "" {
			// pve-access-control src/PVE/Auth/LDAP.pm connect_and_bind
			return errorf("missing password for realm %s", realm)
		}
	}
	return nil
}

// syncRealm is Domains.pm sync: checks, options, then a worker.
func (s *Sim) syncRealm(c *call) (any, error) {
	name := c.str("realm")
	// pve-access-control src/PVE/API2/Domains.pm sync permissions: an
	// 'and' of Realm.AllocateUser on the realm and User.Modify on
	// /access/groups, checked in that order.
	if err := c.check("/access/realm/"+name, false, "Realm.AllocateUser"); err != nil {
		return nil, err
	}
	if err := c.check("/access/groups", false, "User.Modify"); err != nil {
		return nil, err
	}
	dryRun := c.boolParam("dry-run")
	r := c.cluster.Access.Realms[name]
	if r == nil {
		// pve-access-control src/PVE/API2/Domains.pm sync
		return nil, paramError(map[string]string{"realm": "Realm does not exist."})
	}
	if r.Type != "ldap" && r.Type != "ad" {
		// pve-access-control src/PVE/API2/Domains.pm sync
		return nil, errorf("Cannot sync realm type '%s'! Only LDAP/AD realms can be synced.", r.Type)
	}
	opts, err := s.parseSyncOptions(c, r)
	if err != nil {
		return nil, err
	}
	scope := opts["scope"]
	what := scope
	if scope == "both" {
		what = "users and groups"
	}
	// The worker works with the realm's configuration as the call read it.
	cfg := maps.Clone(r.Props)
	typ := r.Type
	workerType := "auth-realm-sync"
	if dryRun {
		workerType = "auth-realm-sync-test"
	}
	t := s.startWorker(c.cluster.answeringNode().Name, workerType, name, c.user, workerSpec{work: func(t *Task) error {
		prefix := ""
		if dryRun {
			prefix = "(dry test run) "
		}
		t.Log("%sstarting sync for realm %s", prefix, name)
		if err := s.connectDirectory(name, cfg, ""); err != nil {
			return err
		}
		dir := s.directory(name)
		users, dnmap := s.directoryUsers(t, name, typ, cfg, dir)
		var groups map[string][]string
		if scope == "groups" || scope == "both" {
			groups = s.directoryGroups(t, name, dir, dnmap)
		}
		ucfg := cloneUserCfg(s.cluster.Access)
		t.Log("got data from server, updating %s", what)
		if scope == "users" || scope == "both" {
			ucfg.updateUsers(t, name, users, opts)
		}
		if scope == "groups" || scope == "both" {
			ucfg.updateGroups(t, name, groups, opts)
		}
		if dryRun {
			t.Log("")
			t.Log("NOTE: Dry test run, changes were NOT written to the configuration.")
			return nil
		}
		ucfg.commit(s.cluster.Access)
		t.Log("successfully updated %s configuration", what)
		return nil
	}})
	return t.UPID, nil
}

// parseSyncOptions is Domains.pm $parse_sync_opts: each option from the
// call, else the realm's sync-defaults-options, else the format's default
// (enable-new 1, remove-vanished none); the deprecated full and purge then
// have no effect, as remove-vanished is always set by then.
func (s *Sim) parseSyncOptions(c *call, r *Realm) (map[string]string, error) {
	defaults := map[string]string{}
	if v := r.Props["sync-defaults-options"]; v != "" {
		if parsed := s.realmPropertyString("sync-defaults-options", v); parsed != nil {
			defaults = parsed
		}
	}
	formatDefaults := map[string]string{"enable-new": "1", "remove-vanished": "none"}
	opts := map[string]string{}
	for _, k := range realmSyncOptionKeys {
		if v, ok := c.param(k); ok {
			opts[k] = v
		} else if v, ok := defaults[k]; ok {
			opts[k] = v
		} else if v, ok := formatDefaults[k]; ok {
			opts[k] = v
		}
	}
	mapRemoveVanished(opts, true)
	if _, ok := opts["scope"]; !ok {
		// pve-access-control src/PVE/API2/Domains.pm $parse_sync_opts
		return nil, paramError(map[string]string{
			"scope": "Not passed as parameter and not defined in realm default sync options.",
		})
	}
	return opts, nil
}

// syncTargetAttributes are the PVE user fields a directory attribute can
// map to (LDAP.pm get_users $ldap_attribute_map values).
var syncTargetAttributes = []string{"username", "enable", "expire", "firstname", "lastname", "email", "comment", "keys"}

var syncAttributeEntry = regexp.MustCompile(`^\s*(\w+)=(.*?)\s*$`)

// directoryUsers is LDAP.pm get_users over the stand-in directory: the
// synced users ("NAME@REALM" -> PVE field -> value) and the map from the
// directory's user names to them (get_users' DN map). Invalid user names
// and attribute values are skipped with a warning, as PVE does.
func (s *Sim) directoryUsers(t *Task, realm, typ string, cfg map[string]string, dir *directory) (map[string]map[string]string, map[string]string) {
	userAttr := cfg["user_attr"]
	if userAttr == "" {
		userAttr = "uid"
		if typ == "ad" {
			// pve-access-control src/PVE/Auth/AD.pm get_users
			userAttr = "sAMAccountName"
		}
	}
	attrMap := map[string]string{userAttr: "username"}
	for _, f := range syncTargetAttributes[1:] {
		attrMap[f] = f
	}
	valid := map[string]bool{}
	for _, f := range syncTargetAttributes {
		valid[f] = true
	}
	for _, entry := range splitList(cfg["sync_attributes"]) {
		ours, theirs := "", ""
		if m := syncAttributeEntry.FindStringSubmatch(entry); m != nil {
			ours, theirs = m[1], m[2]
		}
		if !valid[ours] {
			t.Note("skipping bad 'sync_attributes' entry \u2013 '%s' is not a valid target attribute", ours)
			continue
		}
		attrMap[theirs] = ours
	}
	users := map[string]map[string]string{}
	dnmap := map[string]string{}
	for _, name := range sortedKeys(dir.users) {
		entry := map[string]string{}
		for k, v := range dir.users[name] {
			entry[strings.ToLower(k)] = v
		}
		entry[strings.ToLower(userAttr)] = name
		userid := name + "@" + realm
		if _, _, err := verifyUsername(userid); err != nil {
			t.Note("%s", strings.TrimSuffix(asAPIError(err).message, "\n"))
			continue
		}
		synced := map[string]string{}
		for _, ldapAttr := range sortedKeys(attrMap) {
			value, ok := entry[strings.ToLower(ldapAttr)]
			if !ok {
				continue
			}
			ours := attrMap[ldapAttr]
			if msg := syncAttributeError(ours, value); msg != "" {
				noteLines(t, "skipping attribute mapping '"+ldapAttr+"'->'"+ours+"' for user '"+userid+"' - "+msg)
				continue
			}
			synced[ours] = value
		}
		users[userid] = synced
		dnmap[name] = userid
	}
	return users, dnmap
}

// noteLines writes a multi-line warn to the task log line by line.
func noteLines(t *Task, text string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		t.Note("%s", line)
	}
}

var (
	syncUserPart  = regexp.MustCompile(`[^\s:/]`)
	userKeysValue = regexp.MustCompile(`^[0-9a-zA-Z!=]*$`)
	integerValue  = regexp.MustCompile(`^[+-]?\d+$`)
	emailValue    = regexp.MustCompile(`^[\w+\-~]+(\.[\w+\-~]+)*@[a-zA-Z0-9\-]+(\.[a-zA-Z0-9\-]+)*$`)
)

// syncAttributeError is LDAP.pm verify_sync_attribute_value: a user name
// needs one character a user name may have; enable is not checked; the
// other fields are validated against User.pm's user-FIELD schemas, whose
// failure (validate with "invalid value 'V'") reads as the exception
// prints: "400 invalid value 'V'" and the error of the value ("_root").
// "" when the value passes.
func syncAttributeError(field, value string) string {
	var problem string
	switch field {
	case "username":
		if !syncUserPart.MatchString(value) {
			return "value '" + value + "' does not look like a valid user name\n"
		}
		return ""
	case "enable":
		return ""
	case "expire":
		if !integerValue.MatchString(value) {
			problem = "type check ('integer') failed - got '" + value + "'"
		} else if strings.HasPrefix(value, "-") && strings.Trim(value, "-0") != "" {
			problem = "value must have a minimum value of 0"
		}
	case "firstname", "lastname":
		if utf8.RuneCountInString(value) > 1024 {
			problem = "value may only be 1024 characters long"
		}
	case "comment":
		if utf8.RuneCountInString(value) > 2048 {
			problem = "value may only be 2048 characters long"
		}
	case "email":
		// pve-common src/PVE/JSONSchema.pm check_prop: email-opt checks a
		// non-empty value, and the format's die text ends in a newline.
		if perlTruthy(value) && !emailValue.MatchString(value) {
			problem = "invalid format - value does not look like a valid email address\n"
		} else if utf8.RuneCountInString(value) > 254 {
			problem = "value may only be 254 characters long"
		}
	case "keys":
		// User.pm user-keys: [0-9a-zA-Z!=]{0,4096} (RE2 caps repeats at
		// 1000, hence the length test apart).
		if !userKeysValue.MatchString(value) || len(value) > 4096 {
			problem = "value does not match the regex pattern"
		}
	}
	if problem == "" {
		return ""
	}
	return "400 invalid value '" + value + "'\n_root: " + problem + "\n"
}

// directoryGroups is LDAP.pm get_groups over the stand-in directory: each
// group named "NAME-REALM" with the synced users among its members. A name
// that is not a valid group name is skipped with a warning.
func (s *Sim) directoryGroups(t *Task, realm string, dir *directory, dnmap map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, name := range sortedKeys(dir.groups) {
		if !perlTruthy(name) {
			continue
		}
		gid := name + "-" + realm
		if !s.validGroupName(gid) {
			// pve-access-control src/PVE/AccessControl.pm verify_groupname
			t.Note("group name '%s' contains invalid characters", gid)
			continue
		}
		members := map[string]bool{}
		for _, m := range dir.groups[name] {
			if userid, ok := dnmap[m]; ok {
				members[userid] = true
			}
		}
		out[gid] = sortedKeys(members)
	}
	return out
}

var (
	groupNameStrict  = regexp.MustCompile(`^[A-Za-z0-9.\-_]+$`)
	groupNameLenient = regexp.MustCompile(`^[()?^:A-Za-z0-9.\-_]+$`)
)

// validGroupName is AccessControl.pm verify_groupname of the release
// (pveProfile.strictGroupNames).
func (s *Sim) validGroupName(name string) bool {
	if s.pve.strictGroupNames {
		return groupNameStrict.MatchString(name)
	}
	return groupNameLenient.MatchString(name)
}

// userCfg is the part of user.cfg a sync changes, copied so that a dry
// run or a failure leaves the model as it was.
type userCfg struct {
	users  map[string]*User
	groups map[string]*Group
	acl    map[string]*ACLNode
	// removedUsers and removedGroups are the entries the sync removed.
	removedUsers  map[string]bool
	removedGroups map[string]bool
}

func cloneUserCfg(a *Access) *userCfg {
	u := &userCfg{
		users: map[string]*User{}, groups: map[string]*Group{}, acl: map[string]*ACLNode{},
		removedUsers: map[string]bool{}, removedGroups: map[string]bool{},
	}
	for id, usr := range a.Users {
		cp := *usr
		u.users[id] = &cp
	}
	for id, g := range a.Groups {
		u.groups[id] = &Group{Comment: g.Comment, Users: append([]string(nil), g.Users...)}
	}
	for p, n := range a.ACL {
		u.acl[p] = &ACLNode{Users: maps.Clone(n.Users), Groups: maps.Clone(n.Groups), Tokens: maps.Clone(n.Tokens)}
	}
	return u
}

// commit writes the copy back. A user or group the sync removed takes its
// ACL entries (and a user its tokens') with it: write_user_config still
// writes them, but the next read drops ACL entries of members that do not
// exist (pve-access-control src/PVE/AccessControl.pm parse_user_config,
// "ignore invalid acl member"). Group member lists keep a removed user, as
// parse_user_config keeps them too.
func (u *userCfg) commit(a *Access) {
	for _, n := range u.acl {
		for member := range u.removedUsers {
			delete(n.Users, member)
		}
		for gid := range u.removedGroups {
			delete(n.Groups, gid)
		}
		for tokenID := range n.Tokens {
			if user, _, _ := strings.Cut(tokenID, "!"); u.removedUsers[user] {
				delete(n.Tokens, tokenID)
			}
		}
	}
	a.Users, a.Groups, a.ACL = u.users, u.groups, u.acl
}

// removeVanished is the set of remove-vanished flags.
func removeVanished(opts map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.Split(opts["remove-vanished"], ";") {
		out[f] = true
	}
	return out
}

// realmMemberPattern is the unescaped realm in Domains.pm's
// m/\@$realm$/ and m/\-$realm$/: a "." in the realm name matches any
// character.
func realmMemberPattern(sep, realm string) *regexp.Regexp {
	re, err := regexp.Compile(regexp.QuoteMeta(sep) + realm + "$")
	if err != nil {
		return regexp.MustCompile(regexp.QuoteMeta(sep + realm + "$"))
	}
	return re
}

// updateUsers is Domains.pm $update_users.
func (u *userCfg) updateUsers(t *Task, realm string, synced map[string]map[string]string, opts map[string]string) {
	t.Log("syncing users (remove-vanished opts: %s)", opts["remove-vanished"])
	remove := removeVanished(opts)
	if remove["entry"] {
		t.Log("deleting outdated existing users first")
	}
	ofRealm := realmMemberPattern("@", realm)
	for _, id := range sortedKeys(u.users) {
		if !ofRealm.MatchString(id) {
			continue
		}
		if _, ok := synced[id]; ok {
			continue
		}
		if remove["entry"] {
			t.Log("remove user '%s'", id)
			delete(u.users, id)
			u.removedUsers[id] = true
		}
		if remove["acl"] {
			t.Log("purge users '%s' ACL entries", id)
			for _, n := range u.acl {
				delete(n.Users, id)
			}
		}
	}
	for _, id := range sortedKeys(synced) {
		attrs := synced[id]
		old := u.users[id]
		if remove["properties"] || old == nil {
			// The synced user replaces the old one, keeping its enable
			// flag (or enable-new for a new user) and its tokens.
			nu := &User{}
			if old != nil {
				t.Log("overwriting user '%s'", id)
				nu.Enable, nu.Tokens = old.Enable, old.Tokens
			} else {
				t.Log("adding user '%s'", id)
				nu.Enable = perlTruthy(opts["enable-new"])
			}
			applySyncedAttributes(nu, attrs, true)
			u.users[id] = nu
			continue
		}
		applySyncedAttributes(old, attrs, false)
		t.Log("updating user '%s'", id)
	}
}

// applySyncedAttributes sets the synced fields of a user. A replaced
// user's enable flag is not the directory's (keepEnable): $update_users
// sets it from the old user or enable-new afterwards.
func applySyncedAttributes(usr *User, attrs map[string]string, keepEnable bool) {
	for field, v := range attrs {
		switch field {
		case "enable":
			if !keepEnable {
				usr.Enable = perlTruthy(v)
			}
		case "expire":
			n, _ := strconv.ParseInt(strings.TrimPrefix(v, "+"), 10, 64)
			usr.Expire = n
		case "firstname":
			usr.Firstname = v
		case "lastname":
			usr.Lastname = v
		case "email":
			usr.Email = v
		case "comment":
			usr.Comment = v
		case "keys":
			usr.Keys = v
		}
	}
}

// updateGroups is Domains.pm $update_groups. A synced group replaces an
// old one (losing its comment) with remove-vanished properties; otherwise
// only its members change.
func (u *userCfg) updateGroups(t *Task, realm string, synced map[string][]string, opts map[string]string) {
	t.Log("syncing groups (remove-vanished opts: %s)", opts["remove-vanished"])
	remove := removeVanished(opts)
	if remove["entry"] {
		t.Log("deleting outdated existing groups first")
	}
	ofRealm := realmMemberPattern("-", realm)
	for _, gid := range sortedKeys(u.groups) {
		if !ofRealm.MatchString(gid) {
			continue
		}
		if _, ok := synced[gid]; ok {
			continue
		}
		if remove["entry"] {
			t.Log("remove group '%s'", gid)
			delete(u.groups, gid)
			u.removedGroups[gid] = true
		}
		if remove["acl"] {
			t.Log("purge groups '%s' ACL entries", gid)
			for _, n := range u.acl {
				delete(n.Groups, gid)
			}
		}
	}
	for _, gid := range sortedKeys(synced) {
		members := append([]string(nil), synced[gid]...)
		sort.Strings(members)
		old := u.groups[gid]
		if remove["properties"] || old == nil {
			if old != nil {
				t.Log("overwriting group '%s'", gid)
			} else {
				t.Log("adding group '%s'", gid)
			}
			u.groups[gid] = &Group{Users: members}
			continue
		}
		old.Users = members
		t.Log("updating group '%s'", gid)
	}
}
