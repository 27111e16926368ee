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
