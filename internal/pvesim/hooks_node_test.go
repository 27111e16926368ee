package pvesim

import "testing"

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
