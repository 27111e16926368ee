package pvesim

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func sdnSetupZones(t *testing.T, e *env) {
	t.Helper()
	for _, z := range [][]string{
		{"type", "simple", "zone", "simp", "ipam", "pve"},
		{"type", "vlan", "zone", "vl", "bridge", "vmbr0"},
		{"type", "qinq", "zone", "qq", "bridge", "vmbr0", "tag", "10"},
		{"type", "vxlan", "zone", "vx", "peers", "10.0.0.1"},
	} {
		e.call(t, http.MethodPost, "/cluster/sdn/zones", form(z...)).wantOK(t)
	}
}

// The zone plugins' vnet_update_hook (pve-network
// src/PVE/Network/SDN/Zones/SimplePlugin.pm, VlanPlugin.pm, QinQPlugin.pm,
// VxlanPlugin.pm) and pve-network src/PVE/API2/Network/SDN/Vnets.pm.
func TestSDNVnetTagRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	sdnSetupZones(t, e)
	vnet := func(kv ...string) *answer { return e.call(t, http.MethodPost, "/cluster/sdn/vnets", form(kv...)) }
	p := "create sdn vnet object failed: 400 Parameter verification failed.\n"
	wantSDNError(t, vnet("vnet", "aa", "zone", "simp", "tag", "5"), p+"tag: vlan tag is not allowed on simple zone")
	vnet("vnet", "s1", "zone", "simp").wantOK(t)
	wantSDNError(t, vnet("vnet", "v1", "zone", "vl"), p+"tag: missing vlan tag")
	wantSDNError(t, vnet("vnet", "v1", "zone", "vl", "tag", "5000"), p+"tag: vlan tag max value is 4096")
	vnet("vnet", "v1", "zone", "vl", "tag", "100").wantOK(t)
	wantSDNError(t, vnet("vnet", "v2", "zone", "vl", "tag", "100"), p+"tag: tag 100 already exist in vnet v1")
	vnet("vnet", "q1", "zone", "qq").wantOK(t)
	wantSDNError(t, vnet("vnet", "q2", "zone", "qq"), p+"tag: tag-less vnet already exists in zone qq vnet q1")
	vnet("vnet", "x1", "zone", "vx", "tag", "100").wantOK(t)
	wantSDNError(t, vnet("vnet", "x2", "zone", "vx", "tag", "100"), p+"tag: vxlan tag 100 already exist in vnet x1 in zone vx ")
	wantSDNError(t, vnet("vnet", "n1", "zone", "nozone"), "create sdn vnet object failed: cannot lookup undefined type!")
	wantSDNError(t, vnet("vnet", "s1", "zone", "simp"), "create sdn vnet object failed: sdn vnet object ID 's1' already defined")

	got := sdnGet(t, e, "/cluster/sdn/vnets/v1", "pending", "1")
	want := map[string]any{
		"vnet": "v1", "type": "vnet", "digest": nil, "state": "new",
		"pending": map[string]any{"zone": "vl", "tag": float64(100)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pending vnet = %v", got)
	}
	// A zone in use stays (Zones/Plugin.pm on_delete_hook).
	wantSDNError(t, e.call(t, http.MethodDelete, "/cluster/sdn/zones/vl", nil), "delete sdn zone object failed: zone vl is used by vnet v1")
	// update: the zone is required; the tag rules run again.
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn/vnets/v1", form("delete", "zone")), "update sdn vnet object failed: unable to delete required option 'zone'")
	e.call(t, http.MethodPut, "/cluster/sdn/vnets/v1", form("alias", "web net", "vlanaware", "1")).wantOK(t)
	wantSDNError(t, e.call(t, http.MethodGet, "/cluster/sdn/vnets/zz", nil), "sdn vnet 'zz' does not exist")
}

// pve-network src/PVE/API2/Network/SDN/Subnets.pm and SubnetPlugin.pm: the
// id, the gateway and dhcp range checks, the vlan-aware refusal, the
// built-in IPAM's registrations, and a vnet with subnets staying.
func TestSDNSubnets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	sdnSetupZones(t, e)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "simp")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "aware", "zone", "vl", "tag", "7", "vlanaware", "1")).wantOK(t)
	sub := func(vnet string, kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/vnets/"+vnet+"/subnets", form(append([]string{"type", "subnet"}, kv...)...))
	}
	// Several dhcp ranges need a JSON body: form data joins a repeated key.
	subJSON := func(vnet, body string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/vnets/"+vnet+"/subnets", nil, jsonBody(body))
	}
	p := "create sdn subnet object failed: 400 Parameter verification failed.\n"
	wantSDNError(t, sub("web", "subnet", "10.0.0.0/24", "gateway", "10.0.1.1"), p+"gateway: 10.0.1.1 is not in subnet 10.0.0.0/24")
	wantSDNError(t, sub("aware", "subnet", "10.1.0.0/24"), p+"vnet: you can't add a subnet on a vlanaware vnet")
	wantSDNError(t, sub("web", "subnet", "10.0.0.0/24", "dhcp-range", "start-address=10.0.0.20,end-address=10.0.0.10"),
		p+"dhcp-range: start-address 10.0.0.20 must be smaller than end-address 10.0.0.10")
	wantSDNError(t, subJSON("web", `{"type":"subnet","subnet":"10.0.0.0/24","dhcp-range":[
		"start-address=10.0.0.10,end-address=10.0.0.20","start-address=10.0.0.15,end-address=10.0.0.30"]}`),
		p+"dhcp-range: dhcp ranges must not overlap")
	wantSDNError(t, sub("web", "subnet", "10.0.0.0/24", "dhcp-range", "start-address=10.0.0.10,end-address=10.0.1.20"),
		p+"dhcp-range: end-address 10.0.1.20 is not in subnet 10.0.0.0/24")
	subJSON("web", `{"type":"subnet","subnet":"10.0.0.0/24","gateway":"10.0.0.1","snat":1,"dhcp-range":[
		"start-address=10.0.0.50,end-address=10.0.0.60","start-address=10.0.0.10,end-address=10.0.0.20"]}`).wantOK(t)
	wantSDNError(t, sub("web", "subnet", "10.0.0.0/24"), "create sdn subnet object failed: sdn subnet object ID 'simp-10.0.0.0-24' already defined")
	// pve-network src/PVE/Network/SDN/SubnetPlugin.pm parse_sdn_subnet_id
	if a := sub("web", "subnet", "10.0.0.0/4"); a.status != http.StatusBadRequest ||
		!strings.Contains(a.errors["subnet"], "value does not look like a valid CIDR network") {
		t.Fatalf("subnet 10.0.0.0/4 = %d %v", a.status, a.errors)
	}
	// the cidr is kept as given: host bits make another id
	sub("web", "subnet", "10.0.0.5/24").wantOK(t)
	if l := sdnList(t, e, "/cluster/sdn/vnets/web/subnets"); len(l) != 2 || l[1]["id"] != "simp-10.0.0.5-24" {
		t.Fatalf("subnets = %v", l)
	}
	e.call(t, http.MethodDelete, "/cluster/sdn/vnets/web/subnets/simp-10.0.0.5-24", nil).wantOK(t)
	// a /32 IPv4 subnet may point to a gateway elsewhere
	sub("web", "subnet", "192.0.2.7/32", "gateway", "10.9.9.9").wantOK(t)

	s := sdnGet(t, e, "/cluster/sdn/vnets/web/subnets/simp-10.0.0.0-24")
	if s["id"] != "simp-10.0.0.0-24" || s["cidr"] != "10.0.0.0/24" || s["zone"] != "simp" || s["network"] != "10.0.0.0" ||
		s["mask"] != "24" || s["snat"] != float64(1) || s["gateway"] != "10.0.0.1" || s["subnet"] != "simp-10.0.0.0-24" {
		t.Fatalf("subnet = %v", s)
	}
	wantRanges := []any{
		map[string]any{"start-address": "10.0.0.50", "end-address": "10.0.0.60"},
		map[string]any{"start-address": "10.0.0.10", "end-address": "10.0.0.20"},
	}
	if !reflect.DeepEqual(s["dhcp-range"], wantRanges) {
		t.Fatalf("dhcp-range = %v", s["dhcp-range"])
	}
	ps := sdnGet(t, e, "/cluster/sdn/vnets/web/subnets/simp-10.0.0.0-24", "pending", "1")
	if ps["state"] != "new" || ps["vnet"] != "web" || !reflect.DeepEqual(ps["dhcp-range"], []any{}) {
		t.Fatalf("pending subnet = %v", ps)
	}
	pend := ps["pending"].(map[string]any)
	if !reflect.DeepEqual(pend["dhcp-range"], []any{"start-address=10.0.0.50,end-address=10.0.0.60", "start-address=10.0.0.10,end-address=10.0.0.20"}) {
		t.Fatalf("pending dhcp-range = %v", pend["dhcp-range"])
	}
	// The built-in IPAM holds the subnet and its gateway.
	var gw *SDNIpamEntry
	e.sim.View(func(c *Cluster) { gw = c.SDN.PVEIpam["simp"]["10.0.0.0/24"]["10.0.0.1"] })
	if gw == nil || !gw.Gateway {
		t.Fatal("gateway not registered in the pve IPAM")
	}
	a := e.call(t, http.MethodGet, "/cluster/sdn/vnets/aware/subnets/simp-10.0.0.0-24", nil)
	if a.status != http.StatusBadRequest || a.errors["vnet"] != "wrong vnet" {
		t.Fatalf("subnet through another vnet = %d %v", a.status, a.errors)
	}
	wantSDNError(t, e.call(t, http.MethodDelete, "/cluster/sdn/vnets/web", nil),
		"delete sdn vnet object failed: 400 Parameter verification failed.\nvnet: Can't delete vnet if subnets exists")
	wantSDNError(t, e.call(t, http.MethodPut, "/cluster/sdn/vnets/web", form("vlanaware", "1")),
		"update sdn vnet object failed: 400 Parameter verification failed.\nvlanaware: vlanaware vnet is not compatible with subnets")

	e.call(t, http.MethodPut, "/cluster/sdn/vnets/web/subnets/simp-10.0.0.0-24", form("gateway", "10.0.0.254", "delete", "dhcp-range")).wantOK(t)
	e.sim.View(func(c *Cluster) {
		ips := c.SDN.PVEIpam["simp"]["10.0.0.0/24"]
		if ips["10.0.0.1"] != nil || ips["10.0.0.254"] == nil {
			t.Errorf("IPAM after the gateway change = %v", ips)
		}
	})
	e.call(t, http.MethodDelete, "/cluster/sdn/vnets/web/subnets/simp-10.0.0.0-24", nil).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/sdn/vnets/web/subnets/simp-192.0.2.7-32", nil).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/sdn/vnets/web", nil).wantOK(t)
}

// On PVE 8.4 (pve-network 0.11.2 src/PVE/Network/SDN.pm pending_config)
// a pending dhcp-range is encode_value's sorted, comma-joined string.
func TestSDNSubnetPendingRangesPVE84(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "simp")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "simp")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets/web/subnets", nil, jsonBody(`{"type":"subnet","subnet":"10.0.0.0/24","dhcp-range":[
		"start-address=10.0.0.50,end-address=10.0.0.60","start-address=10.0.0.10,end-address=10.0.0.20"]}`)).wantOK(t)
	l := sdnList(t, e, "/cluster/sdn/vnets/web/subnets", "pending", "1")
	if len(l) != 1 {
		t.Fatalf("subnets = %v", l)
	}
	got := l[0]["pending"].(map[string]any)["dhcp-range"]
	if got != "start-address=10.0.0.10,end-address=10.0.0.20,start-address=10.0.0.50,end-address=10.0.0.60" {
		t.Fatalf("8.4 pending dhcp-range = %v", got)
	}
}

// A foreign pending change planted by the hook shows in the pending view
// and counts for the lock's allow-pending check (pve-network
// src/PVE/Network/SDN.pm has_pending_changes).
func TestSDNPlantPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.PlantSDNPending(SDNZones, "other", &SDNObject{Type: "simple", Props: map[string]string{"mtu": "1400"}}); err != nil {
		t.Fatal(err)
	}
	l := sdnList(t, e, "/cluster/sdn/zones", "pending", "1")
	if len(l) != 1 || l[0]["zone"] != "other" || l[0]["state"] != "new" {
		t.Fatalf("planted zone = %v", l)
	}
	wantSDNError(t, e.call(t, http.MethodPost, "/cluster/sdn/lock", nil), "could not acquire lock for SDN config: configuration has pending changes")
	e.sim.CommitSDN()
	if err := e.sim.PlantSDNPending(SDNZones, "other", nil); err != nil {
		t.Fatal(err)
	}
	if es := e.sim.SDNEntries(SDNZones, SDNViewPending); len(es) != 1 || es[0].State != "deleted" {
		t.Fatalf("planted deletion = %v", es)
	}
}

// A guest's network device on a vnet needs SDN.Use on the vnet's zone
// path (pve-guest-common src/PVE/GuestHelpers.pm check_vnet_access, from
// qemu-server src/PVE/API2/Qemu.pm create_vm and pve-container
// src/PVE/LXC.pm check_bridge_access); a plain bridge is under
// localnetwork.
func TestSDNGuestNICOnVnet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "lab")).wantOK(t)
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "VM.Config.Network")
	create := func(vmid, net string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/qemu", form("vmid", vmid, "net0", net))
	}
	for net, path := range map[string]string{
		"virtio,bridge=web":                  "/sdn/zones/lab/web",
		"virtio,bridge=web,tag=5":            "/sdn/zones/lab/web/5",
		"virtio,bridge=web,trunks=20-21;100": "/sdn/zones/lab/web/100",
		"virtio,bridge=vmbr0":                "/sdn/zones/localnetwork/vmbr0",
	} {
		a := create("100", net)
		if a.status != http.StatusForbidden || a.message != "Permission check failed ("+path+", SDN.Use)\n" {
			t.Fatalf("%s: got %d %q", net, a.status, a.message)
		}
	}
	e.sim.SetPrivileges(testTokenUser, "VM.Allocate", "VM.Config.Network", "SDN.Use")
	create("100", "virtio,bridge=web").wantOK(t)
}

// A VM on a vnet starts once the vnet runs on its node (pve-network
// src/PVE/Network/SDN/Zones.pm tap_create, pve-common
// src/PVE/Network.pm read_bridge_mtu): not while the vnet is only
// staged, nor on a node its zone leaves out.
func TestSDNVMStartNeedsRunningVnet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "far", "nodes", "pve2")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "lab")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "away", "zone", "far")).wantOK(t)
	for vmid, bridge := range map[int]string{100: "web", 101: "away"} {
		if err := e.sim.AddGuest(Guest{VMID: vmid, Node: "pve1", Type: QEMU, Config: map[string]string{
			"net0": "virtio=BC:24:11:00:00:0" + itoa(vmid-100) + ",bridge=" + bridge,
		}}); err != nil {
			t.Fatal(err)
		}
	}
	start := func(vmid string) TaskInfo {
		t.Helper()
		a := e.call(t, http.MethodPost, "/nodes/pve1/qemu/"+vmid+"/status/start", nil)
		a.wantOK(t)
		var upid string
		a.decode(t, &upid)
		info, _ := e.sim.Task(upid)
		return info
	}
	if info := start("100"); info.ExitStatus != "start failed: QEMU exited with code 1" || info.Log[0] != "bridge 'web' does not exist" {
		t.Fatalf("start on a staged vnet = %q %v", info.ExitStatus, info.Log)
	}
	sdnApply(t, e)
	if info := start("100"); info.ExitStatus != "OK" {
		t.Fatalf("start on a running vnet = %q %v", info.ExitStatus, info.Log)
	}
	if info := start("101"); info.ExitStatus != "start failed: QEMU exited with code 1" {
		t.Fatalf("start on a vnet of a zone without the node = %q", info.ExitStatus)
	}
}

// GET /nodes/{node}/network with type any_bridge, include_sdn or vnet
// lists the running vnets of the node's zones (pve-manager
// PVE/API2/Network.pm index, pve-network src/PVE/Network/SDN.pm
// get_local_vnets).
func TestSDNNodeNetworkListsVnets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "lab", "ipam", "pve")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("type", "simple", "zone", "far", "nodes", "pve2")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "lab", "alias", "front")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "away", "zone", "far")).wantOK(t)
	if l := sdnList(t, e, "/nodes/pve1/network", "type", "vnet"); len(l) != 0 {
		t.Fatalf("vnets before the apply = %v", l)
	}
	sdnApply(t, e)
	l := sdnList(t, e, "/nodes/pve1/network", "type", "vnet")
	want := []map[string]any{{"iface": "web", "type": "vnet", "active": "1", "ipam": float64(1), "vlanaware": float64(0), "comments": "front"}}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("pve1 vnets = %v", l)
	}
	if l := sdnList(t, e, "/nodes/pve1/network", "type", "include_sdn"); len(l) != 3 {
		t.Fatalf("include_sdn = %v", l)
	}
	if l := sdnList(t, e, "/nodes/pve1/network", "type", "bridge"); len(l) != 1 {
		t.Fatalf("bridges = %v", l)
	}
}
