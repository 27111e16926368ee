package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

// GET /access/roles and /access/roles/{roleid} (pve-access-control
// src/PVE/API2/Role.pm index, read_role): the built-in roles are listed
// with special 1 and their privileges sorted and comma-joined; a role
// without privileges reads as an empty object, not as an error.
func TestRolesIndexAndRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Empty")).wantOK(t)

	var roles []map[string]any
	e.call(t, http.MethodGet, "/access/roles", nil).decode(t, &roles)
	byID := map[string]map[string]any{}
	var ids []string
	for _, r := range roles {
		id := r["roleid"].(string)
		byID[id] = r
		ids = append(ids, id)
	}
	if got := strings.Join(ids, ","); !strings.HasPrefix(got, "Administrator,Empty,NoAccess,PVEAdmin,") {
		t.Errorf("role ids = %s", got)
	}
	if jsonText(byID["NoAccess"]) != `{"privs":"","roleid":"NoAccess","special":1}` {
		t.Errorf("NoAccess = %s", jsonText(byID["NoAccess"]))
	}
	if jsonText(byID["Empty"]) != `{"privs":"","roleid":"Empty","special":0}` {
		t.Errorf("Empty = %s", jsonText(byID["Empty"]))
	}
	if jsonText(byID["PVETemplateUser"]) != `{"privs":"VM.Audit,VM.Clone","roleid":"PVETemplateUser","special":1}` {
		t.Errorf("PVETemplateUser = %s", jsonText(byID["PVETemplateUser"]))
	}
	admin := byID["Administrator"]["privs"].(string)
	if !strings.HasPrefix(admin, "Datastore.Allocate,") || !strings.Contains(admin, ",Permissions.Modify,") ||
		strings.Contains(admin, "VM.Monitor") {
		t.Errorf("Administrator privs = %s", admin)
	}

	var privs map[string]int
	e.call(t, http.MethodGet, "/access/roles/PVEVMUser", nil).decode(t, &privs)
	want := `{"VM.Audit":1,"VM.Backup":1,"VM.Config.CDROM":1,"VM.Config.Cloudinit":1,"VM.Console":1,` +
		`"VM.GuestAgent.Audit":1,"VM.GuestAgent.FileRead":1,"VM.GuestAgent.FileSystemMgmt":1,` +
		`"VM.GuestAgent.FileWrite":1,"VM.PowerMgmt":1}`
	if jsonText(privs) != want {
		t.Errorf("PVEVMUser = %s", jsonText(privs))
	}
	for _, id := range []string{"NoAccess", "Empty"} {
		a := e.call(t, http.MethodGet, "/access/roles/"+id, nil)
		a.wantOK(t)
		if string(a.data) != `{}` {
			t.Errorf("%s reads %s", id, a.data)
		}
	}
	e.call(t, http.MethodGet, "/access/roles/Nope", nil).
		wantStatus(t, http.StatusInternalServerError, "role 'Nope' does not exist")
}

// POST, PUT and DELETE /access/roles (pve-access-control
// src/PVE/API2/Role.pm create_role, update_role, delete_role).
func TestRolesWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	readPrivs := func(id string) string {
		t.Helper()
		var privs map[string]int
		e.call(t, http.MethodGet, "/access/roles/"+id, nil).decode(t, &privs)
		return strings.Join(sortedKeys(privs), ",")
	}
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Ops", "privs", "VM.Console;VM.Audit")).wantOK(t)
	if got := readPrivs("Ops"); got != "VM.Audit,VM.Console" {
		t.Errorf("created = %s", got)
	}
	// Inside lock_user_config: an existing role, built-in ones included.
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Ops")).
		wantStatus(t, http.StatusInternalServerError, "create role failed: role 'Ops' already exists")
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Administrator")).
		wantStatus(t, http.StatusInternalServerError, "create role failed: role 'Administrator' already exists")
	// The PVE namespace, in any case, is a parameter error.
	a := e.call(t, http.MethodPost, "/access/roles", form("roleid", "pveOps"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["roleid"] != "cannot use role ID starting with the (case-insensitive) 'PVE' namespace" {
		t.Errorf("errors = %v", a.errors)
	}
	// pve-priv-list: verify_privname through the format check.
	a = e.call(t, http.MethodPost, "/access/roles", form("roleid", "Old", "privs", "VM.Audit,VM.Monitor"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["privs"] != "invalid format - invalid privilege 'VM.Monitor'\n" {
		t.Errorf("errors = %q", a.errors)
	}

	// update_role: append adds, otherwise the list replaces; no privs
	// at all clears the role.
	e.call(t, http.MethodPut, "/access/roles/Ops", form("privs", "Sys.Audit", "append", "1")).wantOK(t)
	if got := readPrivs("Ops"); got != "Sys.Audit,VM.Audit,VM.Console" {
		t.Errorf("appended = %s", got)
	}
	e.call(t, http.MethodPut, "/access/roles/Ops", form("privs", "Datastore.Audit")).wantOK(t)
	if got := readPrivs("Ops"); got != "Datastore.Audit" {
		t.Errorf("replaced = %s", got)
	}
	e.call(t, http.MethodPut, "/access/roles/Ops", nil).wantOK(t)
	if got := readPrivs("Ops"); got != "" {
		t.Errorf("cleared = %s", got)
	}
	a = e.call(t, http.MethodPut, "/access/roles/Ops", form("append", "1"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["privs"] == "" {
		t.Errorf("append without privs: %v", a.errors)
	}
	e.call(t, http.MethodPut, "/access/roles/PVEAdmin", form("privs", "VM.Audit")).
		wantStatus(t, http.StatusInternalServerError, "auto-generated role 'PVEAdmin' cannot be modified")
	e.call(t, http.MethodPut, "/access/roles/Nope", form("privs", "VM.Audit")).
		wantStatus(t, http.StatusInternalServerError, "update role failed: role 'Nope' does not exist")

	e.call(t, http.MethodDelete, "/access/roles/NoAccess", nil).
		wantStatus(t, http.StatusInternalServerError, "auto-generated role 'NoAccess' cannot be deleted")
	e.call(t, http.MethodDelete, "/access/roles/Nope", nil).
		wantStatus(t, http.StatusInternalServerError, "delete role failed: role 'Nope' does not exist")
	e.call(t, http.MethodDelete, "/access/roles/Ops", nil).wantOK(t)
	e.call(t, http.MethodGet, "/access/roles/Ops", nil).
		wantStatus(t, http.StatusInternalServerError, "role 'Ops' does not exist")

	// The writes need Sys.Modify on /access; reading needs nothing.
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit")
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "X")).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access, Sys.Modify)")
	e.sim.SetPrivileges(testTokenUser)
	e.call(t, http.MethodGet, "/access/roles/PVEAuditor", nil).wantOK(t)
}

// The valid privileges follow the release (AccessControl.pm $privgroups):
// PVE 8.4 knows VM.Monitor and no guest agent privileges.
func TestRolePrivilegesPerRelease(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.call(t, http.MethodPost, "/access/roles", form("roleid", "Mon", "privs", "VM.Monitor")).wantOK(t)
	a := e.call(t, http.MethodPut, "/access/roles/Mon", form("privs", "VM.GuestAgent.Audit", "append", "1"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["privs"] != "invalid format - invalid privilege 'VM.GuestAgent.Audit'\n" {
		t.Errorf("errors = %q", a.errors)
	}
	var privs map[string]int
	e.call(t, http.MethodGet, "/access/roles/Mon", nil).decode(t, &privs)
	if jsonText(privs) != `{"VM.Monitor":1}` {
		t.Errorf("Mon = %s", jsonText(privs))
	}
}
