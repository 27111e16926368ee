package wire

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

var pve91 = Release{Major: 9, Minor: 1}

func TestParseRelease(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Release{"9.1": pve91, "9.1.1": pve91, "8.4.14": PVE84, " 9.2 ": PVE92} {
		if got, ok := ParseRelease(in); !ok || got != want {
			t.Errorf("ParseRelease(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "9", "nine.one", "9.x"} {
		if _, ok := ParseRelease(in); ok {
			t.Errorf("ParseRelease(%q) should fail", in)
		}
	}
	if !pve91.AtLeast(PVE90) || !pve91.AtLeast(PVE84) || pve91.AtLeast(PVE92) || PVE84.AtLeast(PVE90) {
		t.Error("AtLeast orders releases by major, then minor")
	}
}

// User ids follow pve-access-control src/PVE/Auth/Plugin.pm
// verify_username: 3 to 64 long, $user_regex [^\s:/]+ before the last '@',
// $realm_regex after it. The 64 limit counts bytes (a user is read by its
// request path, which PVE does not decode).
func TestUserIDProblem(t *testing.T) {
	t.Parallel()
	valid := []string{
		"root@pam", "alice@pve", "a@pv", "ALICE.o'neil+x@corp-ldap", "alice@corp@pve", "jörg@pve",
		"a!b@pve", strings.Repeat("u", 60) + "@pve",
	}
	for _, id := range valid {
		if problem := UserIDProblem(id); problem != "" {
			t.Errorf("UserIDProblem(%q) = %q, want none", id, problem)
		}
	}
	invalid := map[string]string{
		"":                                  "too short",
		"a@":                                "too short",
		"alice":                             "USER@REALM",
		"@pve":                              "empty",
		"al ice@pve":                        "white space",
		"al\u00a0ice@pve":                   "white space",
		"al:ice@pve":                        "':'",
		"al/ice@pve":                        "'/'",
		"alice@p":                           "realm",
		"alice@1pve":                        "realm",
		"alice@pve!tf":                      "realm",
		strings.Repeat("u", 61) + "@pve":    "65 bytes",
		strings.Repeat("ü", 30) + "@pve":    "",
		strings.Repeat("ü", 31) + "@pve":    "66 bytes",
		"alice@" + strings.Repeat("r", 40):  "",
		"alice@" + strings.Repeat("r", 100): "bytes",
	}
	for id, want := range invalid {
		problem := UserIDProblem(id)
		if want == "" {
			if problem != "" {
				t.Errorf("UserIDProblem(%q) = %q, want none", id, problem)
			}
			continue
		}
		if problem == "" || !strings.Contains(problem, want) {
			t.Errorf("UserIDProblem(%q) = %q, want a problem mentioning %q", id, problem, want)
		}
	}
	if user, realm, ok := SplitUserID("alice@corp@pve"); !ok || user != "alice@corp" || realm != "pve" {
		t.Errorf("SplitUserID = %q %q %v", user, realm, ok)
	}
}

// Token ids follow src/PVE/AccessControl.pm $token_full_regex and
// split_tokenid: USER@REALM!TOKEN, TOKEN by $token_subid_regex (the realm
// pattern).
func TestTokenIDProblem(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"root@pam!tf", "alice@pve!ci-2.x_y", "a!b@pve!tok"} {
		if problem := TokenIDProblem(id); problem != "" {
			t.Errorf("TokenIDProblem(%q) = %q", id, problem)
		}
	}
	for _, id := range []string{"root@pam", "root@pam!", "root@pam!t", "root@pam!1tf", "root!tf", "root@pam!t f", "root@pam!tf@x"} {
		if TokenIDProblem(id) == "" {
			t.Errorf("TokenIDProblem(%q) found no problem", id)
		}
	}
	if userid, name, ok := SplitTokenID("a!b@pve!tok"); !ok || userid != "a!b@pve" || name != "tok" {
		t.Errorf("SplitTokenID = %q %q %v", userid, name, ok)
	}
	if JoinTokenID("alice@pve", "tf") != "alice@pve!tf" {
		t.Error("JoinTokenID")
	}
	if TokenNameProblem("tf") != "" || TokenNameProblem("t") == "" || TokenNameProblem("_tf") == "" {
		t.Error("TokenNameProblem follows $token_subid_regex")
	}
}

// Group names follow $groupname_regex (src/PVE/Auth/Plugin.pm, as fixed
// by "fix #7102"), role names verify_rolename, realms pve_verify_realm
// with the realm option's 32 characters; PVE reserves role names starting
// with PVE in any case (src/PVE/API2/Role.pm create_role).
func TestNameProblems(t *testing.T) {
	t.Parallel()
	checks := []struct {
		check   func(string) string
		valid   []string
		invalid []string
	}{
		{GroupNameProblem, []string{"ops", "1", "Dev.Team-2_x"}, []string{"", "ops team", "ops:x", "(?^:x)", "ops/x", "é"}},
		{RoleNameProblem, []string{"Ops", "PVEAdmin", "r.1-x_"}, []string{"", "Ops Role", "ops,x"}},
		{CustomRoleNameProblem, []string{"Ops", "MyPVE", "PV"}, []string{"PVEOps", "pveops", "Pve", "Administrator", "NoAccess", "bad name"}},
		{RealmProblem, []string{"pve", "corp-ldap.x_1", strings.Repeat("r", 32)}, []string{"", "p", "1corp", "corp ldap", strings.Repeat("r", 33)}},
	}
	for _, c := range checks {
		for _, name := range c.valid {
			if problem := c.check(name); problem != "" {
				t.Errorf("%q: %s", name, problem)
			}
		}
		for _, name := range c.invalid {
			if c.check(name) == "" {
				t.Errorf("%q: want a problem", name)
			}
		}
	}
}

// ACL paths are normalized as src/PVE/AccessControl.pm normalize_path
// does, then checked against check_path's list for the release: /sdn/fabrics
// since PVE 9.0, /sdn/prefix-lists and /sdn/route-maps since PVE 9.2.
func TestACLPaths(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/": "/", "//": "/", "vms/100": "/vms/100", "/vms//100/": "/vms/100", "/storage/local/": "/storage/local",
		"/pool/a/b/c": "/pool/a/b/c",
	} {
		if got, ok := NormalizeACLPath(in); !ok || got != want {
			t.Errorf("NormalizeACLPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "/vms/10 0", "/storage/lo:cal", "/pool/é"} {
		if got, ok := NormalizeACLPath(in); ok {
			t.Errorf("NormalizeACLPath(%q) = %q, want refused", in, got)
		}
	}
	everywhere := []string{
		"/", "/access", "/access/groups", "/access/groups/ops", "/access/realm/pve", "/nodes", "/nodes/pve1",
		"/pool", "/pool/dev", "/pool/a/b/c", "/sdn", "/sdn/controllers/evpn-1", "/sdn/dns/pdns", "/sdn/ipams/pve",
		"/sdn/zones/zone1", "/sdn/zones/zone1/vnet1", "/sdn/zones/zone1/vnet1/100", "/storage", "/storage/local-lvm",
		"/vms", "/vms/100", "/vms/999999", "/mapping", "/mapping/pci", "/mapping/pci/gpu0", "vms/100/",
	}
	for _, release := range []Release{PVE84, pve91, PVE92} {
		for _, path := range everywhere {
			if problem := ACLPathProblem(path, release); problem != "" {
				t.Errorf("%s on %s: %s", path, release, problem)
			}
		}
	}
	nowhere := []string{
		"/vms/99", "/vms/0100", "/pool/a/b/c/d", "/nodes/pve1/qemu", "/storage/local/iso", "/sdn/zones/z/v/0",
		"/sdn/zones/z/v/10000", "/sdn/dns/p-dns", "/access/users", "/cluster", "/mapping/a/b/c", "",
	}
	for _, path := range nowhere {
		if ACLPathProblem(path, PVE92) == "" {
			t.Errorf("%q should be refused", path)
		}
	}
	since := map[string]Release{"/sdn/fabrics": PVE90, "/sdn/fabrics/f1": PVE90, "/sdn/prefix-lists/pl1": PVE92, "/sdn/route-maps": PVE92}
	for path, first := range since {
		for _, release := range []Release{PVE84, pve91, PVE92} {
			problem := ACLPathProblem(path, release)
			if release.AtLeast(first) != (problem == "") {
				t.Errorf("%s on %s: %q", path, release, problem)
			}
			if problem != "" && !strings.Contains(problem, "needs PVE "+first.String()) {
				t.Errorf("%s on %s should name PVE %s: %q", path, release, first, problem)
			}
		}
	}
}

// pve9Privileges is PVE 9.1's list of privileges, the properties of GET
// /access/roles/{roleid} in its API schema (create_priv_properties, one
// per key of $valid_privs, src/PVE/AccessControl.pm).
var pve9Privileges = "Datastore.Allocate,Datastore.AllocateSpace,Datastore.AllocateTemplate,Datastore.Audit,Group.Allocate," +
	"Mapping.Audit,Mapping.Modify,Mapping.Use,Permissions.Modify,Pool.Allocate,Pool.Audit,Realm.Allocate,Realm.AllocateUser," +
	"SDN.Allocate,SDN.Audit,SDN.Use,Sys.AccessNetwork,Sys.Audit,Sys.Console,Sys.Incoming,Sys.Modify,Sys.PowerMgmt,Sys.Syslog," +
	"User.Modify,VM.Allocate,VM.Audit,VM.Backup,VM.Clone,VM.Config.CDROM,VM.Config.CPU,VM.Config.Cloudinit,VM.Config.Disk," +
	"VM.Config.HWType,VM.Config.Memory,VM.Config.Network,VM.Config.Options,VM.Console,VM.GuestAgent.Audit," +
	"VM.GuestAgent.FileRead,VM.GuestAgent.FileSystemMgmt,VM.GuestAgent.FileWrite,VM.GuestAgent.Unrestricted,VM.Migrate," +
	"VM.PowerMgmt,VM.Replicate,VM.Snapshot,VM.Snapshot.Rollback"

// pve84Privileges is the same from PVE 8.4's API schema.
var pve84Privileges = "Datastore.Allocate,Datastore.AllocateSpace,Datastore.AllocateTemplate,Datastore.Audit,Group.Allocate," +
	"Mapping.Audit,Mapping.Modify,Mapping.Use,Permissions.Modify,Pool.Allocate,Pool.Audit,Realm.Allocate,Realm.AllocateUser," +
	"SDN.Allocate,SDN.Audit,SDN.Use,Sys.AccessNetwork,Sys.Audit,Sys.Console,Sys.Incoming,Sys.Modify,Sys.PowerMgmt,Sys.Syslog," +
	"User.Modify,VM.Allocate,VM.Audit,VM.Backup,VM.Clone,VM.Config.CDROM,VM.Config.CPU,VM.Config.Cloudinit,VM.Config.Disk," +
	"VM.Config.HWType,VM.Config.Memory,VM.Config.Network,VM.Config.Options,VM.Console,VM.Migrate,VM.Monitor,VM.PowerMgmt," +
	"VM.Snapshot,VM.Snapshot.Rollback"

func TestPrivilegeCatalogue(t *testing.T) {
	t.Parallel()
	for release, want := range map[Release]string{PVE84: pve84Privileges, PVE90: pve9Privileges, pve91: pve9Privileges, PVE92: pve9Privileges} {
		if got := strings.Join(Privileges(release), ","); got != want {
			t.Errorf("Privileges(%s) =\n%s\nwant\n%s", release, got, want)
		}
	}
}

// PVE 9.0 dropped VM.Monitor for the VM.GuestAgent.* privileges (agent)
// and Sys.Audit (QEMU monitor), and added VM.Replicate, which PVE 8 guards
// with Datastore.Allocate on /storage (the commit messages of
// "privileges: drop VM.Monitor" and "add VM.Replicate privilege").
func TestPrivilegeProblem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		priv    string
		release Release
		want    []string // parts of the problem; nil for none
	}{
		{"VM.Audit", PVE84, nil},
		{"VM.Monitor", PVE84, nil},
		{"VM.GuestAgent.FileRead", pve91, nil},
		{"VM.Monitor", pve91, []string{"PVE 9.1", "dropped", "VM.GuestAgent.Audit", "VM.GuestAgent.Unrestricted", "Sys.Audit"}},
		{"VM.GuestAgent.Audit", PVE84, []string{"PVE 8.4", "added", "VM.Monitor"}},
		{"VM.Replicate", PVE84, []string{"PVE 8.4", "Datastore.Allocate on /storage"}},
		{"vm.audit", pve91, []string{"case sensitive", `"VM.Audit"`}},
		{"VM.Frobnicate", PVE92, []string{`"VM.Frobnicate" does not exist on PVE 9.2`}},
		{"", pve91, []string{"empty"}},
	}
	for _, tc := range cases {
		problem := PrivilegeProblem(tc.priv, tc.release)
		if (problem == "") != (tc.want == nil) {
			t.Errorf("PrivilegeProblem(%q, %s) = %q", tc.priv, tc.release, problem)
		}
		for _, part := range tc.want {
			if !strings.Contains(problem, part) {
				t.Errorf("PrivilegeProblem(%q, %s) = %q, lacks %q", tc.priv, tc.release, problem, part)
			}
		}
	}
}

// The built-in roles are what PVE's own create_roles builds
// (src/PVE/AccessControl.pm), as printed by running it on each release's
// $privgroups: testdata/access/builtin_roles_pve*.txt.
func TestBuiltinRoles(t *testing.T) {
	t.Parallel()
	for release, file := range map[Release]string{PVE84: "builtin_roles_pve8.4.txt", pve91: "builtin_roles_pve9.1.txt"} {
		text, err := os.ReadFile("testdata/access/" + file)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		for _, line := range strings.Split(string(text), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			name, privs, _ := strings.Cut(line, ":")
			want[name] = SplitList(privs)
			if want[name] == nil {
				want[name] = []string{}
			}
		}
		if got := BuiltinRoles(release); !reflect.DeepEqual(got, want) {
			t.Errorf("BuiltinRoles(%s) =\n%v\nwant\n%v", release, got, want)
		}
		for name := range want {
			if !IsBuiltinRole(name) {
				t.Errorf("IsBuiltinRole(%q) = false", name)
			}
		}
	}
	for _, name := range []string{"Ops", "pveadmin", "PVESysUser", "PVEUserUser", ""} {
		if IsBuiltinRole(name) {
			t.Errorf("IsBuiltinRole(%q) = true", name)
		}
	}
}
