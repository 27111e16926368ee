package pvesim

import (
	"net/http"
	"testing"
)

// pve-network src/PVE/Network/SDN.pm compile_running_cfg (controllers and
// fabrics go into the running config on apply; IPAMs and DNS are not
// staged), has_pending_changes (zones, vnets, subnets and controllers: a
// staged fabric does not stop POST /cluster/sdn/lock) and
// src/PVE/API2/Network/SDN.pm rollback, through the core's endpoints.
func TestSDNExtrasApplyAndRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	// A staged fabric is no pending change for the lock.
	sdnxFabric(t, e, "id", "fab1", "protocol", "openfabric", "ip_prefix", "10.3.0.0/24").wantOK(t)
	token := sdnTakeLock(t, e)
	sdnxSend(t, e, http.MethodPost, "/cluster/sdn/fabrics/node/fab1", map[string]any{
		"node_id": "pve1", "protocol": "openfabric", "ip": "10.3.0.1", "lock-token": token,
	}).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "evpn1", "type", "evpn", "asn", "65000",
		"fabric", "fab1", "lock-token", token)).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "second", "type", "pve", "lock-token", token)).wantOK(t)
	if st := sdnApply(t, e, "lock-token", token, "release-lock", "1"); st != "OK" {
		t.Fatalf("apply = %s", st)
	}
	if l := sdnList(t, e, "/cluster/sdn/controllers", "pending", "1"); len(l) != 1 || l[0]["state"] != nil || l[0]["fabric"] != "fab1" {
		t.Fatalf("controllers after apply = %v", l)
	}
	all := sdnGet(t, e, "/cluster/sdn/fabrics/all", "running", "1")
	if f, _ := all["fabrics"].([]any); len(f) != 1 {
		t.Fatalf("running fabrics = %v", all)
	}
	if n, _ := all["nodes"].([]any); len(n) != 1 {
		t.Fatalf("running nodes = %v", all)
	}

	// A staged controller is a pending change; rollback restores the
	// controllers and the fabrics, not the IPAMs.
	e.call(t, http.MethodPut, "/cluster/sdn/controllers/evpn1", form("asn", "65001")).wantOK(t)
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/lock", nil), "could not acquire lock for SDN config: configuration has pending changes")
	e.call(t, http.MethodDelete, "/cluster/sdn/fabrics/node/fab1/pve1", nil).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/sdn/ipams/second", nil).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/rollback", nil).wantOK(t)
	if c := sdnGet(t, e, "/cluster/sdn/controllers/evpn1"); c["asn"] != float64(65000) {
		t.Fatalf("controller after rollback = %v", c)
	}
	sdnGet(t, e, "/cluster/sdn/fabrics/node/fab1/pve1")
	if l := sdnList(t, e, "/cluster/sdn/ipams"); len(l) != 1 {
		t.Fatalf("ipams after rollback = %v", l)
	}
}

// A zone that names a controller keeps it (pve-network
// src/PVE/Network/SDN/Controllers/EvpnPlugin.pm on_delete_hook) through the
// core's zone endpoints.
func TestSDNControllerUsedByEVPNZone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "evpn1", "type", "evpn", "asn", "65000", "peers", "10.0.0.1")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("zone", "lab", "type", "evpn", "controller", "evpn1", "vrf-vxlan", "100")).wantOK(t)
	wantSDNError(t, e.call(t, http.MethodDelete, "/cluster/sdn/controllers/evpn1", nil), "delete sdn controller object failed: controller evpn1 is used by lab")
}
