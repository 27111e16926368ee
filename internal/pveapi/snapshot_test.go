package pveapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
)

// The snapshot list drops PVE's "current" entry; vmstate comes as 0/1
// (qemu-server) or not at all (pve-container), a description verbatim
// (W20), a first snapshot without parent.
func TestListSnapshotsW20(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /nodes/pve1/lxc/101/snapshot", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"name": "first", "snaptime": 1700000000, "description": "two\nlines\n"},
			{"name": "second", "snaptime": "1700000100", "parent": "first", "vmstate": 1},
			{"name": "current", "description": "You are here!", "parent": "second", "running": 0},
		})
	})
	snaps, err := f.client().ListSnapshots(context.Background(), "pve1", GuestTypeLXC, 101)
	if err != nil {
		t.Fatal(err)
	}
	want := []Snapshot{
		{Name: "first", SnapTime: 1700000000, Description: "two\nlines\n"},
		{Name: "second", SnapTime: 1700000100, Parent: "first", VMState: true},
	}
	if fmt.Sprint(snaps) != fmt.Sprint(want) {
		t.Fatalf("ListSnapshots = %+v, want %+v", snaps, want)
	}
}

// A snapshot is created with vmstate only for a VM; the description
// goes along when set, and the name is escaped in the path of the other
// calls.
func TestSnapshotCalls(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var forms []url.Values
	record := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		if r.Header.Get("Content-Type") == "application/json" {
			// An empty value goes as JSON, which keeps it.
			var obj map[string]string
			_ = json.Unmarshal(body, &obj)
			form = url.Values{}
			for k, v := range obj {
				form.Set(k, v)
			}
		}
		forms = append(forms, form)
		writeData(w, nil)
	}
	f.handle("POST /nodes/pve1/qemu/100/snapshot", record)
	f.handle("POST /nodes/pve1/lxc/101/snapshot", record)
	f.handle("PUT /nodes/pve1/qemu/100/snapshot/s1/config", record)
	f.handle("POST /nodes/pve1/qemu/100/snapshot/s1/rollback", record)
	ctx := context.Background()
	c := f.client()
	if _, err := c.CreateSnapshot(ctx, "pve1", GuestTypeQemu, 100, "s1", "why", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSnapshot(ctx, "pve1", GuestTypeLXC, 101, "s1", "", true); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateSnapshotDescription(ctx, "pve1", GuestTypeQemu, 100, "s1", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RollbackSnapshot(ctx, "pve1", GuestTypeQemu, 100, "s1", true); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"description=why&snapname=s1&vmstate=1",
		"snapname=s1",
		"description=",
		"start=1",
	}
	for i, w := range want {
		if i >= len(forms) || forms[i].Encode() != w {
			t.Errorf("call %d sent %v, want %s", i, forms, w)
		}
	}
}

// "snapshot 'NAME' does not exist" is told from a call and from a task.
func TestIsSnapshotNotFound(t *testing.T) {
	t.Parallel()
	if !IsSnapshotNotFound(&Error{StatusCode: 500, Message: "snapshot 'x1' does not exist\n"}) {
		t.Error("synchronous answer not detected")
	}
	if !IsSnapshotNotFound(fmt.Errorf("wait: %w", &TaskError{ExitStatus: "snapshot 'x1' does not exist"})) {
		t.Error("task answer not detected")
	}
	if IsSnapshotNotFound(&Error{StatusCode: 500, Message: "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist"}) {
		t.Error("a missing guest is no missing snapshot")
	}
}
