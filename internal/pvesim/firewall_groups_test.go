package pvesim

import (
	"net/http"
	"testing"
)

func (e *env) securityGroups(t *testing.T) []map[string]any {
	t.Helper()
	var list []map[string]any
	e.call(t, http.MethodGet, "/cluster/firewall/groups", nil).decode(t, &list)
	return list
}

// Security groups (pve-firewall src/PVE/API2/Firewall/Groups.pm,
// Rules.pm GroupRules): created under the name as given, read back
// lowercased; listed sorted with comment and digest; deleted only when
// empty.
// Wire rules: W52.
func TestSecurityGroupCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	groups := "/cluster/firewall/groups"
	e.call(t, http.MethodPost, groups, form("group", "Web", "comment", " web servers ")).wantNull(t)
	e.call(t, http.MethodPost, groups, form("group", "db")).wantNull(t)
	e.call(t, http.MethodPost, groups, form("group", "db")).wantParamError(t, "group", "Security group 'db' already exists")
	list := e.securityGroups(t)
	if len(list) != 2 || list[0]["group"] != "db" || list[1]["group"] != "web" || list[1]["comment"] != "web servers" ||
		list[0]["comment"] != nil || list[0]["digest"] != list[1]["digest"] {
		t.Fatalf("groups = %v", list)
	}
	want := firewallListDigest([]map[string]any{{"group": "db"}, {"group": "web", "comment": "web servers"}})
	if list[0]["digest"] != want {
		t.Fatalf("digest = %v, want %s", list[0]["digest"], want)
	}
	// Rules of a group are addressed by the stored (lowercased) name.
	e.call(t, http.MethodGet, groups+"/Web", nil).wantStatus(t, http.StatusInternalServerError, "no such security group 'Web'")
	e.call(t, http.MethodPost, groups+"/web", form("type", "in", "action", "ACCEPT", "macro", "HTTP", "enable", "1")).wantNull(t)
	if r := e.fwRules(t, groups+"/web"); len(r) != 1 || r[0]["macro"] != "HTTP" {
		t.Fatalf("group rules = %v", r)
	}
	e.call(t, http.MethodDelete, groups+"/web", nil).wantStatus(t, http.StatusInternalServerError, "Security group 'web' is not empty")
	e.call(t, http.MethodDelete, groups+"/nosuch", nil).wantStatus(t, http.StatusInternalServerError, "no such security group 'nosuch'")
	e.call(t, http.MethodDelete, groups+"/db", nil).wantNull(t)
	if list := e.securityGroups(t); len(list) != 1 || list[0]["group"] != "web" {
		t.Fatalf("groups = %v", list)
	}
	// A newline in a group's comment ends the header line: a rule line
	// after it becomes a rule of the group.
	e.call(t, http.MethodPost, groups, form("group", "ssh", "comment", "admins\nIN SSH(ACCEPT)")).wantNull(t)
	list = e.securityGroups(t)
	if list[0]["comment"] != "admins" {
		t.Fatalf("groups = %v", list)
	}
	if r := e.fwRules(t, groups+"/ssh"); len(r) != 1 || r[0]["macro"] != "SSH" || r[0]["enable"] != float64(1) {
		t.Fatalf("ssh rules = %v", r)
	}
}

// A rename copies the group, rewrites the group rules that name it in the
// cluster's, every node's and every guest's rules, then drops the old
// group; it checks the digest of the group list (Groups.pm
// create_security_group).
func TestSecurityGroupRenameRewritesReferences(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"), vm(101, "pve2", "db"))
	groups := "/cluster/firewall/groups"
	e.call(t, http.MethodPost, groups, form("group", "web", "comment", "old")).wantNull(t)
	e.call(t, http.MethodPost, groups+"/web", form("type", "in", "action", "ACCEPT", "proto", "tcp", "dport", "80")).wantNull(t)
	for _, base := range []string{"/cluster/firewall/rules", "/nodes/pve2/firewall/rules", "/nodes/pve1/qemu/100/firewall/rules",
		"/nodes/pve1/qemu/300/firewall/rules"} {
		e.call(t, http.MethodPost, base, form("type", "group", "action", "web")).wantNull(t)
		e.call(t, http.MethodPost, base, form("type", "group", "action", "Web")).wantNull(t)
	}
	digest := e.securityGroups(t)[0]["digest"].(string)
	e.call(t, http.MethodPost, groups, form("group", "www", "rename", "web", "digest", "1234")).
		wantStatus(t, http.StatusInternalServerError, "detected modified configuration - file changed by other user? Try again.")
	e.call(t, http.MethodPost, groups, form("group", "www", "rename", "nosuch")).
		wantParamError(t, "group", "Security group 'nosuch' does not exist")
	e.call(t, http.MethodPost, groups, form("group", "other")).wantNull(t)
	e.call(t, http.MethodPost, groups, form("group", "other", "rename", "web")).
		wantParamError(t, "group", "Security group 'other' does already exist")
	e.call(t, http.MethodDelete, groups+"/other", nil).wantNull(t)
	e.call(t, http.MethodPost, groups, form("group", "www", "rename", "web", "digest", digest)).wantNull(t)

	list := e.securityGroups(t)
	if len(list) != 1 || list[0]["group"] != "www" || list[0]["comment"] != "old" {
		t.Fatalf("groups = %v", list)
	}
	if r := e.fwRules(t, groups+"/www"); len(r) != 1 || r[0]["dport"] != "80" {
		t.Fatalf("www rules = %v", r)
	}
	for base, want := range map[string]string{
		"/cluster/firewall/rules":             "Web www",
		"/nodes/pve2/firewall/rules":          "Web www",
		"/nodes/pve1/qemu/100/firewall/rules": "Web www",
		// a firewall file of a VMID without a guest is not rewritten
		"/nodes/pve1/qemu/300/firewall/rules": "Web web",
	} {
		if got := fwActions(e.fwRules(t, base)); got != want {
			t.Errorf("%s: %s, want %s", base, got, want)
		}
	}
	// rename equal to group updates only the comment
	e.call(t, http.MethodPost, groups, form("group", "www", "rename", "www", "comment", "new")).wantNull(t)
	if list := e.securityGroups(t); list[0]["comment"] != "new" {
		t.Fatalf("groups = %v", list)
	}
}
