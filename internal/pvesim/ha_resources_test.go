package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

func haEnv(t *testing.T, version string) *env {
	t.Helper()
	e := newEnv(t, Options{PVEVersion: version})
	addGuests(t, e.sim, vm(100, "pve1", "a"), Guest{VMID: 101, Node: "pve2", Type: LXC, Config: map[string]string{"hostname": "c"}})
	return e
}

func haRead(t *testing.T, e *env, sid string) map[string]any {
	t.Helper()
	a := e.call(t, http.MethodGet, "/cluster/ha/resources/"+sid, nil)
	a.wantOK(t)
	var out map[string]any
	a.decode(t, &out)
	return out
}

func wantMessage(t *testing.T, a *answer, status int, msg string) {
	t.Helper()
	if a.status != status || a.message != msg {
		t.Fatalf("got %d %q, want %d %q", a.status, a.message, status, msg)
	}
}

func TestHAResourceCreateReadSIDForms(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	// A bare VMID takes its type from the guest list.
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "100", "comment", "web")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101", "state", "stopped", "max_restart", "2")).wantOK(t)
	got := haRead(t, e, "vm:100")
	if got["sid"] != "vm:100" || got["type"] != "vm" || got["comment"] != "web" || got["digest"] == "" {
		t.Fatalf("read vm:100 = %v", got)
	}
	if _, ok := got["state"]; ok {
		t.Errorf("state not given at create is read back: %v", got)
	}
	ct := haRead(t, e, "101")
	if ct["sid"] != "ct:101" || ct["state"] != "stopped" || ct["max_restart"] != float64(2) {
		t.Fatalf("read 101 = %v", ct)
	}
	var list []map[string]any
	a := e.call(t, http.MethodGet, "/cluster/ha/resources", form("type", "ct"))
	a.wantOK(t)
	a.decode(t, &list)
	if len(list) != 1 || list[0]["sid"] != "ct:101" {
		t.Fatalf("list type=ct = %v", list)
	}
}

func TestHAResourceCreateRefusals(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	cases := []struct {
		params []string
		msg    string
	}{
		{[]string{"sid", "vm:101"}, "resource 'vm:101' - guest with ID 101 is not a VM\n"},
		{[]string{"sid", "ct:100"}, "resource 'ct:100' - guest with ID 100 is not a container\n"},
		{[]string{"sid", "vm:999"}, "resource 'vm:999' does not exist in cluster\n"},
		{[]string{"sid", "999"}, "unable to detect SID from VMID - VM/CT 999 does not exist\n"},
		{[]string{"sid", "vm:1"}, "invalid VMID\n"},
		{[]string{"sid", "foo:100"}, "unknown section type 'foo'\n"},
		{[]string{"sid", "vm:100", "type", "ct"}, "types does not match\n"},
		{[]string{"sid", "vm:100", "comment", "a\nb"}, "create resource failed: property 'comment' contains a line feed\n"},
	}
	for _, tc := range cases {
		wantMessage(t, e.call(t, http.MethodPost, "/cluster/ha/resources", form(tc.params...)), http.StatusInternalServerError, tc.msg)
	}
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	wantMessage(t, e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "100")),
		http.StatusInternalServerError, "create resource failed: resource ID 'vm:100' already defined\n")
	if err := e.sim.Update(func(c *Cluster) error { c.HA.GroupsMigrated = true; return nil }); err != nil {
		t.Fatal(err)
	}
	wantMessage(t, e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101", "group", "g1")),
		http.StatusInternalServerError, "invalid parameter 'group': ha groups have been migrated to rules\n")
	wantMessage(t, e.call(t, http.MethodGet, "/cluster/ha/resources/vm:102", nil),
		http.StatusInternalServerError, "no such resource 'vm:102'\n")
}

func TestHAResourceUpdateDeleteDigest(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "comment", "x", "max_relocate", "3")).wantOK(t)
	digest := haRead(t, e, "vm:100")["digest"].(string)
	e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100",
		form("state", "enabled", "delete", "comment,max_relocate", "digest", digest)).wantOK(t)
	got := haRead(t, e, "vm:100")
	if got["state"] != "enabled" || got["comment"] != nil || got["max_relocate"] != nil {
		t.Fatalf("after update: %v", got)
	}
	wantMessage(t, e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("comment", "y", "digest", digest)),
		http.StatusInternalServerError, "update resources config failed: detected modified configuration - file changed by other user? Try again.\n")
	wantMessage(t, e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("delete", "bogus")),
		http.StatusInternalServerError, "update resources config failed: no such option 'bogus'\n")
	wantMessage(t, e.call(t, http.MethodPut, "/cluster/ha/resources/ct:101", form("comment", "y")),
		http.StatusInternalServerError, "update resources config failed: no such resource 'ct:101'\n")
	// A PVE 9 cluster whose groups are not migrated yet checks the group.
	if err := e.sim.Update(func(c *Cluster) error { c.HA.GroupsMigrated = false; return nil }); err != nil {
		t.Fatal(err)
	}
	wantMessage(t, e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("group", "nope")),
		http.StatusInternalServerError, "HA group 'nope' does not exist\n")
	if err := e.sim.Update(func(c *Cluster) error { c.HA.GroupsMigrated = true; return nil }); err != nil {
		t.Fatal(err)
	}
	wantMessage(t, e.call(t, http.MethodPut, "/cluster/ha/resources/vm:100", form("group", "nope")),
		http.StatusInternalServerError, "invalid parameter 'group': ha groups have been migrated to rules\n")
	wantMessage(t, e.call(t, http.MethodDelete, "/cluster/ha/resources/ct:101", nil),
		http.StatusInternalServerError, "cannot delete service 'ct:101', not HA managed!\n")
	e.call(t, http.MethodDelete, "/cluster/ha/resources/100", nil).wantOK(t)
	wantMessage(t, e.call(t, http.MethodGet, "/cluster/ha/resources/vm:100", nil),
		http.StatusInternalServerError, "no such resource 'vm:100'\n")
}

func TestHAResourceDeletePurgesRules(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101")).wantOK(t)
	if err := e.sim.Update(func(c *Cluster) error {
		c.HA.Rules["only"] = &HARule{ID: "only", Type: "node-affinity", Props: map[string]string{"resources": "vm:100", "nodes": "pve1"}}
		c.HA.Rules["both"] = &HARule{ID: "both", Type: "resource-affinity", Props: map[string]string{"resources": "vm:100,ct:101", "affinity": "positive"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.call(t, http.MethodDelete, "/cluster/ha/resources/vm:100", nil).wantOK(t)
	e.sim.View(func(c *Cluster) {
		if c.HA.Rules["only"] != nil {
			t.Error("a rule left without resources was kept")
		}
		if r := c.HA.Rules["both"]; r == nil || r.Props["resources"] != "ct:101" {
			t.Errorf("rule both = %+v, want resources ct:101", r)
		}
	})
}

func TestHAResourcePVE84(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "8.4")
	// PVE 8.4 has no failback option; the schema refuses it.
	a := e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "failback", "0"))
	if a.status != http.StatusBadRequest {
		t.Fatalf("failback on 8.4: %d %s", a.status, a.body)
	}
	wantMessage(t, e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "999")),
		http.StatusInternalServerError, "unable do detect SID from VMID - VM/CT 999 does not exist\n")
	// The group is not checked at create (the index flags it).
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "group", "g1")).wantOK(t)
	var list []map[string]any
	a = e.call(t, http.MethodGet, "/cluster/ha/resources", nil)
	a.wantOK(t)
	a.decode(t, &list)
	errs, _ := list[0]["errors"].(map[string]any)
	if list[0]["group"] != "g1" || errs["group"] != "group 'g1' does not exist" {
		t.Fatalf("list = %v", list)
	}
	a = e.call(t, http.MethodPost, "/cluster/ha/resources/vm:100/migrate", form("node", "pve2"))
	a.wantOK(t)
	if string(a.data) != "null" {
		t.Fatalf("8.4 migrate answers %s, want null", a.data)
	}
}

func TestHAGuestDestroyNeedsPurge(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "state", "ignored")).wantOK(t)
	a := e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil)
	wantMessage(t, a, http.StatusInternalServerError, "unable to remove VM 100 - used in HA resources and purge parameter not set.\n")
	a = e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", form("purge", "1"))
	a.wantOK(t)
	var upid string
	a.decode(t, &upid)
	info, ok := e.sim.Task(upid)
	if !ok || info.ExitStatus != "OK" {
		t.Fatalf("destroy task %+v", info)
	}
	if !strings.Contains(strings.Join(info.Log, "\n"), "NOTE: removed VM 100 from HA resource configuration.") {
		t.Errorf("task log %q lacks the HA note", info.Log)
	}
	e.sim.View(func(c *Cluster) {
		if c.HA.Resources["vm:100"] != nil {
			t.Error("the HA resource survived a purge")
		}
	})
}

func TestHAManagedSkipsIgnored(t *testing.T) {
	t.Parallel()
	e := haEnv(t, "")
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "ct:101", "state", "ignored")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/ha/resources", form("sid", "vm:100", "state", "disabled")).wantOK(t)
	e.sim.View(func(c *Cluster) {
		if !c.haManaged(100) || c.haManaged(101) || c.haManaged(102) {
			t.Errorf("haManaged 100/101/102 = %v/%v/%v, want true/false/false", c.haManaged(100), c.haManaged(101), c.haManaged(102))
		}
	})
	wantMessage(t, e.call(t, http.MethodPost, "/cluster/ha/resources/ct:101/migrate", form("node", "pve1")),
		http.StatusInternalServerError, "resource 'ct:101' is not HA managed\n")
}
