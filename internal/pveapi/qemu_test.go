package pveapi

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// sentRequest is one request as it reached the fake, query and body kept
// apart so tests can tell where parameters travelled.
type sentRequest struct {
	method string
	path   string // below /api2/json, unescaped
	query  string
	body   string
}

// catchAllPVE answers every API request with reply and records it.
type catchAllPVE struct {
	*fakePVE
	reply func(w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	sent []sentRequest
}

func newCatchAllPVE(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) *catchAllPVE {
	t.Helper()
	f := &catchAllPVE{fakePVE: newFakePVE(t), reply: reply}
	f.mux.HandleFunc(apiPrefix+"/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.sent = append(f.sent, sentRequest{
			method: r.Method,
			path:   strings.TrimPrefix(r.URL.Path, apiPrefix),
			query:  r.URL.RawQuery,
			body:   string(body),
		})
		f.mu.Unlock()
		f.reply(w, r)
	})
	return f
}

func (f *catchAllPVE) requests() []sentRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentRequest(nil), f.sent...)
}

const qemuTestUPID = "UPID:pve1:000A1B2C:0123ABCD:6790ABCD:qmstart:100:terraform@pve!provider:"

// Each call sends the right method, path and parameters; booleans travel as
// 1 (W6) and are left out when false; DELETE parameters go in the query.
func TestQemuCallsSendTheRightRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type call func(c *Client) (string, error)
	upidOnly := func(f func(c *Client) (string, error)) call { return f }
	noUPID := func(f func(c *Client) error) call {
		return func(c *Client) (string, error) { return "", f(c) }
	}
	cases := []struct {
		name   string
		call   call
		method string
		path   string
		query  string
		body   string
		// reply is the answer's data: a UPID for task calls, nil for the
		// synchronous ones (W9).
		reply any
	}{
		{
			name: "create adds vmid and keeps the caller's params",
			call: upidOnly(func(c *Client) (string, error) {
				return c.CreateGuest(ctx, "pve1", GuestTypeQemu, 100, url.Values{"name": {"web"}, "memory": {"2048"}, "scsi0": {"local-lvm:32"}})
			}),
			method: "POST", path: "/nodes/pve1/qemu", body: "memory=2048&name=web&scsi0=local-lvm%3A32&vmid=100", reply: qemuTestUPID,
		},
		{
			name: "W9 sync config update is a PUT answered with null",
			call: noUPID(func(c *Client) error {
				delta := &wire.ConfigDelta{}
				delta.Set("cores", "4")
				delta.Delete("ciuser")
				delta.Delete("sshkeys")
				return c.UpdateGuestConfig(ctx, "pve1", GuestTypeQemu, 100, delta.Values())
			}),
			method: "PUT", path: "/nodes/pve1/qemu/100/config", body: "cores=4&delete=ciuser%2Csshkeys", reply: nil,
		},
		{
			name: "W9 async config update is a POST answered with a UPID",
			call: upidOnly(func(c *Client) (string, error) {
				return c.UpdateQemuConfigAsync(ctx, "pve1", 100, url.Values{"scsi1": {"local-lvm:8"}})
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/config", body: "scsi1=local-lvm%3A8", reply: qemuTestUPID,
		},
		{
			name: "W22 resize is a PUT answered with a UPID",
			call: upidOnly(func(c *Client) (string, error) {
				return c.ResizeGuestDisk(ctx, "pve1", GuestTypeQemu, 100, "scsi0", "40G")
			}),
			method: "PUT", path: "/nodes/pve1/qemu/100/resize", body: "disk=scsi0&size=40G", reply: qemuTestUPID,
		},
		{
			name: "W23 move disk with delete and format",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MoveQemuDisk(ctx, "pve1", 100, "scsi0", "ceph", true, "raw")
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/move_disk", body: "delete=1&disk=scsi0&format=raw&storage=ceph", reply: qemuTestUPID,
		},
		{
			name: "W23 move disk keeping the source",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MoveQemuDisk(ctx, "pve1", 100, "virtio1", "local-lvm", false, "")
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/move_disk", body: "disk=virtio1&storage=local-lvm", reply: qemuTestUPID,
		},
		{
			name: "migrate online with local disks",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MigrateQemu(ctx, "pve1", 100, "pve2", true, true)
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/migrate", body: "online=1&target=pve2&with-local-disks=1", reply: qemuTestUPID,
		},
		{
			name: "migrate offline",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MigrateQemu(ctx, "pve1", 100, "pve2", false, false)
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/migrate", body: "target=pve2", reply: qemuTestUPID,
		},
		{
			name: "W24 unlink detaches without force",
			call: noUPID(func(c *Client) error {
				return c.UnlinkQemuDisks(ctx, "pve1", 100, []string{"scsi1", "unused0"}, false)
			}),
			method: "PUT", path: "/nodes/pve1/qemu/100/unlink", body: "idlist=scsi1%2Cunused0", reply: nil,
		},
		{
			name: "unlink with force",
			call: noUPID(func(c *Client) error {
				return c.UnlinkQemuDisks(ctx, "pve1", 100, []string{"unused0"}, true)
			}),
			method: "PUT", path: "/nodes/pve1/qemu/100/unlink", body: "force=1&idlist=unused0", reply: nil,
		},
		{
			name: "start",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve1", GuestTypeQemu, 100, QemuStart, nil)
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/status/start", body: "", reply: qemuTestUPID,
		},
		{
			name: "shutdown with options",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve1", GuestTypeQemu, 100, QemuShutdown, url.Values{"timeout": {"60"}, "forceStop": {FormBool(true)}})
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/status/shutdown", body: "forceStop=1&timeout=60", reply: qemuTestUPID,
		},
		{
			name: "delete with purge and unreferenced disks, in the query",
			call: upidOnly(func(c *Client) (string, error) {
				return c.DeleteGuest(ctx, "pve1", GuestTypeQemu, 100, true, true)
			}),
			method: "DELETE", path: "/nodes/pve1/qemu/100", query: "destroy-unreferenced-disks=1&purge=1", reply: qemuTestUPID,
		},
		{
			name: "delete plain",
			call: upidOnly(func(c *Client) (string, error) {
				return c.DeleteGuest(ctx, "pve1", GuestTypeQemu, 100, false, false)
			}),
			method: "DELETE", path: "/nodes/pve1/qemu/100", reply: qemuTestUPID,
		},
		{
			name: "W9 qemu template answers a UPID",
			call: upidOnly(func(c *Client) (string, error) {
				return c.TemplateQemu(ctx, "pve1", 100, "")
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/template", body: "", reply: qemuTestUPID,
		},
		{
			name: "template of one disk",
			call: upidOnly(func(c *Client) (string, error) {
				return c.TemplateQemu(ctx, "pve1", 100, "scsi0")
			}),
			method: "POST", path: "/nodes/pve1/qemu/100/template", body: "disk=scsi0", reply: qemuTestUPID,
		},
		{
			name: "W14 full clone",
			call: upidOnly(func(c *Client) (string, error) {
				return c.CloneGuest(ctx, "pve1", GuestTypeQemu, 9000, url.Values{"newid": {"101"}, "full": {FormBool(true)}, "name": {"web"}, "storage": {"local-lvm"}})
			}),
			method: "POST", path: "/nodes/pve1/qemu/9000/clone", body: "full=1&name=web&newid=101&storage=local-lvm", reply: qemuTestUPID,
		},
		{
			name: "node names are path-escaped",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve 1", GuestTypeQemu, 100, QemuStop, nil)
			}),
			method: "POST", path: "/nodes/pve 1/qemu/100/status/stop", body: "", reply: qemuTestUPID,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, tc.reply) })
			got, err := tc.call(f.client())
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			wantUPID, _ := tc.reply.(string)
			if got != wantUPID {
				t.Errorf("returned %q, want %q", got, wantUPID)
			}
			sent := f.requests()
			if len(sent) != 1 {
				t.Fatalf("sent %d requests, want 1: %+v", len(sent), sent)
			}
			want := sentRequest{method: tc.method, path: tc.path, query: tc.query, body: tc.body}
			if sent[0] != want {
				t.Errorf("sent %+v\nwant %+v", sent[0], want)
			}
		})
	}
}

// The caller's parameters are never modified, so a create can be retried
// with a fresh id from the same map.
func TestCreateQemuKeepsCallerParams(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, qemuTestUPID) })
	c := f.client()
	params := url.Values{"name": {"web"}}
	if _, err := c.CreateGuest(context.Background(), "pve1", GuestTypeQemu, 100, params); err != nil {
		t.Fatal(err)
	}
	if params.Encode() != "name=web" {
		t.Errorf("caller's params changed: %s", params.Encode())
	}
	if _, err := c.CreateGuest(context.Background(), "pve1", GuestTypeQemu, 100, url.Values{"vmid": {"101"}}); err == nil {
		t.Error("a conflicting vmid in params was accepted")
	}
	if _, err := c.CreateGuest(context.Background(), "pve1", GuestTypeQemu, 100, url.Values{"vmid": {"100"}}); err != nil {
		t.Errorf("a matching vmid in params was refused: %v", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("sent %d requests, want 2", n)
	}
}

// Requests that PVE refuses on sight are refused before anything is sent.
func TestQemuCallsRefusedLocally(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, qemuTestUPID) })
	c := f.client()
	ctx := context.Background()
	checks := map[string]func() error{
		// W14: clone has no start parameter.
		"clone with start": func() error {
			_, err := c.CloneGuest(ctx, "pve1", GuestTypeQemu, 9000, url.Values{"newid": {"101"}, "start": {"1"}})
			return err
		},
		"clone without newid": func() error {
			_, err := c.CloneGuest(ctx, "pve1", GuestTypeQemu, 9000, url.Values{"full": {"1"}})
			return err
		},
		"unknown power action": func() error {
			_, err := c.GuestStatusAction(ctx, "pve1", GuestTypeQemu, 100, "../../config", nil)
			return err
		},
		// W16: set and delete of the same key in one request.
		"sync update sets and deletes a key": func() error {
			return c.UpdateGuestConfig(ctx, "pve1", GuestTypeQemu, 100, url.Values{"ciuser": {"admin"}, "delete": {"ciuser"}})
		},
		"async update sets and deletes a key": func() error {
			_, err := c.UpdateQemuConfigAsync(ctx, "pve1", 100, url.Values{"net0": {"virtio,bridge=vmbr0"}, "delete": {"ide2,net0"}})
			return err
		},
		"empty config update": func() error {
			return c.UpdateGuestConfig(ctx, "pve1", GuestTypeQemu, 100, url.Values{})
		},
		"unlink nothing": func() error {
			return c.UnlinkQemuDisks(ctx, "pve1", 100, nil, true)
		},
	}
	for name, check := range checks {
		if err := check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// W16 refusals keep wire's typed error.
	err := c.UpdateGuestConfig(ctx, "pve1", GuestTypeQemu, 100, url.Values{"ciuser": {"admin"}, "delete": {"ciuser"}})
	if !wire.IsSetDeleteConflict(err) {
		t.Errorf("W16 error = %v; want a set/delete conflict", err)
	}
	if sent := f.requests(); len(sent) != 0 {
		t.Errorf("sent %+v; want nothing", sent)
	}
}

// W9: POST config answers null when PVE finished within its background
// delay; the empty UPID means done and WaitTask accepts it.
func TestUpdateQemuConfigAsyncFinishedInline(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	c := f.client()
	upid, err := c.UpdateQemuConfigAsync(context.Background(), "pve1", 100, url.Values{"background_delay": {"5"}, "cores": {"2"}})
	if err != nil || upid != "" {
		t.Fatalf("UpdateQemuConfigAsync = %q, %v; want empty UPID", upid, err)
	}
	if res, err := c.WaitTask(context.Background(), upid); err != nil || res.ExitStatus != "OK" {
		t.Errorf("WaitTask(\"\") = %+v, %v", res, err)
	}
}

// W5, W20: config values arrive as strings, numbers or booleans and come
// out as the strings PVE accepts back; text stays verbatim.
func TestQemuConfigNormalisesValues(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiPrefix+"/nodes/pve1/qemu/100/config" || r.Method != http.MethodGet {
			writePVEError(w, 501, "Method not implemented")
			return
		}
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		_, _ = io.WriteString(w, `{"data":{
			"memory": 2048, "cores": "2", "onboot": 1, "numa": true, "agent": false,
			"cpulimit": 1.50, "balloon": 0, "vmgenid": "c0ffee",
			"name": 1234, "description": "  first line\nsecond line\n",
			"digest": "0123abcd", "lock": "clone", "tags": "a;b",
			"scsi0": "local-lvm:vm-100-disk-0,size=32G", "parent": null,
			"big": 9007199254740993
		}}`)
	})
	config, err := f.client().GuestConfig(context.Background(), "pve1", GuestTypeQemu, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := GuestConfig{
		"memory": "2048", "cores": "2", "onboot": "1", "numa": "1", "agent": "0",
		"cpulimit": "1.50", "balloon": "0", "vmgenid": "c0ffee",
		"name": "1234", "description": "  first line\nsecond line\n",
		"digest": "0123abcd", "lock": "clone", "tags": "a;b",
		"scsi0": "local-lvm:vm-100-disk-0,size=32G",
		"big":   "9007199254740993",
	}
	if len(config) != len(want) {
		t.Errorf("config has %d keys, want %d: %v", len(config), len(want), config)
	}
	for k, v := range want {
		if got, ok := config[k]; !ok || got != v {
			t.Errorf("config[%q] = %q (present %t), want %q", k, got, ok, v)
		}
	}
	if _, ok := config["parent"]; ok {
		t.Error("a null value must read as absent")
	}
	if config.Lock() != "clone" || config.Digest() != "0123abcd" {
		t.Errorf("Lock/Digest = %q/%q", config.Lock(), config.Digest())
	}
}

// W12: a missing VM is the one 500 that means NotFound, for every read and
// for delete.
func TestQemuMissingVMIsNotFound(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist")
	})
	c := f.client()
	ctx := context.Background()
	_, errConfig := c.GuestConfig(ctx, "pve1", GuestTypeQemu, 100)
	_, errPending := c.GuestPending(ctx, "pve1", GuestTypeQemu, 100)
	_, errStatus := c.GuestStatus(ctx, "pve1", GuestTypeQemu, 100)
	_, errDelete := c.DeleteGuest(ctx, "pve1", GuestTypeQemu, 100, true, false)
	for name, err := range map[string]error{"config": errConfig, "pending": errPending, "status": errStatus, "delete": errDelete} {
		if !IsNotFound(err) {
			t.Errorf("%s: %v; want IsNotFound", name, err)
		}
	}
}

// W13: a create or clone onto a taken id fails synchronously and is
// recognisable, so the caller allocates again instead of retrying.
func TestQemuCreateOntoTakenVMID(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/clone") {
			writePVEError(w, 500, "unable to create VM 101: config file already exists")
			return
		}
		writePVEError(w, 500, "unable to create VM 100 - VM 100 already exists on node 'pve2'")
	})
	c := f.client()
	ctx := context.Background()
	upid, err := c.CreateGuest(ctx, "pve1", GuestTypeQemu, 100, url.Values{"name": {"web"}})
	if !IsAlreadyExists(err) || upid != "" {
		t.Errorf("create = %q, %v; want IsAlreadyExists", upid, err)
	}
	upid, err = c.CloneGuest(ctx, "pve1", GuestTypeQemu, 9000, url.Values{"newid": {"101"}})
	if !IsAlreadyExists(err) || upid != "" {
		t.Errorf("clone = %q, %v; want IsAlreadyExists", upid, err)
	}
}

func TestQemuPendingConfig(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		_, _ = io.WriteString(w, `{"data":[
			{"key": "memory", "value": 2048, "pending": "4096"},
			{"key": "cores", "value": "2"},
			{"key": "ciuser", "value": "admin", "delete": 1},
			{"key": "net1", "value": "virtio=AA:BB:CC:DD:EE:FF,bridge=vmbr0", "delete": "2"},
			{"key": "description", "value": "", "pending": "note\n"},
			{"key": "onboot", "pending": 1}
		]}`)
	})
	entries, err := f.client().GuestPending(context.Background(), "pve1", GuestTypeQemu, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []PendingEntry{
		{Key: "memory", Value: "2048", HasValue: true, Pending: "4096", HasPending: true},
		{Key: "cores", Value: "2", HasValue: true},
		{Key: "ciuser", Value: "admin", HasValue: true, Delete: 1},
		{Key: "net1", Value: "virtio=AA:BB:CC:DD:EE:FF,bridge=vmbr0", HasValue: true, Delete: 2},
		{Key: "description", Value: "", HasValue: true, Pending: "note\n", HasPending: true},
		{Key: "onboot", Pending: "1", HasPending: true},
	}
	if len(entries) != len(want) {
		t.Fatalf("entries = %+v", entries)
	}
	for i := range want {
		if entries[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, entries[i], want[i])
		}
	}
	if entries[0].DeletePending() || !entries[2].DeletePending() || !entries[3].DeletePending() {
		t.Error("DeletePending wrong")
	}
}

// W5, W18: status/current decodes leniently and keeps qmpstatus.
func TestQemuStatus(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiPrefix+"/nodes/pve1/qemu/100/status/current" {
			writePVEError(w, 501, "Method not implemented")
			return
		}
		writeData(w, map[string]any{
			"vmid": "100", "status": "running", "qmpstatus": "paused", "name": 1234, "uptime": "3600",
			"pid": 4242, "template": "0", "cpus": 2, "maxmem": "4294967296", "mem": 1073741824,
			"agent": 1, "tags": "a;b", "running-machine": "pc-q35-9.2+pve1", "running-qemu": "9.2.0",
			"ha": map[string]any{"managed": 1, "state": "started", "group": "prefer-pve1"},
		})
	})
	status, err := f.client().GuestStatus(context.Background(), "pve1", GuestTypeQemu, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := GuestStatus{
		VMID: 100, Status: "running", QMPStatus: "paused", Name: "1234", Uptime: 3600, PID: 4242,
		CPUs: 2, MaxMem: 4294967296, Mem: 1073741824, Agent: true, Tags: "a;b",
		RunningMachine: "pc-q35-9.2+pve1", RunningQEMU: "9.2.0",
		HA: HAStatus{Managed: true, State: "started", Group: "prefer-pve1"},
	}
	if *status != want {
		t.Errorf("status = %+v\nwant %+v", *status, want)
	}
	if status.PowerState() != PowerPaused {
		t.Errorf("PowerState = %q, want paused (W18)", status.PowerState())
	}
}

// W18: status says whether the process runs; qmpstatus and the lock say
// what the guest does.
func TestGuestStatusPowerState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status, qmp, lock string
		want              string
	}{
		{"running", "running", "", PowerRunning},
		{"running", "", "", PowerRunning}, // containers have no qmpstatus
		{"running", "paused", "", PowerPaused},
		{"running", "suspended", "", PowerSuspended},
		{"running", "prelaunch", "", PowerPrelaunch},
		{"running", "inmigrate", "migrate", "inmigrate"},
		{"running", "running", "backup", PowerRunning},
		{"stopped", "", "", PowerStopped},
		{"stopped", "stopped", "", PowerStopped},
		{"stopped", "", "suspended", PowerHibernated}, // W10: hibernated, not a task
		{"stopped", "", "clone", PowerStopped},
		{"", "", "", PowerUnknown},
		{"unknown", "", "clone", "unknown"},
	}
	for _, tc := range cases {
		s := GuestStatus{Status: tc.status, QMPStatus: tc.qmp, Lock: tc.lock}
		if got := s.PowerState(); got != tc.want {
			t.Errorf("PowerState(status=%q, qmpstatus=%q, lock=%q) = %q, want %q", tc.status, tc.qmp, tc.lock, got, tc.want)
		}
	}
}

func TestFindGuest(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiPrefix+"/cluster/resources" || r.URL.Query().Get("type") != "vm" {
			writePVEError(w, 501, "Method not implemented")
			return
		}
		writeData(w, []map[string]any{
			{"id": "qemu/100", "type": "qemu", "vmid": 100, "name": "web", "node": "pve1", "status": "running"},
			// W11: mid-clone, no name, locked.
			{"id": "qemu/101", "type": "qemu", "vmid": "101", "node": "pve2", "status": "unknown", "lock": "clone"},
			{"id": "lxc/102", "type": "lxc", "vmid": 102, "name": "ct", "node": "pve1", "status": "stopped"},
		})
	})
	c := f.client()
	ctx := context.Background()

	guest, found, err := c.FindGuest(ctx, 100)
	if err != nil || !found || guest.Node != "pve1" || guest.Name != "web" || guest.InProgress() {
		t.Errorf("FindGuest(100) = %+v, %t, %v", guest, found, err)
	}
	guest, found, err = c.FindGuest(ctx, 101)
	if err != nil || !found || guest.Node != "pve2" || guest.Lock != "clone" || !guest.InProgress() {
		t.Errorf("FindGuest(101) = %+v, %t, %v; want the W11 entry, in progress", guest, found, err)
	}
	guest, found, err = c.FindGuest(ctx, 102)
	if err != nil || !found || guest.Type != GuestTypeLXC {
		t.Errorf("FindGuest(102) = %+v, %t, %v", guest, found, err)
	}
	guest, found, err = c.FindGuest(ctx, 103)
	if err != nil || found || guest != nil {
		t.Errorf("FindGuest(103) = %+v, %t, %v; want not found", guest, found, err)
	}
	if n := len(f.requests()); n != 4 {
		t.Errorf("%d requests for 4 lookups; want one each", n)
	}
}

func TestFindGuestError(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		writePVEOldError(w, 403, "Permission check failed (/vms, VM.Audit)")
	})
	guest, found, err := f.client().FindGuest(context.Background(), 100)
	if err == nil || found || guest != nil {
		t.Errorf("FindGuest = %+v, %t, %v; an error must not read as absent", guest, found, err)
	}
}
