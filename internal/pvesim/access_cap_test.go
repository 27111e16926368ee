package pvesim

import (
	"net/http"
	"testing"
)

// The login answer carries "cap", the user's API permissions per category
// (pve-access-control src/PVE/API2/AccessControl.pm create_ticket,
// src/PVE/RPCEnvironment.pm compute_api_permission), and the cluster's
// name only for a user with Sys.Audit on /.
func TestLoginAnswerCarriesCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{"root@pam=secret", "ops@pve=secret"}})
	var full map[string]any
	a := e.call(t, http.MethodPost, "/access/ticket", form("username", "root@pam", "password", "secret"), withoutAuth)
	a.wantOK(t)
	a.decode(t, &full)
	caps, _ := full["cap"].(map[string]any)
	for _, category := range []string{"vms", "access", "storage", "nodes", "sdn", "dc", "mapping"} {
		if _, ok := caps[category].(map[string]any); !ok {
			t.Errorf("cap.%s missing: %v", category, caps)
		}
	}
	if vms, _ := caps["vms"].(map[string]any); vms["VM.Allocate"] != float64(1) || vms["Permissions.Modify"] != float64(1) {
		t.Errorf("cap.vms = %v", vms)
	}
	if dc, _ := caps["dc"].(map[string]any); dc["Sys.Audit"] != float64(1) || dc["Sys.Console"] != nil {
		t.Errorf("cap.dc = %v", dc)
	}
	if full["clustername"] == nil {
		t.Error("root@pam is told the cluster's name")
	}

	e.sim.SetPrivileges("ops@pve", "VM.Audit", "Datastore.Audit")
	var limited map[string]any
	a = e.call(t, http.MethodPost, "/access/ticket", form("username", "ops@pve", "password", "secret"), withoutAuth)
	a.wantOK(t)
	a.decode(t, &limited)
	caps, _ = limited["cap"].(map[string]any)
	if vms, _ := caps["vms"].(map[string]any); len(vms) != 1 || vms["VM.Audit"] != float64(1) {
		t.Errorf("limited cap.vms = %v", vms)
	}
	if nodes, _ := caps["nodes"].(map[string]any); len(nodes) != 0 {
		t.Errorf("limited cap.nodes = %v", nodes)
	}
	if _, ok := limited["clustername"]; ok {
		t.Error("a user without Sys.Audit is told the cluster's name")
	}
}

// PVE 8 knows VM.Monitor and neither the guest agent privileges nor
// VM.Replicate (pve-access-control 0706945, 922f710 and 5f7544f came with
// PVE 9.0): the login answer's cap lists the release's privileges.
func TestLoginCapListsTheReleasePrivileges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		release        string
		monitor, agent bool
	}{{"8.4", true, false}, {"9.1", false, true}} {
		e := newEnv(t, Options{PVEVersion: tc.release, Passwords: []string{"root@pam=secret"}})
		var answer map[string]any
		a := e.call(t, http.MethodPost, "/access/ticket", form("username", "root@pam", "password", "secret"), withoutAuth)
		a.wantOK(t)
		a.decode(t, &answer)
		caps, _ := answer["cap"].(map[string]any)
		vms, _ := caps["vms"].(map[string]any)
		if _, ok := vms["VM.Monitor"]; ok != tc.monitor {
			t.Errorf("%s: cap.vms has VM.Monitor = %v, want %v", tc.release, ok, tc.monitor)
		}
		for _, p := range []string{"VM.GuestAgent.Audit", "VM.Replicate"} {
			if _, ok := vms[p]; ok != tc.agent {
				t.Errorf("%s: cap.vms has %s = %v, want %v", tc.release, p, ok, tc.agent)
			}
		}
	}
}
