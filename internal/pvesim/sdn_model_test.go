package pvesim

import (
	"reflect"
	"testing"
)

func sdnObj(typ string, kv ...string) *SDNObject {
	props := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return &SDNObject{Type: typ, Props: props}
}

// pve-network src/PVE/Network/SDN.pm pending_config: running values at top
// level, the state, and the staged values that differ; type and a subnet's
// vnet from the file.
func TestSDNStorePendingView(t *testing.T) {
	t.Parallel()
	sd := newSDNState()
	sd.Put(SDNZones, "same", sdnObj("simple", "mtu", "1450"))
	sd.Put(SDNZones, "edit", sdnObj("vlan", "bridge", "vmbr0", "mtu", "1500"))
	sd.Put(SDNZones, "gone", sdnObj("simple"))
	sd.Put(SDNZones, "dropopt", sdnObj("simple", "mtu", "1400", "nodes", "pve1,pve2"))
	sd.Commit()
	if sd.Running.Version != 1 {
		t.Fatalf("version after first commit = %d, want 1", sd.Running.Version)
	}
	if sd.HasPendingChanges() {
		t.Fatal("pending changes right after commit")
	}
	sd.Put(SDNZones, "edit", sdnObj("vlan", "bridge", "vmbr1", "mtu", "1500", "ipam", "pve"))
	sd.Remove(SDNZones, "gone")
	sd.Put(SDNZones, "dropopt", sdnObj("simple", "nodes", "pve1,pve2"))
	sd.Put(SDNZones, "fresh", sdnObj("evpn", "controller", "ctl"))

	got := map[string]SDNEntry{}
	for _, e := range sd.View(SDNZones, SDNViewPending) {
		got[e.ID] = e
	}
	want := map[string]SDNEntry{
		"same": {ID: "same", Props: map[string]string{"type": "simple", "mtu": "1450"}},
		"edit": {
			ID: "edit", State: "changed",
			Props:   map[string]string{"type": "vlan", "bridge": "vmbr0", "mtu": "1500"},
			Pending: map[string]string{"bridge": "vmbr1", "ipam": "pve"},
		},
		"gone": {ID: "gone", State: "deleted", Props: map[string]string{"type": "simple"}, Pending: map[string]string{}},
		"dropopt": {
			ID: "dropopt", State: "changed",
			Props:   map[string]string{"type": "simple", "mtu": "1400", "nodes": "pve1,pve2"},
			Pending: map[string]string{"mtu": "deleted"},
		},
		"fresh": {
			ID: "fresh", State: "new",
			Props:   map[string]string{"type": "evpn"},
			Pending: map[string]string{"controller": "ctl"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pending view:\n got %#v\nwant %#v", got, want)
	}
	if !sd.HasPendingChanges() {
		t.Fatal("no pending changes reported")
	}

	// The running view is the last commit; the default view the files.
	if e, ok := sd.Entry(SDNZones, "edit", SDNViewRunning); !ok || e.Props["bridge"] != "vmbr0" {
		t.Fatalf("running edit = %#v %v", e, ok)
	}
	if _, ok := sd.Entry(SDNZones, "gone", SDNViewConfig); ok {
		t.Fatal("deleted zone still in the file")
	}

	sd.Commit()
	if sd.Running.Version != 2 || sd.HasPendingChanges() {
		t.Fatalf("after second commit: version %d, pending %v", sd.Running.Version, sd.HasPendingChanges())
	}
	if _, ok := sd.Entry(SDNZones, "gone", SDNViewPending); ok {
		t.Fatal("applied deletion still shown")
	}
}

// A subnet's vnet is shown at top level from the file (pending_config's
// "type" and "vnet" keys); ipams and dns are not staged, so they never
// count as pending changes (SDN.pm has_pending_changes).
func TestSDNStorePendingSubnetVnetAndUnstagedKinds(t *testing.T) {
	t.Parallel()
	sd := newSDNState()
	sd.Put(SDNIpams, "netbox", sdnObj("netbox", "url", "https://nb"))
	sd.Put(SDNDNS, "pdns", sdnObj("powerdns", "url", "https://pdns"))
	if sd.HasPendingChanges() {
		t.Fatal("ipam and dns counted as pending changes")
	}
	sd.Put(SDNSubnets, "z1-10.0.0.0-24", sdnObj("subnet", "vnet", "v1", "gateway", "10.0.0.1"))
	e, ok := sd.Entry(SDNSubnets, "z1-10.0.0.0-24", SDNViewPending)
	if !ok || e.State != "new" || e.Props["vnet"] != "v1" || e.Props["type"] != "subnet" {
		t.Fatalf("new subnet = %#v", e)
	}
	if _, has := e.Pending["vnet"]; has || e.Pending["gateway"] != "10.0.0.1" {
		t.Fatalf("new subnet's pending = %#v", e.Pending)
	}
	if !sd.HasPendingChanges() {
		t.Fatal("new subnet not pending")
	}
	// ipams are not compiled into the running config.
	sd.Commit()
	if sd.RunningObject(SDNIpams, "netbox") != nil || sd.RunningObject(SDNSubnets, "z1-10.0.0.0-24") == nil {
		t.Fatal("commit compiled the wrong kinds")
	}
}

// pve-network src/PVE/API2/Network/SDN.pm rollback: the files go back to
// the running config; a kind never applied becomes empty.
func TestSDNStoreRollback(t *testing.T) {
	t.Parallel()
	sd := newSDNState()
	sd.Put(SDNZones, "a", sdnObj("simple"))
	sd.Commit()
	sd.Put(SDNZones, "a", sdnObj("simple", "mtu", "1400"))
	sd.Put(SDNZones, "b", sdnObj("simple"))
	sd.Put(SDNIpams, "nb", sdnObj("netbox"))
	sd.Rollback()
	if sd.HasPendingChanges() {
		t.Fatal("pending changes after rollback")
	}
	if o := sd.Get(SDNZones, "a"); o == nil || o.Props["mtu"] != "" {
		t.Fatalf("zone a after rollback = %#v", o)
	}
	if sd.Get(SDNZones, "b") != nil {
		t.Fatal("zone b survived the rollback")
	}
	if sd.Get(SDNIpams, "nb") == nil {
		t.Fatal("rollback touched ipams")
	}
	if sd.Running.Version != 1 {
		t.Fatalf("rollback changed the version: %d", sd.Running.Version)
	}
}

// The digest changes with the file's text and keeps a replaced section in
// its place (SectionConfig write_config's order).
func TestSDNStoreDigest(t *testing.T) {
	t.Parallel()
	sd := newSDNState()
	empty := sd.Digest(SDNZones)
	sd.Put(SDNZones, "b", sdnObj("simple"))
	sd.Put(SDNZones, "a", sdnObj("simple"))
	one := sd.Digest(SDNZones)
	if one == empty {
		t.Fatal("digest unchanged by a new zone")
	}
	if ids := sd.File(SDNZones).sortedIDs(); !reflect.DeepEqual(ids, []string{"b", "a"}) {
		t.Fatalf("file order = %v", ids)
	}
	sd.Put(SDNZones, "b", sdnObj("simple", "mtu", "1400"))
	if ids := sd.File(SDNZones).sortedIDs(); !reflect.DeepEqual(ids, []string{"b", "a"}) {
		t.Fatalf("file order after replace = %v", ids)
	}
	if sd.Digest(SDNZones) == one {
		t.Fatal("digest unchanged by an option")
	}
}

// The answer's numbers are numbers (SectionConfig check_value), the
// digest is null outside the default view, the pending part keeps
// "deleted" as a word.
func TestSDNStoreAnswer(t *testing.T) {
	t.Parallel()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sd := s.cluster.SDN
	sd.Put(SDNZones, "z", sdnObj("simple", "mtu", "1450"))
	sd.Commit()
	sd.Put(SDNZones, "z", sdnObj("simple"))
	e, _ := sd.Entry(SDNZones, "z", SDNViewPending)
	got := s.sdnAnswer(SDNZones, "zone", e, SDNViewPending)
	want := map[string]any{
		"zone": "z", "type": "simple", "mtu": 1450, "digest": nil,
		"state": "changed", "pending": map[string]any{"mtu": "deleted"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answer = %#v", got)
	}
	e, _ = sd.Entry(SDNZones, "z", SDNViewConfig)
	if d := s.sdnAnswer(SDNZones, "zone", e, SDNViewConfig)["digest"]; d != sd.Digest(SDNZones) {
		t.Fatalf("digest = %v", d)
	}
}
