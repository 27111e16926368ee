package pvesim

import (
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"
)

func addGuests(t *testing.T, s *Sim, guests ...Guest) {
	t.Helper()
	for _, g := range guests {
		if err := s.AddGuest(g); err != nil {
			t.Fatalf("AddGuest(%d): %v", g.VMID, err)
		}
	}
}

func vm(vmid int, node, name string) Guest {
	return Guest{VMID: vmid, Node: node, Type: QEMU, Config: map[string]string{"name": name, "memory": "2048", "cores": "2"}}
}

// W13: nextid proposes the lowest free id across VMs and containers.
func TestW13NextIDSkipsTakenIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var id string
	a := e.call(t, http.MethodGet, "/cluster/nextid", nil)
	a.wantOK(t)
	a.decode(t, &id)
	if id != "100" {
		t.Fatalf("nextid = %q, want 100", id)
	}
	addGuests(t, e.sim, vm(100, "pve1", "a"), vm(101, "pve2", "b"),
		Guest{VMID: 102, Node: "pve3", Type: LXC, Config: map[string]string{"hostname": "c"}}, vm(104, "pve1", "d"))
	e.call(t, http.MethodGet, "/cluster/nextid", nil).decode(t, &id)
	if id != "103" {
		t.Fatalf("nextid = %q, want 103", id)
	}
}

// W13: nextid with a taken vmid (VM or CT) is a 400 on "vmid"; a free one
// is returned; an invalid one fails the schema.
func TestW13NextIDTakenRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "a"), Guest{VMID: 200, Node: "pve2", Type: LXC})

	for _, taken := range []string{"100", "200"} {
		a := e.call(t, http.MethodGet, "/cluster/nextid", form("vmid", taken))
		a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
		if a.errors["vmid"] != "VM "+taken+" already exists" {
			t.Errorf("errors = %v", a.errors)
		}
	}
	var id string
	e.call(t, http.MethodGet, "/cluster/nextid", form("vmid", "150")).decode(t, &id)
	if id != "150" {
		t.Errorf("nextid(150) = %q", id)
	}
	a := e.call(t, http.MethodGet, "/cluster/nextid", form("vmid", "99"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["vmid"] == "" {
		t.Errorf("no error for vmid 99: %v", a.errors)
	}
}

func resources(t *testing.T, e *env, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	f := form()
	if typ != "" {
		f = form("type", typ)
	}
	a := e.call(t, http.MethodGet, "/cluster/resources", f)
	a.wantOK(t)
	a.decode(t, &out)
	return out
}

func resourceByID(t *testing.T, res []map[string]any, id string) map[string]any {
	t.Helper()
	for _, r := range res {
		if r["id"] == id {
			return r
		}
	}
	t.Fatalf("no resource %q", id)
	return nil
}

func keysOf(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// W11: a guest mid-clone has no name and status "unknown" until pvestatd
// reports it; its entry has only type, vmid, id, node, lock and status
// (pve-manager PVE/API2Tools.pm extract_vm_stats: no RRD data yet).
func TestW11NamelessGuestMidClone(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{TaskDuration: time.Minute, Now: clock.Now})
	addGuests(t, e.sim, vm(100, "pve2", "src"))
	upid(t, e.call(t, http.MethodPost, "/nodes/pve2/qemu/100/clone", form("newid", "120")))
	r := resourceByID(t, resources(t, e, "vm"), "qemu/120")
	if got := keysOf(r); got != "id,lock,node,status,type,vmid" {
		t.Errorf("keys = %s", got)
	}
	if r["status"] != "unknown" || r["lock"] != "clone" || r["node"] != "pve2" || r["vmid"] != float64(120) {
		t.Errorf("entry = %v", r)
	}
}

// W10: "lock" is in the entry only while the guest is locked, and a locked
// guest refuses config writes with "VM is locked (X)" / "CT is locked (X)".
func TestW10LockShowsAndHides(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"), Guest{VMID: 101, Node: "pve1", Type: LXC, Config: map[string]string{"hostname": "ct"}})

	r := resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if _, ok := r["lock"]; ok {
		t.Fatalf("unlocked guest has a lock: %v", r)
	}
	if r["name"] != "web" || r["status"] != "stopped" || r["template"] != float64(0) || r["maxmem"] != float64(2048*mib) {
		t.Errorf("entry = %v", r)
	}

	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	if got := resourceByID(t, resources(t, e, ""), "qemu/100")["lock"]; got != "backup" {
		t.Fatalf("lock = %v", got)
	}
	g, _ := e.sim.Guest(100)
	if status, msg, _ := IsAPIError(g.CheckLock()); status != http.StatusInternalServerError || msg != "VM is locked (backup)\n" {
		t.Errorf("CheckLock = %d %q", status, msg)
	}
	if err := e.sim.Update(func(c *Cluster) error { return c.LockGuest(101, "snapshot") }); err != nil {
		t.Fatal(err)
	}
	err := e.sim.Update(func(c *Cluster) error { return c.LockGuest(101, "backup") })
	if _, msg, _ := IsAPIError(err); msg != "CT is locked (snapshot)\n" {
		t.Errorf("LockGuest on a locked CT: %v", err)
	}

	if err := e.sim.SetLock(100, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := resourceByID(t, resources(t, e, "vm"), "qemu/100")["lock"]; ok {
		t.Fatal("cleared lock still shown")
	}
}

func TestClusterResourcesTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Nodes: 2})
	addGuests(t, e.sim, vm(100, "pve1", "a"))
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)

	all := resources(t, e, "")
	for _, id := range []string{"qemu/100", "node/pve1", "node/pve2", "storage/pve1/local", "storage/pve2/local-lvm",
		"storage/pve1/shared-nfs", "/pool/p1", "sdn/pve1/localnetwork"} {
		resourceByID(t, all, id)
	}
	st := resourceByID(t, all, "storage/pve1/local")
	if st["plugintype"] != "dir" || st["shared"] != float64(0) || st["content"] != "backup,import,iso,snippets,vztmpl" ||
		st["maxdisk"] != float64(100*gib) || st["disk"] != float64((754+126+332)*mib+seedBackupBytes) {
		t.Errorf("storage entry = %v", st)
	}
	if n := resourceByID(t, all, "node/pve2"); n["status"] != "online" || n["maxcpu"] != float64(16) {
		t.Errorf("node entry = %v", n)
	}
	for _, r := range resources(t, e, "node") {
		if r["type"] != "node" {
			t.Errorf("type=node returned %v", r)
		}
	}
	a := e.call(t, http.MethodGet, "/cluster/resources", form("type", "pool"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if all[0]["id"] != "/pool/p1" || all[1]["id"] != "qemu/100" {
		t.Errorf("order: %v, %v", all[0]["id"], all[1]["id"])
	}
}

// A pool's entry sums the usage of its running guests.
func TestClusterResourcesPoolStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	running := vm(100, "pve1", "a")
	running.Status = "running"
	addGuests(t, e.sim, running, vm(101, "pve1", "b"))
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	e.call(t, http.MethodPut, "/pools", form("poolid", "p1", "vms", "100,101")).wantOK(t)
	p := resourceByID(t, resources(t, e, ""), "/pool/p1")
	if p["maxmem"] != float64(2048*mib) || p["maxcpu"] != float64(2) || p["uptime"] == nil {
		t.Errorf("pool entry = %v", p)
	}
}

func TestNodesAndStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	var nodes []map[string]any
	e.call(t, http.MethodGet, "/nodes", nil).decode(t, &nodes)
	if len(nodes) != 3 || nodes[0]["node"] != "pve1" || nodes[2]["status"] != "online" {
		t.Fatalf("nodes = %v", nodes)
	}
	var st map[string]any
	e.call(t, http.MethodGet, "/nodes/pve2/status", nil).decode(t, &st)
	if _, ok := st["memory"].(map[string]any); !ok || st["uptime"] == nil || st["pveversion"] == nil {
		t.Errorf("status = %v", st)
	}
	a := e.call(t, http.MethodGet, "/nodes/pve9/status", nil)
	a.wantStatus(t, http.StatusInternalServerError,
		"hostname lookup 'pve9' failed - failed to get address info for: pve9: Name or service not known")

	var cs []map[string]any
	e.call(t, http.MethodGet, "/cluster/status", nil).decode(t, &cs)
	if len(cs) != 4 || cs[0]["type"] != "cluster" || cs[0]["quorate"] != float64(1) || cs[1]["local"] != float64(1) {
		t.Errorf("cluster status = %v", cs)
	}
}
