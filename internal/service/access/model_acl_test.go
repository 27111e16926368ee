package access

import (
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestParseACLImportID(t *testing.T) {
	t.Parallel()
	k, problem := parseACLImportID("/vms//100/|user|alice@pve|PVEVMUser")
	if problem != "" {
		t.Fatal(problem)
	}
	want := aclKey{Path: "/vms/100", Type: "user", UGID: "alice@pve", Role: "PVEVMUser"}
	if k != want {
		t.Errorf("got %+v, want %+v (the path normalized as PVE stores it)", k, want)
	}
	if k.id() != "/vms/100|user|alice@pve|PVEVMUser" {
		t.Errorf("id %q", k.id())
	}
	for _, bad := range []struct{ id, says string }{
		{"/vms/100|user|alice@pve", "PATH|TYPE|UGID|ROLE"},
		{"/vms/100|person|alice@pve|PVEVMUser", "user, group or token"},
		{"/vms/100|user|alice|PVEVMUser", "USER@REALM"},
		{"/vms/100|token|alice@pve|PVEVMUser", "USER@REALM!TOKEN"},
		{"/vms/100|group|ops:x|PVEVMUser", "group name"},
		{"/vms/100|user|root@pam|PVEVMUser", "does not store ACL entries"},
		{"/vms/1 00|user|alice@pve|PVEVMUser", "ACL path"},
		{"/|group|ops|bad role", "role name"},
	} {
		if _, problem := parseACLImportID(bad.id); !strings.Contains(problem, bad.says) {
			t.Errorf("%q: problem %q, want it to say %q", bad.id, problem, bad.says)
		}
	}
}

func TestACLChangeNamesExactlyTheEntry(t *testing.T) {
	t.Parallel()
	k := aclKey{Path: "/pool/dev", Type: pveapi.ACLTypeToken, UGID: "ci@pve!deploy", Role: "PVEVMUser"}
	add := k.change(false, false)
	if add.Path != "/pool/dev" || len(add.Roles) != 1 || add.Roles[0] != "PVEVMUser" || len(add.Tokens) != 1 ||
		add.Tokens[0] != "ci@pve!deploy" || add.Users != nil || add.Groups != nil || add.Propagate == nil || *add.Propagate || add.Delete {
		t.Errorf("add: %+v", add)
	}
	remove := aclKey{Path: "/", Type: pveapi.ACLTypeGroup, UGID: "ops", Role: "R"}.change(true, true)
	if !remove.Delete || remove.Propagate != nil || len(remove.Groups) != 1 || remove.Users != nil || remove.Tokens != nil {
		t.Errorf("remove: %+v", remove)
	}
}

func TestACLKeyFind(t *testing.T) {
	t.Parallel()
	entries := []pveapi.ACLEntry{
		{Path: "/vms", Type: "user", UGID: "alice@pve", RoleID: "PVEAuditor", Propagate: true},
		{Path: "/vms", Type: "group", UGID: "alice@pve", RoleID: "PVEVMUser"},
		{Path: "/vms", Type: "user", UGID: "alice@pve", RoleID: "PVEVMUser", Propagate: false},
	}
	e, ok := aclKey{Path: "/vms", Type: "user", UGID: "alice@pve", Role: "PVEVMUser"}.find(entries)
	if !ok || bool(e.Propagate) {
		t.Errorf("find = %+v, %t", e, ok)
	}
	if _, ok := (aclKey{Path: "/vms/100", Type: "user", UGID: "alice@pve", Role: "PVEVMUser"}).find(entries); ok {
		t.Error("an entry on a parent path is not the entry")
	}
}

func TestNormalizedACLPathProblem(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"/", "/vms", "/vms/100", "/pool/dev/web"} {
		if problem := normalizedACLPathProblem(ok); problem != "" {
			t.Errorf("%q: %s", ok, problem)
		}
	}
	for in, want := range map[string]string{"/vms/": `as "/vms"`, "vms/100": `as "/vms/100"`, "//storage//local": `as "/storage/local"`, "/vms/1 00": "letters, digits"} {
		if problem := normalizedACLPathProblem(in); !strings.Contains(problem, want) {
			t.Errorf("%q: problem %q, want %q in it", in, problem, want)
		}
	}
}

func TestSelfPrincipalGrants(t *testing.T) {
	t.Parallel()
	token := &selfPrincipal{id: "tf@pve!ci", user: "tf@pve", token: "tf@pve!ci", groups: map[string]bool{"automation": true}}
	user := &selfPrincipal{id: "tf@pve", user: "tf@pve", groups: map[string]bool{}}
	for _, tc := range []struct {
		p                     *selfPrincipal
		entryType, ugid, role string
		want                  bool
	}{
		{token, "token", "tf@pve!ci", "R", true},
		{token, "token", "tf@pve!other", "R", false},
		// A separated token holds at most its user's privileges: the
		// user's entries count either way.
		{token, "user", "tf@pve", "R", true},
		{token, "group", "automation", "R", true},
		{token, "group", "ops", "R", false},
		{token, "user", "tf@pve", "NoAccess", false},
		{user, "user", "tf@pve", "PVEAdmin", true},
		{user, "token", "tf@pve!ci", "PVEAdmin", false},
		{user, "user", "alice@pve", "PVEAdmin", false},
	} {
		if got := tc.p.grants(tc.entryType, tc.ugid, tc.role); got != tc.want {
			t.Errorf("%s: %s %s %s = %t, want %t", tc.p.id, tc.entryType, tc.ugid, tc.role, got, tc.want)
		}
	}
}

func TestCustomRoleProblemPointsAtTheDataSource(t *testing.T) {
	t.Parallel()
	if problem := customRoleProblem("PVEVMUser"); !strings.Contains(problem, "pve_roles data source") {
		t.Errorf("built-in: %q", problem)
	}
	if problem := customRoleProblem("pveOps"); !strings.Contains(problem, "reserves") || strings.Contains(problem, "pve_roles") {
		t.Errorf("reserved prefix: %q", problem)
	}
	if problem := customRoleProblem("Ops.Readers"); problem != "" {
		t.Errorf("custom: %q", problem)
	}
}

func TestPermissionMaps(t *testing.T) {
	t.Parallel()
	held, propagating, diags := permissionMaps(pveapi.Permissions{
		"/vms":      {"VM.Audit": true, "VM.PowerMgmt": false},
		"/nodes/n1": {},
	})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if got := held.Elements()["/vms"].String(); got != `["VM.Audit","VM.PowerMgmt"]` {
		t.Errorf("held /vms = %s", got)
	}
	if got := propagating.Elements()["/vms"].String(); got != `["VM.Audit"]` {
		t.Errorf("propagating /vms = %s", got)
	}
	if got := held.Elements()["/nodes/n1"].String(); got != `[]` {
		t.Errorf("held /nodes/n1 = %s", got)
	}
}
