package pvesim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// GET .../lxc/{vmid}/interfaces (pve-container src/PVE/API2/LXC.pm,
// src/PVE/LXC.pm get_interfaces): null unless the container runs (PVE
// swallows find_lxc_pid's error, and loads no config); lo first, then the
// NICs with the legacy hwaddr/inet/inet6 keys beside ip-addresses.
func TestLXCInterfaces(t *testing.T) {
	t.Parallel()
	e := newCTEnv(t, Options{})
	e.createCT(t, "200", "rootfs", "local-lvm:1",
		"net0", "name=eth0,bridge=vmbr0,hwaddr=BC:24:11:AA:BB:CC,ip=192.0.2.50/24",
		"net1", "name=eth1,bridge=vmbr0,hwaddr=BC:24:11:AA:BB:CD,ip=manual")
	get := func(vmid string) *answer {
		return e.call(t, http.MethodGet, "/nodes/pve1/lxc/"+vmid+"/interfaces", nil)
	}
	a := get("200")
	a.wantOK(t)
	if string(a.data) != "null" {
		t.Fatalf("stopped container: %s", a.data)
	}
	if a := get("999"); string(a.data) != "null" {
		t.Fatalf("unknown container: %d %s", a.status, a.data)
	}
	e.taskOK(t, e.ctPower(t, "200", "start"))
	var list []map[string]any
	get("200").decode(t, &list)
	if len(list) != 3 || list[0]["name"] != "lo" || list[1]["name"] != "eth0" || list[2]["name"] != "eth1" {
		t.Fatalf("interfaces = %v", list)
	}
	eth0 := list[1]
	if eth0["hwaddr"] != "bc:24:11:aa:bb:cc" || eth0["hardware-address"] != "bc:24:11:aa:bb:cc" || eth0["inet"] != "192.0.2.50/24" {
		t.Errorf("eth0 = %v", eth0)
	}
	ips, _ := eth0["ip-addresses"].([]any)
	if len(ips) != 2 || jsonText(ips[0]) != `{"ip-address":"192.0.2.50","ip-address-type":"inet","prefix":24}` ||
		jsonText(ips[1]) != `{"ip-address":"fe80::be24:11ff:feaa:bbcc","ip-address-type":"inet6","prefix":64}` {
		t.Errorf("eth0 addresses = %v", ips)
	}
	if _, ok := list[2]["inet"]; ok {
		t.Errorf("manual NIC has an IPv4 address: %v", list[2])
	}
	if list[0]["inet"] != "127.0.0.1/8" || list[0]["inet6"] != "::1/128" {
		t.Errorf("lo = %v", list[0])
	}
}

// PUT .../qemu/{vmid}/cloudinit (qemu-server src/PVE/API2/Qemu.pm
// cloudinit_update): VM.Config.Cloudinit, the config must exist and not be
// locked; the answer is null, with or without a cloud-init drive.
func TestCloudInitRegenerate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100", "ide2", "local-lvm:cloudinit", "ciuser", "admin")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/cloudinit", nil).wantNull(t)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/101/cloudinit", nil).
		wantStatus(t, http.StatusInternalServerError, "Configuration file 'nodes/pve1/qemu-server/101.conf' does not exist")
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/cloudinit", nil).
		wantStatus(t, http.StatusInternalServerError, "VM is locked (backup)")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/cloudinit", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/vms/100, VM.Config.Cloudinit)")
}

// cloudinit_update runs under lock_config (qemu-server src/PVE/API2/Qemu.pm
// cloudinit_update): while a worker holds the VM's config flock past
// lock_config's 10 s the regeneration times out, and once the worker ends
// it goes through.
func TestCloudInitRegenerateWaitsForFlock(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	start := e.power(t, "100", "start")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/cloudinit", nil).
		wantStatus(t, http.StatusInternalServerError, "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout")
	clock.Advance(time.Minute)
	e.taskOK(t, start)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/cloudinit", nil).wantNull(t)
}

// GET /nodes/{node}/network (pve-manager PVE/API2/Network.pm index,
// pve-common src/PVE/Network/Interfaces.pm __read_etc_network_interfaces):
// the bridge and its port as the installer writes them, lo left out; the
// type filter; bridges hidden without SDN.Audit or SDN.Use.
func TestNodeNetwork(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve2/network", nil).decode(t, &list)
	if len(list) != 2 {
		t.Fatalf("network = %v", list)
	}
	byName := map[string]map[string]any{}
	for _, it := range list {
		byName[it["iface"].(string)] = it
	}
	br := byName["vmbr0"]
	if br["type"] != "bridge" || br["cidr"] != "192.0.2.12/24" || br["address"] != "192.0.2.12" || br["netmask"] != "24" ||
		br["gateway"] != "192.0.2.1" || br["bridge_ports"] != "eno1" || br["bridge_stp"] != "off" || br["bridge_fd"] != "0" ||
		br["method"] != "static" || br["method6"] != "manual" || br["autostart"] != float64(1) || br["active"] != float64(1) {
		t.Errorf("vmbr0 = %v", br)
	}
	if nic := byName["eno1"]; nic["type"] != "eth" || nic["method"] != "manual" || nic["exists"] != float64(1) ||
		jsonText(nic["families"]) != `["inet"]` {
		t.Errorf("eno1 = %v", nic)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/network", form("type", "any_bridge")).decode(t, &list)
	if len(list) != 1 || list[0]["iface"] != "vmbr0" {
		t.Errorf("any_bridge = %v", list)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/network", form("type", "eth")).decode(t, &list)
	if len(list) != 1 || list[0]["iface"] != "eno1" {
		t.Errorf("eth = %v", list)
	}
	a := e.call(t, http.MethodGet, "/nodes/pve1/network", form("type", "nope"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if !strings.HasPrefix(a.errors["type"], "value 'nope' does not have a value in the enumeration 'bridge, bond, eth,") {
		t.Errorf("type error = %q", a.errors["type"])
	}
	e.sim.SetPrivileges(testTokenUser, "VM.Audit")
	e.call(t, http.MethodGet, "/nodes/pve1/network", nil).decode(t, &list)
	if len(list) != 1 || list[0]["iface"] != "eno1" {
		t.Errorf("without SDN privileges = %v", list)
	}
}

// GET|POST /nodes/{node}/aplinfo (pve-manager PVE/API2/Nodes.pm aplinfo,
// apl_download; PVE/APLInfo.pm; pve-common Tools.pm
// download_file_from_url): the index, a download task into a storage's
// templates with the record's sha512sum, an existing file with the right
// checksum kept, the refusals.
func TestAplinfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var list []map[string]any
	e.call(t, http.MethodGet, "/nodes/pve1/aplinfo", nil).decode(t, &list)
	var deb12 map[string]any
	for _, a := range list {
		if a["template"] == "debian-12-standard_12.12-1_amd64.tar.zst" {
			deb12 = a
		}
	}
	if deb12 == nil || deb12["type"] != "lxc" || deb12["section"] != "system" || deb12["os"] != "debian-12" ||
		deb12["location"] != "http://download.proxmox.com/images/system/debian-12-standard_12.12-1_amd64.tar.zst" ||
		len(deb12["sha512sum"].(string)) != 128 || deb12["source"] != "http://download.proxmox.com/images" {
		t.Fatalf("debian 12 record = %v", deb12)
	}
	post := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/nodes/pve1/aplinfo", form(kv...))
	}
	info := e.taskOK(t, post("storage", "local", "template", "debian-12-standard_12.12-1_amd64.tar.zst"))
	if info.Type != "download" || info.ID != "debian-12-standard_12.12-1_amd64.tar.zst" {
		t.Errorf("task %s %s", info.Type, info.ID)
	}
	log := strings.Join(info.Log, "\n")
	if !strings.Contains(log, "downloading http://download.proxmox.com/images/system/debian-12-standard_12.12-1_amd64.tar.zst to /var/lib/vz/template/cache/debian-12-standard_12.12-1_amd64.tar.zst") {
		t.Errorf("log = %q", info.Log)
	}
	var got *Volume
	e.sim.View(func(c *Cluster) {
		if v := c.Volume("pve1", "local:vztmpl/debian-12-standard_12.12-1_amd64.tar.zst"); v != nil {
			cp := *v
			got = &cp
		}
	})
	if got == nil || got.Format != "tzst" || got.Digests["sha512"] != deb12["sha512sum"] {
		t.Fatalf("volume = %+v", got)
	}
	// The seeded Debian 13 template is the index's: no download needed.
	info = e.taskOK(t, post("storage", "local", "template", "debian-13-standard_13.1-1_amd64.tar.zst"))
	if !strings.Contains(strings.Join(info.Log, "\n"), "OK, got correct file already, no need to download") {
		t.Errorf("log = %q", info.Log)
	}
	post("storage", "local", "template", "nope.tar.zst").wantParamError(t, "template", "no such template")
	post("storage", "local-lvm", "template", "debian-12-standard_12.12-1_amd64.tar.zst").
		wantStatus(t, http.StatusInternalServerError, "storage 'local-lvm' does not support templates")
	e.sim.SetPrivileges(testTokenUser, "Datastore.Audit")
	post("storage", "local", "template", "debian-12-standard_12.12-1_amd64.tar.zst").
		wantStatus(t, http.StatusForbidden, "Permission check failed (/storage/local, Datastore.AllocateTemplate)")
}

// GET /nodes/{node}/query-url-metadata (pve-manager PVE/API2/Nodes.pm
// query_url_metadata): a HEAD request; file name from
// Content-Disposition or the URL, size, mimetype before ';'; a non-200
// answer fails with its status line; Sys.Audit+Sys.Modify on / or
// Sys.AccessNetwork on the node.
func TestQueryURLMetadata(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			t.Errorf("method %s", r.Method)
		}
		switch r.URL.Path {
		case "/files/disk.qcow2":
			w.Header().Set("Content-Type", "application/octet-stream; charset=binary")
			w.Header().Set("Content-Length", "1048576")
		case "/dl":
			w.Header().Set("Content-Disposition", `attachment; filename="named.iso"`)
			w.Header().Set("Content-Type", "application/x-iso9660-image")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, Options{})
	query := func(u string) *answer {
		return e.call(t, http.MethodGet, "/nodes/pve1/query-url-metadata", form("url", u))
	}
	var meta map[string]any
	query(srv.URL+"/files/disk.qcow2?x=1").decode(t, &meta)
	if meta["filename"] != "disk.qcow2" || meta["size"] != float64(1048576) || meta["mimetype"] != "application/octet-stream" {
		t.Errorf("metadata = %v", meta)
	}
	meta = nil
	query(srv.URL+"/dl").decode(t, &meta)
	if meta["filename"] != "named.iso" || meta["mimetype"] != "application/x-iso9660-image" {
		t.Errorf("metadata = %v", meta)
	}
	if _, ok := meta["size"]; ok {
		t.Errorf("size without Content-Length: %v", meta)
	}
	query(srv.URL+"/missing").wantStatus(t, http.StatusInternalServerError, "invalid server response: '404 Not Found'")
	query("ftp://example.com/x").wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	e.sim.SetPrivileges(testTokenUser, "Sys.Audit")
	query(srv.URL+"/dl").wantStatus(t, http.StatusForbidden, "Permission check failed")
	e.sim.SetPrivileges(testTokenUser, "Sys.AccessNetwork")
	query(srv.URL + "/dl").wantOK(t)
}

// GET /access/users and /access/groups (pve-access-control
// src/PVE/API2/User.pm index, Group.pm index): root@pam always, users of
// passwords and tokens; full adds groups and tokens; without User.Modify
// or Sys.Audit a caller sees itself and the members of groups it may
// audit; groups need User.Modify, Sys.Audit or Group.Allocate.
func TestAccessUsersAndGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Passwords: []string{testPassword, "bob@pve=pw"}})
	if err := e.sim.Update(func(c *Cluster) error {
		c.Access.Groups = map[string]*Group{"admins": {Comment: "Admins", Users: []string{"alice@pve", "root@pam"}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var users []map[string]any
	e.call(t, http.MethodGet, "/access/users", nil).decode(t, &users)
	if len(users) != 3 || users[0]["userid"] != "alice@pve" || users[2]["userid"] != "root@pam" {
		t.Fatalf("users = %v", users)
	}
	if users[2]["enable"] != float64(1) || users[2]["expire"] != float64(0) || users[2]["realm-type"] != "pam" {
		t.Errorf("root = %v", users[2])
	}
	if _, ok := users[2]["groups"]; ok {
		t.Errorf("groups without full: %v", users[2])
	}
	e.call(t, http.MethodGet, "/access/users", form("full", "1")).decode(t, &users)
	root := users[2]
	if root["groups"] != "admins" || jsonText(root["tokens"]) != `[{"expire":0,"privsep":0,"tokenid":"test"}]` {
		t.Errorf("root full = %v", root)
	}
	if users[1]["groups"] != "" || users[1]["tokens"] != nil {
		t.Errorf("bob full = %v", users[1])
	}
	e.call(t, http.MethodGet, "/access/users", form("enabled", "0")).decode(t, &users)
	if len(users) != 0 {
		t.Errorf("disabled users = %v", users)
	}
	var groups []map[string]any
	e.call(t, http.MethodGet, "/access/groups", nil).decode(t, &groups)
	if jsonText(groups) != `[{"comment":"Admins","groupid":"admins","users":"alice@pve,root@pam"}]` {
		t.Errorf("groups = %s", jsonText(groups))
	}
	// Without the privileges: no groups, and only... nobody, as a token is
	// not its user.
	e.sim.SetPrivileges(testTokenUser, "VM.Audit")
	e.call(t, http.MethodGet, "/access/groups", nil).decode(t, &groups)
	e.call(t, http.MethodGet, "/access/users", nil).decode(t, &users)
	if len(groups) != 0 || len(users) != 0 {
		t.Errorf("restricted: groups %v users %v", groups, users)
	}
	// alice, logged in, sees herself.
	tk := login(t, e, "alice@pve", "correct horse")
	e.sim.SetPrivileges("alice@pve", "VM.Audit")
	e.call(t, http.MethodGet, "/access/users", nil, withTicket(tk.Ticket)).decode(t, &users)
	if len(users) != 1 || users[0]["userid"] != "alice@pve" {
		t.Errorf("alice sees %v", users)
	}
	// read_user and read_group (User.pm, Group.pm; RPCEnvironment.pm
	// 'userid-group').
	e.sim.ClearPrivileges(testTokenUser)
	var user map[string]any
	e.call(t, http.MethodGet, "/access/users/root@pam", nil).decode(t, &user)
	if jsonText(user) != `{"enable":1,"expire":0,"groups":["admins"],"tokens":{"test":{"expire":0,"privsep":0}}}` {
		t.Errorf("root = %s", jsonText(user))
	}
	e.call(t, http.MethodGet, "/access/users/nobody@pve", nil).
		wantStatus(t, http.StatusInternalServerError, "no such user ('nobody@pve')")
	var group map[string]any
	e.call(t, http.MethodGet, "/access/groups/admins", nil).decode(t, &group)
	if jsonText(group) != `{"comment":"Admins","members":["alice@pve","root@pam"]}` {
		t.Errorf("group = %s", jsonText(group))
	}
	e.call(t, http.MethodGet, "/access/groups/nope", nil).
		wantStatus(t, http.StatusInternalServerError, "group 'nope' does not exist")
	e.sim.SetPrivileges(testTokenUser, "VM.Audit")
	e.call(t, http.MethodGet, "/access/users/bob@pve", nil).wantStatus(t, http.StatusForbidden, "Permission check failed")
	e.call(t, http.MethodGet, "/access/groups/admins", nil).
		wantStatus(t, http.StatusForbidden, "Permission check failed (/access/groups, Sys.Audit|Group.Allocate)")

	// /access/domains needs no credentials (Domains.pm index, user =>
	// 'world').
	var domains []map[string]any
	e.call(t, http.MethodGet, "/access/domains", nil, withoutAuth).decode(t, &domains)
	if len(domains) != 2 {
		t.Errorf("domains = %v", domains)
	}
}
