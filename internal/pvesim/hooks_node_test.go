package pvesim

import (
	"net/http"
	"testing"
)

func TestSetNodeOfflineAnswers595(t *testing.T) {
	t.Parallel()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddGuest(Guest{VMID: 100, Node: "pve3", Type: QEMU, Config: map[string]string{"name": "a"}, Status: "stopped"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	f := s.pickFault("GET", "/nodes/pve3/qemu/100/config", "/nodes/{node}/qemu/{vmid}/config")
	if f == nil || f.Status != 595 {
		t.Fatalf("config of a guest on the offline node: fault %+v, want 595", f)
	}
	if f := s.pickFault("GET", "/nodes/pve1/qemu/100/config", "/nodes/{node}/qemu/{vmid}/config"); f != nil {
		t.Fatalf("another node's endpoint answers %+v", f)
	}
	s.View(func(c *Cluster) {
		if c.Node("pve3").Online {
			t.Error("pve3 still online")
		}
	})
	if err := s.SetNodeOffline("nope"); err == nil {
		t.Error("an unknown node was accepted")
	}
}

// The replication jobs of the guests on an offline node are answered
// there too: pveproxy cannot forward /nodes/NODE/replication/... either.
func TestSetNodeOfflineAnswers595ForReplication(t *testing.T) {
	t.Parallel()
	s, err := New(Options{ZFSStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddGuest(Guest{VMID: 100, Node: "pve3", Type: QEMU, Config: map[string]string{"name": "a"}, Status: "stopped"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(c *Cluster) error {
		c.Replication.Jobs["100-0"] = &ReplicationJob{ID: "100-0", Guest: 100, Type: "local", Props: map[string]string{"target": "pve1"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ path, template string }{
		{"/nodes/pve3/replication", "/nodes/{node}/replication"},
		{"/nodes/pve3/replication/100-0/status", "/nodes/{node}/replication/{id}/status"},
	} {
		if f := s.pickFault("GET", p.path, p.template); f == nil || f.Status != 595 {
			t.Errorf("%s on the offline node: fault %+v, want 595", p.path, f)
		}
	}
}

// W11: pmxcfs keeps a guest's config but drops the stats an offline node
// no longer sends, so /cluster/resources lists its guests with id, node,
// type, lock, tags and pool, status "unknown" and no name; its storage
// instances show status "unknown" and no usage.
func TestOfflineNodeGuestsShowStatusUnknown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	running := vm(100, "pve3", "far")
	running.Status = "running"
	running.Config["tags"] = "db"
	running.Pool = "p1"
	addGuests(t, e.sim, running, vm(101, "pve1", "near"))
	if err := e.sim.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	all := resources(t, e, "")
	far := resourceByID(t, all, "qemu/100")
	want := map[string]any{"id": "qemu/100", "vmid": float64(100), "node": "pve3", "type": "qemu",
		"status": "unknown", "tags": "db", "pool": "p1"}
	if len(far) != len(want) {
		t.Errorf("entry of a guest on the offline node = %v, want exactly %v", far, want)
	}
	for k, v := range want {
		if far[k] != v {
			t.Errorf("%s = %v, want %v", k, far[k], v)
		}
	}
	if near := resourceByID(t, all, "qemu/101"); near["status"] != "stopped" || near["name"] != "near" {
		t.Errorf("a guest on an online node = %v", near)
	}
	if n := resourceByID(t, all, "node/pve3"); n["status"] != "offline" {
		t.Errorf("node entry = %v", n)
	}
	st := resourceByID(t, all, "storage/pve3/local-lvm")
	if _, hasUsage := st["disk"]; st["status"] != "unknown" || hasUsage {
		t.Errorf("storage entry of the offline node = %v", st)
	}
	if st := resourceByID(t, all, "storage/pve1/local-lvm"); st["status"] != "available" {
		t.Errorf("storage entry of an online node = %v", st)
	}
}

// A node back online reports its guests' stats again and answers again.
func TestSetNodeOnlineUndoesOffline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve3", "far"))
	if err := e.sim.SetNodeOffline("pve3"); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/nodes/pve3/qemu/100/config", nil).wantStatus(t, 595, "No route to host")
	if err := e.sim.SetNodeOnline("pve3"); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodGet, "/nodes/pve3/qemu/100/config", nil).wantOK(t)
	if far := resourceByID(t, resources(t, e, "vm"), "qemu/100"); far["status"] != "stopped" || far["name"] != "far" {
		t.Errorf("entry after the node came back = %v", far)
	}
	if err := e.sim.SetNodeOnline("nope"); err == nil {
		t.Error("an unknown node was accepted")
	}
}
