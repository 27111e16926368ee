package pvesim

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// sdnxGet reads a JSON answer of the SDN API into v.
func sdnxGet(t *testing.T, e *env, path string, v any, kv ...string) {
	t.Helper()
	a := e.call(t, http.MethodGet, path, form(kv...))
	a.wantOK(t)
	a.decode(t, v)
}

// sdnxModel runs fn on the cluster's SDN state with the model locked (the
// apply and the lock are sdn core endpoints; these tests drive the store).
func sdnxModel(e *env, fn func(sd *SDNState)) {
	e.sim.mu.Lock()
	defer e.sim.mu.Unlock()
	fn(e.sim.cluster.SDN)
}

// sdnxWithout drops the volatile digest of an answer.
func sdnxWithout(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

func sdnxJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sdnxWant(t *testing.T, got map[string]any, want string) {
	t.Helper()
	if w := sdnxJSON(t, want); !reflect.DeepEqual(got, w) {
		raw, _ := json.Marshal(got)
		t.Fatalf("got %s\nwant %s", raw, want)
	}
}

// pve-network src/PVE/API2/Network/SDN/Controllers.pm create, read, index,
// update, delete: options stored as SectionConfig checks them, integers as
// numbers, the file's digest; on both releases.
func TestSDNControllerLifecycle(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		e := newEnv(t, Options{PVEVersion: version})
		e.call(t, http.MethodPost, "/cluster/sdn/controllers", form(
			"controller", "evpn1", "type", "evpn", "asn", "065000", "peers", "10.0.0.1,10.0.0.2")).wantOK(t)
		var got map[string]any
		sdnxGet(t, e, "/cluster/sdn/controllers/evpn1", &got)
		if d, _ := got["digest"].(string); len(d) != 40 {
			t.Fatalf("%s: digest %v", version, got["digest"])
		}
		sdnxWant(t, sdnxWithout(got, "digest"), `{"controller":"evpn1","type":"evpn","asn":65000,"peers":"10.0.0.1,10.0.0.2"}`)

		e.call(t, http.MethodPost, "/cluster/sdn/controllers", form(
			"controller", "bgp1", "type", "bgp", "asn", "65001", "peers", "10.0.0.9", "node", "pve1", "ebgp", "1")).wantOK(t)
		var list []map[string]any
		sdnxGet(t, e, "/cluster/sdn/controllers", &list, "type", "bgp")
		if len(list) != 1 || list[0]["controller"] != "bgp1" || list[0]["ebgp"] != float64(1) {
			t.Fatalf("%s: list = %v", version, list)
		}

		e.call(t, http.MethodPut, "/cluster/sdn/controllers/bgp1", form("asn", "65002", "delete", "ebgp")).wantOK(t)
		got = nil
		sdnxGet(t, e, "/cluster/sdn/controllers/bgp1", &got)
		sdnxWant(t, sdnxWithout(got, "digest"), `{"controller":"bgp1","type":"bgp","asn":65002,"peers":"10.0.0.9","node":"pve1"}`)

		e.call(t, http.MethodDelete, "/cluster/sdn/controllers/bgp1", nil).wantOK(t)
		a := e.call(t, http.MethodGet, "/cluster/sdn/controllers/bgp1", nil)
		// pve-network src/PVE/Network/SDN/Controllers.pm sdn_controllers_config
		a.wantStatus(t, http.StatusInternalServerError, "sdn 'bgp1' does not exist")
	}
}

// pve-common src/PVE/SectionConfig.pm check_config and delete_from_config,
// as the controller handlers call them: outside the lock on create (the
// text as it is), inside it on update (behind the handler's errmsg).
func TestSDNControllerOptionChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	post := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/controllers", form(kv...))
	}
	post("controller", "e1", "type", "evpn", "asn", "1", "peers", "10.0.0.1", "isis-domain", "d").
		wantStatus(t, http.StatusInternalServerError, "unexpected property 'isis-domain'")
	post("controller", "e1", "type", "evpn", "peers", "10.0.0.1").
		wantStatus(t, http.StatusInternalServerError, "missing value for required option 'asn'")
	post("controller", "b1", "type", "bgp", "asn", "1", "peers", "10.0.0.1").
		wantStatus(t, http.StatusInternalServerError, "missing value for required option 'node'")
	post("controller", "i1", "type", "isis", "isis-domain", "d", "isis-net", "49.0001.1921.6800.1001.00", "node", "pve1").
		wantStatus(t, http.StatusInternalServerError, "missing value for required option 'isis-ifaces'")
	post("controller", "b1", "type", "bgp", "asn", "1", "peers", "10.0.0.1", "node", "pve1", "loopback", "dummy0").wantOK(t)
	// pve-network src/PVE/Network/SDN/Controllers/FaucetPlugin.pm has no
	// options.
	post("controller", "f1", "type", "faucet", "asn", "1").
		wantStatus(t, http.StatusInternalServerError, "unexpected property 'asn'")
	post("controller", "f1", "type", "faucet").wantOK(t)
	// not simulated: 9.1's route-map options.
	post("controller", "f2", "type", "bgp", "asn", "1", "peers", "10.0.0.1", "node", "pve2", "route-map-in", "rm1").
		wantStatus(t, http.StatusInternalServerError, "pvesim does not simulate the SDN option 'route-map-in'")

	put := func(kv ...string) *answer {
		return e.call(t, http.MethodPut, "/cluster/sdn/controllers/b1", form(kv...))
	}
	put("isis-net", "49.0001.1921.6800.1001.00").
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: unexpected property 'isis-net'")
	put("delete", "asn").
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: unable to delete required option 'asn'")
	put("delete", "fabric").
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: no such option 'fabric'")
	put("loopback", "dummy1", "delete", "loopback").
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: cannot set and delete property 'loopback' at the same time!")
	put("digest", "0123456789abcdef0123456789abcdef01234567", "asn", "2").
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: detected modified configuration - file changed by other user? Try again.")
	e.call(t, http.MethodPut, "/cluster/sdn/controllers/nope", form("asn", "2")).
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: sdn 'nope' does not exist")
	e.call(t, http.MethodDelete, "/cluster/sdn/controllers/nope", nil).
		wantStatus(t, http.StatusInternalServerError, "delete sdn controller object failed: sdn 'nope' does not exist")
	post("controller", "b1", "type", "bgp", "asn", "1", "peers", "10.0.0.1", "node", "pve2").
		wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: sdn controller object ID 'b1' already defined")
	// pve-network src/PVE/Network/SDN/Controllers/IsisPlugin.pm
	// pve_verify_sdn_isis_net, the format checked before 9.1's pattern.
	a := post("controller", "i1", "type", "isis", "isis-domain", "d", "isis-net", "49.0001.1921.00.00.00.00.00.00.00", "isis-ifaces", "eth0", "node", "pve1")
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["isis-net"] != "invalid format - value does not look like a valid isis net\n" {
		t.Fatalf("errors = %v", a.errors)
	}
}

// pve-network src/PVE/Network/SDN/Controllers/EvpnPlugin.pm
// on_update_hook: one EVPN controller in the cluster; on 9.x exactly one of
// peers and fabric. PVE 8.4 requires peers and has no fabric option.
func TestSDNControllerEVPNRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	post := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/controllers", form(kv...))
	}
	post("controller", "e1", "type", "evpn", "asn", "65000").
		wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: must have exactly one of peers / fabric defined")
	post("controller", "e1", "type", "evpn", "asn", "65000", "peers", "10.0.0.1", "fabric", "fab1").
		wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: must have exactly one of peers / fabric defined")
	post("controller", "e1", "type", "evpn", "asn", "65000", "fabric", "fab1").wantOK(t)
	post("controller", "e2", "type", "evpn", "asn", "65001", "peers", "10.0.0.1").
		wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: only 1 global evpn controller can be defined")
	// Switching the underlay needs both in one update.
	e.call(t, http.MethodPut, "/cluster/sdn/controllers/e1", form("peers", "10.0.0.1")).
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: must have exactly one of peers / fabric defined")
	e.call(t, http.MethodPut, "/cluster/sdn/controllers/e1", form("peers", "10.0.0.1", "delete", "fabric")).wantOK(t)

	old := newEnv(t, Options{PVEVersion: "8.4"})
	a := old.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "e1", "type", "evpn", "asn", "65000", "fabric", "fab1"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if _, ok := a.errors["fabric"]; !ok {
		t.Fatalf("8.4 errors = %v", a.errors)
	}
	old.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "e1", "type", "evpn", "asn", "65000")).
		wantStatus(t, http.StatusInternalServerError, "missing value for required option 'peers'")
	old.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "e1", "type", "evpn", "asn", "65000", "peers", "10.0.0.1")).wantOK(t)
	old.call(t, http.MethodPut, "/cluster/sdn/controllers/e1", form("delete", "peers")).
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: unable to delete required option 'peers'")
}

// pve-network src/PVE/Network/SDN/Controllers/BgpPlugin.pm and
// IsisPlugin.pm on_update_hook: the other controllers of the type on the
// node that answers (pve1) are counted and the write fails past one of
// them, so that node can hold two; other nodes' are not counted, and once
// pve1 holds two no controller of the type can be written through it.
func TestSDNControllerPerNodeLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Nodes: 2})
	bgp := func(id, node string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/controllers", form(
			"controller", id, "type", "bgp", "asn", "65000", "peers", "10.0.0.1", "node", node))
	}
	bgp("b1", "pve2").wantOK(t)
	bgp("b2", "pve2").wantOK(t)
	bgp("b3", "pve2").wantOK(t)
	bgp("b4", "pve1").wantOK(t)
	bgp("b5", "pve1").wantOK(t)
	// The count is of pve1's controllers, whatever the new one's node.
	bgp("b6", "pve2").wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: only 1 bgp controller can be defined")
	isis := func(id string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/controllers", form(
			"controller", id, "type", "isis", "isis-domain", "d", "isis-net", "49.0001.1921.6800.1001.00",
			"isis-ifaces", "eth0,eth1", "node", "pve1"))
	}
	isis("i1").wantOK(t)
	isis("i2").wantOK(t)
	isis("i3").wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: only 1 bgp or isis controller can be defined")
}

// pve-network src/PVE/Network/SDN/Controllers/EvpnPlugin.pm and
// BgpPlugin.pm on_delete_hook: a staged zone that names the controller
// keeps it; an isis controller has no such check.
func TestSDNControllerDeleteInUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "evpn1", "type", "evpn", "asn", "65000", "peers", "10.0.0.1")).wantOK(t)
	sdnxModel(e, func(sd *SDNState) {
		sd.Put(SDNZones, "lab", &SDNObject{Type: "evpn", Props: map[string]string{"controller": "evpn1", "vrf-vxlan": "100"}})
	})
	e.call(t, http.MethodDelete, "/cluster/sdn/controllers/evpn1", nil).
		wantStatus(t, http.StatusInternalServerError, "delete sdn controller object failed: controller evpn1 is used by lab")
	sdnxModel(e, func(sd *SDNState) { sd.Remove(SDNZones, "lab") })
	e.call(t, http.MethodDelete, "/cluster/sdn/controllers/evpn1", nil).wantOK(t)
}

// pve-network src/PVE/Network/SDN.pm pending_config through
// Controllers.pm index and read: new, changed and deleted controllers
// against the running config; running=1 shows the running config. The
// digest of those views is null.
func TestSDNControllerPendingView(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "b1", "type", "bgp", "asn", "65000", "peers", "10.0.0.1", "node", "pve1")).wantOK(t)
	var got map[string]any
	sdnxGet(t, e, "/cluster/sdn/controllers/b1", &got, "pending", "1")
	sdnxWant(t, got, `{"controller":"b1","type":"bgp","digest":null,"state":"new","pending":{"asn":65000,"peers":"10.0.0.1","node":"pve1"}}`)
	e.call(t, http.MethodGet, "/cluster/sdn/controllers/b1", form("running", "1")).
		wantStatus(t, http.StatusInternalServerError, "sdn 'b1' does not exist")

	sdnxModel(e, func(sd *SDNState) { sd.Commit() })
	e.call(t, http.MethodPut, "/cluster/sdn/controllers/b1", form("asn", "65001", "ebgp", "1")).wantOK(t)
	got = nil
	sdnxGet(t, e, "/cluster/sdn/controllers/b1", &got, "pending", "1")
	sdnxWant(t, got, `{"controller":"b1","type":"bgp","digest":null,"asn":65000,"peers":"10.0.0.1","node":"pve1","state":"changed","pending":{"asn":65001,"ebgp":1}}`)
	got = nil
	sdnxGet(t, e, "/cluster/sdn/controllers/b1", &got, "running", "1")
	sdnxWant(t, got, `{"controller":"b1","type":"bgp","digest":null,"asn":65000,"peers":"10.0.0.1","node":"pve1"}`)

	e.call(t, http.MethodDelete, "/cluster/sdn/controllers/b1", nil).wantOK(t)
	var list []map[string]any
	sdnxGet(t, e, "/cluster/sdn/controllers", &list, "pending", "1")
	if len(list) != 1 || list[0]["state"] != "deleted" || list[0]["asn"] != float64(65000) {
		t.Fatalf("pending list = %v", list)
	}
	sdnxGet(t, e, "/cluster/sdn/controllers", &list)
	if len(list) != 0 {
		t.Fatalf("list = %v", list)
	}
}

// pve-network src/PVE/Network/SDN.pm lock_sdn_config (PVE 9): with the
// global lock taken every write needs its token. PVE 8.4 has no lock and
// no lock-token parameter.
func TestSDNControllerLockToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	sdnxModel(e, func(sd *SDNState) { sd.LockToken = "0192b7a4-0000-7000-8000-000000000001" })
	create := form("controller", "b1", "type", "bgp", "asn", "65000", "peers", "10.0.0.1", "node", "pve1")
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", create).
		wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: invalid lock token provided!")
	create.Set("lock-token", "wrong")
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", create).
		wantStatus(t, http.StatusInternalServerError, "create sdn controller object failed: invalid lock token provided!")
	create.Set("lock-token", "0192b7a4-0000-7000-8000-000000000001")
	e.call(t, http.MethodPost, "/cluster/sdn/controllers", create).wantOK(t)
	e.call(t, http.MethodPut, "/cluster/sdn/controllers/b1", form("asn", "1")).
		wantStatus(t, http.StatusInternalServerError, "update sdn controller object failed: invalid lock token provided!")
	e.call(t, http.MethodDelete, "/cluster/sdn/controllers/b1", nil).
		wantStatus(t, http.StatusInternalServerError, "delete sdn controller object failed: invalid lock token provided!")
	e.call(t, http.MethodDelete, "/cluster/sdn/controllers/b1", form("lock-token", "0192b7a4-0000-7000-8000-000000000001")).wantOK(t)

	old := newEnv(t, Options{PVEVersion: "8.4"})
	a := old.call(t, http.MethodPost, "/cluster/sdn/controllers", form("controller", "b1", "type", "bgp", "asn", "65000",
		"peers", "10.0.0.1", "node", "pve1", "lock-token", "x"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if _, ok := a.errors["lock-token"]; !ok {
		t.Fatalf("8.4 errors = %v", a.errors)
	}
}
