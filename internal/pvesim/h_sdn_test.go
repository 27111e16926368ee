package pvesim

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// sdnList is GET of an SDN list with optional parameters.
func sdnList(t *testing.T, e *env, path string, kv ...string) []map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, path, form(kv...))
	a.wantOK(t)
	var out []map[string]any
	a.decode(t, &out)
	return out
}

func sdnGet(t *testing.T, e *env, path string, kv ...string) map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, path, form(kv...))
	a.wantOK(t)
	var out map[string]any
	a.decode(t, &out)
	return out
}

// sdnApply applies and returns the task's exit status.
func sdnApply(t *testing.T, e *env, kv ...string) string {
	t.Helper()
	a := e.call(t, http.MethodPut, "/cluster/sdn", form(kv...))
	a.wantOK(t)
	var upid string
	a.decode(t, &upid)
	if !strings.Contains(upid, ":reloadnetworkall::") {
		t.Fatalf("apply UPID = %q", upid)
	}
	info, ok := e.sim.Task(upid)
	if !ok {
		t.Fatalf("no task %s", upid)
	}
	return info.ExitStatus
}

// wantSDNError fails unless the answer is PVE's 500 with that text.
func wantSDNError(t *testing.T, a *answer, text string) {
	t.Helper()
	if a.status != http.StatusInternalServerError || a.message != text+"\n" {
		t.Fatalf("got %d %q, want 500 %q", a.status, a.message, text)
	}
}

// pve-network src/PVE/API2/Network/SDN/Zones.pm create, read, update,
// delete, and src/PVE/Network/SDN.pm pending_config through the API: a
// write stages, the pending view shows the state and the staged values,
// PUT /cluster/sdn applies; on both releases.
func TestSDNZoneLifecycleAndViews(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		e := newEnv(t, Options{PVEVersion: version})
		e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab", "mtu", "1450", "nodes", "pve2,pve1,pve1")).wantOK(t)

		z := sdnGet(t, e, "/cluster/sdn/zones/lab")
		if z["nodes"] != "pve1,pve2" || z["mtu"] != float64(1450) || z["type"] != "simple" || z["zone"] != "lab" || z["digest"] == nil {
			t.Fatalf("%s: zone = %v", version, z)
		}
		p := sdnGet(t, e, "/cluster/sdn/zones/lab", "pending", "1")
		want := map[string]any{
			"zone": "lab", "type": "simple", "digest": nil, "state": "new",
			"pending": map[string]any{"mtu": float64(1450), "nodes": "pve1,pve2"},
		}
		if !reflect.DeepEqual(p, want) {
			t.Fatalf("%s: pending view = %v", version, p)
		}
		if r := sdnList(t, e, "/cluster/sdn/zones", "running", "1"); len(r) != 0 {
			t.Fatalf("%s: running before apply = %v", version, r)
		}

		if st := sdnApply(t, e); st != "OK" {
			t.Fatalf("%s: apply = %s", version, st)
		}
		p = sdnGet(t, e, "/cluster/sdn/zones/lab", "pending", "1")
		if _, has := p["state"]; has || p["mtu"] != float64(1450) {
			t.Fatalf("%s: pending view after apply = %v", version, p)
		}

		e.call(t, http.MethodPut, "/cluster/sdn/zones/lab", form("mtu", "1400", "delete", "nodes")).wantOK(t)
		p = sdnGet(t, e, "/cluster/sdn/zones/lab", "pending", "1")
		if p["state"] != "changed" || p["mtu"] != float64(1450) ||
			!reflect.DeepEqual(p["pending"], map[string]any{"mtu": float64(1400), "nodes": "deleted"}) {
			t.Fatalf("%s: changed zone = %v", version, p)
		}
		r := sdnGet(t, e, "/cluster/sdn/zones/lab", "running", "1")
		if r["mtu"] != float64(1450) || r["digest"] != nil {
			t.Fatalf("%s: running view = %v", version, r)
		}

		e.call(t, http.MethodDelete, "/cluster/sdn/zones/lab", nil).wantOK(t)
		l := sdnList(t, e, "/cluster/sdn/zones", "pending", "1")
		if len(l) != 1 || l[0]["state"] != "deleted" || !reflect.DeepEqual(l[0]["pending"], map[string]any{}) {
			t.Fatalf("%s: deleted zone = %v", version, l)
		}
		wantSDNError(t, e.call(t, http.MethodGet, "/cluster/sdn/zones/lab", nil), "sdn 'lab' does not exist")
		sdnApply(t, e)
		if l := sdnList(t, e, "/cluster/sdn/zones", "pending", "1"); len(l) != 0 {
			t.Fatalf("%s: zones after applying the deletion = %v", version, l)
		}
	}
}

// The zone types' options and checks: pve-common SectionConfig.pm
// check_config ("unexpected property", required options) with the
// plugins' options, VxlanPlugin.pm on_update_hook (9.x) against 8.4's
// required peers, EvpnPlugin.pm on_update_hook, and Zones.pm's references.
func TestSDNZoneTypeChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	create := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/zones", form(kv...))
	}
	wantSDNError(t, create("type", "simple", "zone", "s1", "bridge", "vmbr0"), "unexpected property 'bridge'")
	wantSDNError(t, create("type", "vlan", "zone", "v1"), "missing value for required option 'bridge'")
	create("type", "vlan", "zone", "v1", "bridge", "vmbr0").wantOK(t)
	wantSDNError(t, create("type", "vlan", "zone", "v1", "bridge", "vmbr0"), "create sdn zone object failed: sdn zone object ID 'v1' already defined")
	wantSDNError(t, create("type", "qinq", "zone", "q1", "bridge", "vmbr0"), "missing value for required option 'tag'")

	a := create("type", "vxlan", "zone", "x1")
	wantSDNError(t, a, "create sdn zone object failed: 400 Parameter verification failed.\nfabric: must have exactly one of peers / fabric defined\npeers: must have exactly one of peers / fabric defined")
	create("type", "vxlan", "zone", "x1", "peers", "10.0.0.1,10.0.0.2").wantOK(t)

	wantSDNError(t, create("type", "evpn", "zone", "e1", "controller", "ctl", "vrf-vxlan", "100"), "create sdn zone object failed: controller ctl don't exist")
	if err := e.sim.PlantSDNPending(SDNControllers, "ctl", &SDNObject{Type: "evpn", Props: map[string]string{"asn": "65000"}}); err != nil {
		t.Fatal(err)
	}
	create("type", "evpn", "zone", "e1", "controller", "ctl", "vrf-vxlan", "100").wantOK(t)
	if mac, _ := sdnGet(t, e, "/cluster/sdn/zones/e1")["mac"].(string); len(mac) != 17 {
		t.Fatalf("evpn zone mac = %q, want one made up", mac)
	}
	wantSDNError(t, create("type", "evpn", "zone", "e2", "controller", "ctl", "vrf-vxlan", "100"), "create sdn zone object failed: vrf-vxlan 100 is already declared in e1")

	wantSDNError(t, create("type", "simple", "zone", "s2", "ipam", "nb"), "create sdn zone object failed: 400 Parameter verification failed.\nipam: nb not existing")
	create("type", "simple", "zone", "s2", "ipam", "pve").wantOK(t)
	wantSDNError(t, create("type", "simple", "zone", "s3", "dnszone", "example.com"), "create sdn zone object failed: 400 Parameter verification failed.\ndnszone: missing dns server")

	// update: type options, required options, digest
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn/zones/v1", form("peers", "10.0.0.1")), "update sdn zone object failed: unexpected property 'peers'")
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn/zones/v1", form("delete", "bridge")), "update sdn zone object failed: unable to delete required option 'bridge'")
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn/zones/v1", form("mtu", "1400", "digest", "0000")),
		"update sdn zone object failed: detected modified configuration - file changed by other user? Try again.")
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn/zones/nope", form("mtu", "1400")), "update sdn zone object failed: sdn 'nope' does not exist")
}

// PVE 8.4 (pve-network 0.11.2 VxlanPlugin.pm options): peers is required
// and there is no fabric option.
func TestSDNZoneVxlanPVE84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "vxlan", "zone", "x1")), "missing value for required option 'peers'")
	a := e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "vxlan", "zone", "x1", "peers", "10.0.0.1", "fabric", "f1"))
	if a.status != http.StatusBadRequest || a.errors["fabric"] == "" {
		t.Fatalf("fabric on 8.4 = %d %v", a.status, a.errors)
	}
}
