package pveapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

const (
	lxcTestUPID         = "UPID:pve1:000B1C2D:0123ABCD:6790ABCD:vzstart:130:terraform@pve!provider:"
	lxcTestTemplateUPID = "UPID:pve1:000B1C2E:0123ABCE:6790ABD0:vztemplate:130:terraform@pve!provider:"
	lxcTestOldUPID      = "UPID:pve1:000A0000:0100ABCD:6000ABCD:vztemplate:130:root@pam:"
)

// Each call sends the right method, path and parameters; booleans travel as
// 1 (W6) and are left out when false; DELETE parameters go in the query.
func TestLXCCallsSendTheRightRequest(t *testing.T) {
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
		// synchronous config update (W9).
		reply any
	}{
		{
			name: "create adds vmid and sends unprivileged as 1 (W6, W34, W35)",
			call: upidOnly(func(c *Client) (string, error) {
				return c.CreateGuest(ctx, "pve1", GuestTypeLXC, 130, url.Values{
					"ostemplate":   {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"},
					"hostname":     {"db-1"},
					"unprivileged": {FormBool(true)},
					"rootfs":       {"local-lvm:8"},
					"mp0":          {"local-lvm:10,mp=/data,backup=1"},
				})

			}),
			method: "POST", path: "/nodes/pve1/lxc",
			body:  "hostname=db-1&mp0=local-lvm%3A10%2Cmp%3D%2Fdata%2Cbackup%3D1&ostemplate=local%3Avztmpl%2Fdebian-13-standard_13.1-1_amd64.tar.zst&rootfs=local-lvm%3A8&unprivileged=1&vmid=130",
			reply: lxcTestUPID,
		},
		{
			name: "W9 config update is a PUT answered with null; deletes joined",
			call: noUPID(func(c *Client) error {
				delta := &wire.ConfigDelta{}
				delta.Set("cores", "2")
				delta.Delete("mp1")
				delta.Delete("nameserver")
				return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, delta.Values())
			}),
			method: "PUT", path: "/nodes/pve1/lxc/130/config", body: "cores=2&delete=mp1%2Cnameserver", reply: nil,
		},
		{
			name: "W33 features travel as one composite value",
			call: noUPID(func(c *Client) error {
				return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"features": {"nesting=1,mount=nfs;cifs"}})
			}),
			method: "PUT", path: "/nodes/pve1/lxc/130/config", body: "features=nesting%3D1%2Cmount%3Dnfs%3Bcifs", reply: nil,
		},
		{
			name: "W36 a bind mount is submitted as written",
			call: noUPID(func(c *Client) error {
				return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"mp1": {"/srv/share,mp=/share,ro=1"}})
			}),
			method: "PUT", path: "/nodes/pve1/lxc/130/config", body: "mp1=%2Fsrv%2Fshare%2Cmp%3D%2Fshare%2Cro%3D1", reply: nil,
		},
		{
			name: "W38 net carries ip and gw inline",
			call: noUPID(func(c *Client) error {
				return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"net0": {"name=eth0,bridge=vmbr0,ip=10.0.0.6/24,gw=10.0.0.1,ip6=auto"}})
			}),
			method: "PUT", path: "/nodes/pve1/lxc/130/config",
			body:  "net0=name%3Deth0%2Cbridge%3Dvmbr0%2Cip%3D10.0.0.6%2F24%2Cgw%3D10.0.0.1%2Cip6%3Dauto",
			reply: nil,
		},
		{
			name: "W22 resize is a PUT answered with a UPID",
			call: upidOnly(func(c *Client) (string, error) {
				return c.ResizeGuestDisk(ctx, "pve1", GuestTypeLXC, 130, "rootfs", "+2G")
			}),
			method: "PUT", path: "/nodes/pve1/lxc/130/resize", body: "disk=rootfs&size=%2B2G", reply: lxcTestUPID,
		},
		{
			name: "W23 move volume deleting the source",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MoveGuestVolume(ctx, "pve1", GuestTypeLXC, 130, "mp0", "ceph", true)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/move_volume", body: "delete=1&storage=ceph&volume=mp0", reply: lxcTestUPID,
		},
		{
			name: "W23 move volume keeping the source as unusedN",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MoveGuestVolume(ctx, "pve1", GuestTypeLXC, 130, "rootfs", "local-lvm", false)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/move_volume", body: "storage=local-lvm&volume=rootfs", reply: lxcTestUPID,
		},
		{
			name: "migrate in restart mode with a shutdown timeout",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MigrateLXC(ctx, "pve1", 130, "pve2", true, 120)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/migrate", body: "restart=1&target=pve2&timeout=120", reply: lxcTestUPID,
		},
		{
			name: "migrate in restart mode with PVE's timeout",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MigrateLXC(ctx, "pve1", 130, "pve2", true, 0)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/migrate", body: "restart=1&target=pve2", reply: lxcTestUPID,
		},
		{
			name: "migrate offline",
			call: upidOnly(func(c *Client) (string, error) {
				return c.MigrateLXC(ctx, "pve1", 130, "pve2", false, 0)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/migrate", body: "target=pve2", reply: lxcTestUPID,
		},
		{
			name: "start",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, LXCStart, nil)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/status/start", body: "", reply: lxcTestUPID,
		},
		{
			name: "shutdown with options",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, LXCShutdown, url.Values{"timeout": {"60"}, "forceStop": {FormBool(true)}})
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/status/shutdown", body: "forceStop=1&timeout=60", reply: lxcTestUPID,
		},
		{
			name: "stop",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, LXCStop, nil)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/status/stop", body: "", reply: lxcTestUPID,
		},
		{
			name: "reboot",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, LXCReboot, nil)
			}),
			method: "POST", path: "/nodes/pve1/lxc/130/status/reboot", body: "", reply: lxcTestUPID,
		},
		{
			name: "W6 delete with purge and unreferenced volumes, in the query",
			call: upidOnly(func(c *Client) (string, error) {
				return c.DeleteGuest(ctx, "pve1", GuestTypeLXC, 130, true, true)
			}),
			method: "DELETE", path: "/nodes/pve1/lxc/130", query: "destroy-unreferenced-disks=1&purge=1", reply: lxcTestUPID,
		},
		{
			name: "delete plain",
			call: upidOnly(func(c *Client) (string, error) {
				return c.DeleteGuest(ctx, "pve1", GuestTypeLXC, 130, false, false)
			}),
			method: "DELETE", path: "/nodes/pve1/lxc/130", reply: lxcTestUPID,
		},
		{
			name: "full clone",
			call: upidOnly(func(c *Client) (string, error) {
				return c.CloneGuest(ctx, "pve1", GuestTypeLXC, 9100, url.Values{"newid": {"131"}, "full": {FormBool(true)}, "hostname": {"db-2"}, "storage": {"local-lvm"}})
			}),
			method: "POST", path: "/nodes/pve1/lxc/9100/clone", body: "full=1&hostname=db-2&newid=131&storage=local-lvm", reply: lxcTestUPID,
		},
		{
			name: "node names are path-escaped",
			call: upidOnly(func(c *Client) (string, error) {
				return c.GuestStatusAction(ctx, "pve 1", GuestTypeLXC, 130, LXCResume, nil)
			}),
			method: "POST", path: "/nodes/pve 1/lxc/130/status/resume", body: "", reply: lxcTestUPID,
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
// with a fresh id from the same map (W13).
func TestCreateLXCKeepsCallerParams(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, lxcTestUPID) })
	c := f.client()
	ctx := context.Background()
	params := url.Values{"ostemplate": {"local:vztmpl/alpine.tar.xz"}}
	if _, err := c.CreateGuest(ctx, "pve1", GuestTypeLXC, 130, params); err != nil {
		t.Fatal(err)
	}
	if params.Encode() != "ostemplate=local%3Avztmpl%2Falpine.tar.xz" {
		t.Errorf("caller's params changed: %s", params.Encode())
	}
	params.Set("vmid", "131")
	if _, err := c.CreateGuest(ctx, "pve1", GuestTypeLXC, 130, params); err == nil || !strings.Contains(err.Error(), "create CT 130") {
		t.Errorf("a conflicting vmid in params: err = %v; want a refusal naming CT 130", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("sent %d requests, want 1", n)
	}
}

// Requests that PVE refuses on sight are refused before anything is sent.
func TestLXCCallsRefusedLocally(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, lxcTestUPID) })
	c := f.client()
	ctx := context.Background()
	checks := map[string]func() error{
		// W35: ostemplate is required at create.
		"create without ostemplate": func() error {
			_, err := c.CreateGuest(ctx, "pve1", GuestTypeLXC, 130, url.Values{"hostname": {"db-1"}})
			return err
		},
		// W34: unprivileged is create-only, whatever the value.
		"update sets unprivileged": func() error {
			return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"unprivileged": {"1"}, "cores": {"2"}})
		},
		"update deletes unprivileged": func() error {
			return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"cores": {"2"}, "delete": {"mp1;unprivileged"}})
		},
		// W16: set and delete of the same key in one request.
		"update sets and deletes a key": func() error {
			return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"mp0": {"local-lvm:vm-130-disk-1,mp=/data"}, "delete": {"mp0"}})
		},
		"empty config update": func() error {
			return c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{})
		},
		"clone with start": func() error {
			_, err := c.CloneGuest(ctx, "pve1", GuestTypeLXC, 9100, url.Values{"newid": {"131"}, "start": {"1"}})
			return err
		},
		"clone without newid": func() error {
			_, err := c.CloneGuest(ctx, "pve1", GuestTypeLXC, 9100, url.Values{"full": {"1"}})
			return err
		},
		// reset exists for VMs only.
		"qemu-only power action": func() error {
			_, err := c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, QemuReset, nil)
			return err
		},
		"unknown power action": func() error {
			_, err := c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, "../../config", nil)
			return err
		},
		"migrate timeout without restart": func() error {
			_, err := c.MigrateLXC(ctx, "pve1", 130, "pve2", false, 60)
			return err
		},
		"migrate negative timeout": func() error {
			_, err := c.MigrateLXC(ctx, "pve1", 130, "pve2", true, -1)
			return err
		},
		"move volume without storage": func() error {
			_, err := c.MoveGuestVolume(ctx, "pve1", GuestTypeLXC, 130, "mp0", "", true)
			return err
		},
	}
	for name, check := range checks {
		if err := check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// W34 refusals say the key and why; W16 keeps wire's typed error.
	if err := c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"unprivileged": {"0"}}); err == nil || !strings.Contains(err.Error(), "unprivileged") {
		t.Errorf("W34 error = %v; want it to name unprivileged", err)
	}
	err := c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"mp0": {"local-lvm:vm-130-disk-1,mp=/data"}, "delete": {"mp0"}})
	if !wire.IsSetDeleteConflict(err) {
		t.Errorf("W16 error = %v; want a set/delete conflict", err)
	}
	if sent := f.requests(); len(sent) != 0 {
		t.Errorf("sent %+v; want nothing", sent)
	}
}

// W5, W33, W35, W37, W38: a container config reads back with mount points
// in the live form, NICs with ip/gw inline, features as one composite and
// no ostemplate; values come out as the strings PVE accepts back.
func TestLXCConfigReadsLiveForms(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiPrefix+"/nodes/pve1/lxc/130/config" || r.Method != http.MethodGet {
			writePVEError(w, 501, "Method not implemented")
			return
		}
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		_, _ = io.WriteString(w, `{"data":{
			"arch": "amd64", "cores": 2, "cpulimit": "1.5", "memory": 1024, "swap": "512",
			"hostname": "db-1", "ostype": "debian", "unprivileged": 1, "onboot": true,
			"rootfs": "local-lvm:vm-130-disk-0,size=8G",
			"mp0": "local-lvm:vm-130-disk-1,mp=/data,backup=1,size=10G",
			"mp1": "/srv/share,mp=/share,ro=1",
			"net0": "name=eth0,bridge=vmbr0,firewall=1,hwaddr=BC:24:11:2A:3B:4C,ip=10.0.0.6/24,gw=10.0.0.1,ip6=auto,tag=20,type=veth",
			"features": "nesting=1,keyctl=1",
			"description": "db\nsecond line\n", "tags": "db",
			"digest": "4f3c2b1a", "lock": null
		}}`)
	})
	config, err := f.client().GuestConfig(context.Background(), "pve1", GuestTypeLXC, 130)
	if err != nil {
		t.Fatal(err)
	}
	want := GuestConfig{
		"arch": "amd64", "cores": "2", "cpulimit": "1.5", "memory": "1024", "swap": "512",
		"hostname": "db-1", "ostype": "debian", "unprivileged": "1", "onboot": "1",
		"rootfs":      "local-lvm:vm-130-disk-0,size=8G",
		"mp0":         "local-lvm:vm-130-disk-1,mp=/data,backup=1,size=10G",
		"mp1":         "/srv/share,mp=/share,ro=1",
		"net0":        "name=eth0,bridge=vmbr0,firewall=1,hwaddr=BC:24:11:2A:3B:4C,ip=10.0.0.6/24,gw=10.0.0.1,ip6=auto,tag=20,type=veth",
		"features":    "nesting=1,keyctl=1",
		"description": "db\nsecond line\n", "tags": "db",
		"digest": "4f3c2b1a",
	}
	if len(config) != len(want) {
		t.Errorf("config has %d keys, want %d: %v", len(config), len(want), config)
	}
	for k, v := range want {
		if got, ok := config[k]; !ok || got != v {
			t.Errorf("config[%q] = %q (present %t), want %q", k, got, ok, v)
		}
	}
	if config.Lock() != "" || config.Digest() != "4f3c2b1a" {
		t.Errorf("Lock/Digest = %q/%q; a null lock is no lock", config.Lock(), config.Digest())
	}
}

func TestLXCPendingConfig(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiPrefix+"/nodes/pve1/lxc/130/pending" {
			writePVEError(w, 501, "Method not implemented")
			return
		}
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		_, _ = io.WriteString(w, `{"data":[
			{"key": "memory", "value": 1024, "pending": 2048},
			{"key": "mp0", "value": "local-lvm:vm-130-disk-1,mp=/data,size=10G", "pending": "local-lvm:vm-130-disk-1,mp=/srv/data,size=10G"},
			{"key": "nameserver", "value": "10.0.0.1", "delete": 1}
		]}`)
	})
	entries, err := f.client().GuestPending(context.Background(), "pve1", GuestTypeLXC, 130)
	if err != nil {
		t.Fatal(err)
	}
	want := []PendingEntry{
		{Key: "memory", Value: "1024", HasValue: true, Pending: "2048", HasPending: true},
		{Key: "mp0", Value: "local-lvm:vm-130-disk-1,mp=/data,size=10G", HasValue: true, Pending: "local-lvm:vm-130-disk-1,mp=/srv/data,size=10G", HasPending: true},
		{Key: "nameserver", Value: "10.0.0.1", HasValue: true, Delete: 1},
	}
	if len(entries) != len(want) {
		t.Fatalf("entries = %+v", entries)
	}
	for i := range want {
		if entries[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, entries[i], want[i])
		}
	}
}

// W5, W18: a container's status/current has no qmpstatus; PowerState is
// the process state.
func TestLXCStatus(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiPrefix+"/nodes/pve1/lxc/130/status/current" {
			writePVEError(w, 501, "Method not implemented")
			return
		}
		writeData(w, map[string]any{
			"vmid": 130, "status": "running", "name": "db-1", "uptime": 60, "pid": "31337",
			"cpus": "2", "maxmem": 1073741824, "mem": "52428800", "maxswap": 536870912,
			"maxdisk": "8589934592", "tags": "db", "type": "lxc",
			"ha": map[string]any{"managed": 0},
		})
	})
	status, err := f.client().GuestStatus(context.Background(), "pve1", GuestTypeLXC, 130)
	if err != nil {
		t.Fatal(err)
	}
	want := GuestStatus{
		VMID: 130, Status: "running", Name: "db-1", Uptime: 60, PID: 31337, CPUs: 2,
		MaxMem: 1073741824, Mem: 52428800, MaxDisk: 8589934592, Tags: "db",
	}
	if *status != want {
		t.Errorf("status = %+v\nwant %+v", *status, want)
	}
	if status.PowerState() != PowerRunning {
		t.Errorf("PowerState = %q, want running", status.PowerState())
	}
}

// W12: a missing container is the lxc/ID.conf form of the one 500 that
// means NotFound, for every read and for delete.
func TestLXCMissingContainerIsNotFound(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "Configuration file 'nodes/pve1/lxc/130.conf' does not exist")
	})
	c := f.client()
	ctx := context.Background()
	_, errConfig := c.GuestConfig(ctx, "pve1", GuestTypeLXC, 130)
	_, errPending := c.GuestPending(ctx, "pve1", GuestTypeLXC, 130)
	_, errStatus := c.GuestStatus(ctx, "pve1", GuestTypeLXC, 130)
	_, errDelete := c.DeleteGuest(ctx, "pve1", GuestTypeLXC, 130, true, false)
	errUpdate := c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"cores": {"2"}})
	for name, err := range map[string]error{"config": errConfig, "pending": errPending, "status": errStatus, "delete": errDelete, "update": errUpdate} {
		if !IsNotFound(err) {
			t.Errorf("%s: %v; want IsNotFound", name, err)
		}
	}
}

// W13: a create or clone onto a taken id fails synchronously and is
// recognisable, so the caller allocates again instead of retrying.
func TestLXCCreateOntoTakenVMID(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/clone") {
			// create_and_lock_config on newid, unwrapped.
			writePVEError(w, 500, "CT 131 already exists on node 'pve2'")
			return
		}
		writePVEError(w, 500, "CT 130 already exists on node 'pve2'")
	})
	c := f.client()
	ctx := context.Background()
	upid, err := c.CreateGuest(ctx, "pve1", GuestTypeLXC, 130, url.Values{"ostemplate": {"local:vztmpl/alpine.tar.xz"}})
	if !IsAlreadyExists(err) || upid != "" {
		t.Errorf("create = %q, %v; want IsAlreadyExists", upid, err)
	}
	upid, err = c.CloneGuest(ctx, "pve1", GuestTypeLXC, 9100, url.Values{"newid": {"131"}})
	if !IsAlreadyExists(err) || upid != "" {
		t.Errorf("clone = %q, %v; want IsAlreadyExists", upid, err)
	}
	// The check PVE repeats under the config lock carries a prefix.
	late := &Error{StatusCode: 500, Message: "unable to create CT 130 - CT 130 already exists on node 'pve2'"}
	if !IsAlreadyExists(late) {
		t.Errorf("prefixed form: want IsAlreadyExists")
	}
}

// W10: a config write on a locked container names the lock.
func TestLXCLockedConfigUpdate(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "CT is locked (backup)")
	})
	err := f.client().UpdateGuestConfig(context.Background(), "pve1", GuestTypeLXC, 130, url.Values{"cores": {"4"}})
	if lock, ok := IsLocked(err); !ok || lock != "backup" {
		t.Errorf("IsLocked(%v) = %q, %t; want backup", err, lock, ok)
	}
}

// W33, W36, W49: the root-only 403s carry free text instead of "(PATH,
// PRIV)". IsPermission reports them with an empty path and privilege (no
// role can fix them), IsRootOnly gives the text, and the message survives.
func TestLXCRootOnlyPermissionErrors(t *testing.T) {
	t.Parallel()
	messages := map[string]string{
		"mp1":      "Permission check failed (mount point type bind is only allowed for root@pam)",
		"features": "Permission check failed (changing feature flags (except nesting) is only allowed for root@pam)",
		"cores":    "Permission check failed (/vms/130, VM.Config.CPU)",
	}
	var f *catchAllPVE
	f = newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		sent := f.requests()
		body, _ := url.ParseQuery(sent[len(sent)-1].body)
		for key, msg := range messages {
			if body.Has(key) {
				writePVEOldError(w, 403, msg)
				return
			}
		}
		writeData(w, nil)
	})
	c := f.client()
	ctx := context.Background()

	bindErr := c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"mp1": {"/srv/share,mp=/share"}})
	if path, priv, ok := IsPermission(bindErr); !ok || path != "" || priv != "" {
		t.Errorf("IsPermission(bind) = %q, %q, %t; want ok with empty path and privilege", path, priv, ok)
	}
	if reason, ok := IsRootOnly(bindErr); !ok || reason != "mount point type bind is only allowed for root@pam" {
		t.Errorf("IsRootOnly(bind) = %q, %t", reason, ok)
	}
	if apiErr, ok := AsError(bindErr); !ok || apiErr.Message != messages["mp1"] || !strings.Contains(bindErr.Error(), "only allowed for root@pam") {
		t.Errorf("bind error lost PVE's text: %v", bindErr)
	}

	featureErr := c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"features": {"nesting=1,keyctl=1"}})
	if reason, ok := IsRootOnly(featureErr); !ok || reason != "changing feature flags (except nesting) is only allowed for root@pam" {
		t.Errorf("IsRootOnly(features) = %q, %t", reason, ok)
	}

	privErr := c.UpdateGuestConfig(ctx, "pve1", GuestTypeLXC, 130, url.Values{"cores": {"2"}})
	if _, ok := IsRootOnly(privErr); ok {
		t.Errorf("IsRootOnly(%v): a missing privilege is not root-only", privErr)
	}
	if path, priv, ok := IsPermission(privErr); !ok || path != "/vms/130" || priv != "VM.Config.CPU" {
		t.Errorf("IsPermission(cores) = %q, %q, %t", path, priv, ok)
	}

	notForbidden := &Error{StatusCode: 500, Message: "Permission check failed (mount point type bind is only allowed for root@pam)"}
	if _, ok := IsRootOnly(notForbidden); ok {
		t.Error("only a 403 is a root-only refusal")
	}
	if _, ok := IsRootOnly(errors.New(messages["mp1"])); ok {
		t.Error("a plain error is not a root-only refusal")
	}
}

// A container's power action on the wrong state fails at once, and each
// answer is recognisable.
func TestLXCPowerStateErrors(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/start") {
			writePVEError(w, 500, "CT 130 already running")
			return
		}
		writePVEError(w, 500, "CT 130 not running")
	})
	c := f.client()
	ctx := context.Background()
	_, startErr := c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, LXCStart, nil)
	_, shutdownErr := c.GuestStatusAction(ctx, "pve1", GuestTypeLXC, 130, LXCShutdown, nil)
	if !IsCTAlreadyRunning(startErr) || IsCTNotRunning(startErr) {
		t.Errorf("start: %v; want IsCTAlreadyRunning only", startErr)
	}
	if !IsCTNotRunning(shutdownErr) || IsCTAlreadyRunning(shutdownErr) {
		t.Errorf("shutdown: %v; want IsCTNotRunning only", shutdownErr)
	}
	if IsCTNotRunning(&Error{StatusCode: 500, Message: "VM 130 not running"}) {
		t.Error("a VM's answer is not a container's")
	}
}

// The root password given at create never reaches a log line.
func TestCreateLXCPasswordNotLogged(t *testing.T) {
	t.Parallel()
	const password = "Corr3ct-Horse-Battery"
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, lxcTestUPID) })
	log := &capturedLog{}
	c := f.client(func(cfg *Config) { cfg.Logger = log })
	params := url.Values{"ostemplate": {"local:vztmpl/alpine.tar.xz"}, "password": {password}}
	if _, err := c.CreateGuest(context.Background(), "pve1", GuestTypeLXC, 130, params); err != nil {
		t.Fatal(err)
	}
	if sent := f.requests(); len(sent) != 1 || !strings.Contains(sent[0].body, "password=Corr3ct-Horse-Battery") {
		t.Fatalf("the password must still reach PVE: %+v", sent)
	}
	if strings.Contains(log.all(), password) || !strings.Contains(log.all(), "password="+redactedMark) {
		t.Errorf("log = %s; want the password masked", log.all())
	}
}

// templatePVE answers POST .../lxc/130/template with templateReply, lists
// tasks, serves the status of each listed or returned task and the config.
type templatePVE struct {
	templateReply any
	tasks         []map[string]any  // GET /nodes/pve1/tasks answer
	exitStatus    map[string]string // UPID -> exitstatus, once stopped
	template      bool              // config says template: 1
}

func (p templatePVE) serve(t *testing.T) *catchAllPVE {
	t.Helper()
	return newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, apiPrefix)
		switch {
		case r.Method == http.MethodPost && path == "/nodes/pve1/lxc/130/template":
			writeData(w, p.templateReply)
		case r.Method == http.MethodGet && path == "/nodes/pve1/tasks":
			writeData(w, p.tasks)
		case r.Method == http.MethodGet && strings.HasPrefix(path, "/nodes/pve1/tasks/") && strings.HasSuffix(path, "/status"):
			upid := strings.TrimSuffix(strings.TrimPrefix(path, "/nodes/pve1/tasks/"), "/status")
			exit, ok := p.exitStatus[upid]
			if !ok {
				writeParamError(w, map[string]string{"upid": "no such task"})
				return
			}
			writeData(w, map[string]any{"status": "stopped", "exitstatus": exit, "upid": upid})
		case r.Method == http.MethodGet && strings.HasPrefix(path, "/nodes/pve1/tasks/") && strings.HasSuffix(path, "/log"):
			writeData(w, []map[string]any{{"n": 1, "t": "template failed"}})
		case r.Method == http.MethodGet && path == "/nodes/pve1/lxc/130/config":
			config := map[string]any{"hostname": "db-1", "rootfs": "local-lvm:vm-130-disk-0,size=8G"}
			if p.template {
				config["template"] = 1
				config["rootfs"] = "local-lvm:base-130-disk-0,size=8G"
			}
			writeData(w, config)
		default:
			writePVEError(w, 501, "Method '"+r.Method+" "+path+"' not implemented")
		}
	})
}

// W9, W17: the template call answers null, no UPID, while pve-container
// converts in a vztemplate task; the call returns only once that task, the
// newest vztemplate task of the container, has ended.
func TestTemplateLXCWaitsForTheUnannouncedTask(t *testing.T) {
	t.Parallel()
	fake := templatePVE{
		templateReply: nil,
		tasks: []map[string]any{
			// A former container with the same id, templated long ago.
			{"upid": lxcTestOldUPID, "type": "vztemplate", "id": "130", "starttime": 0x6000ABCD, "status": "OK"},
			{"upid": lxcTestTemplateUPID, "type": "vztemplate", "id": "130", "starttime": "1787866064", "status": "RUNNING"},
		},
		exitStatus: map[string]string{lxcTestTemplateUPID: "OK", lxcTestOldUPID: "OK"},
	}
	f := fake.serve(t)
	if err := f.client().TemplateLXC(context.Background(), "pve1", 130); err != nil {
		t.Fatalf("TemplateLXC: %v", err)
	}
	sent := f.requests()
	if len(sent) != 3 {
		t.Fatalf("sent %d requests, want template, task list, task status: %+v", len(sent), sent)
	}
	if want := (sentRequest{method: "POST", path: "/nodes/pve1/lxc/130/template"}); sent[0] != want {
		t.Errorf("template request = %+v, want %+v", sent[0], want)
	}
	if sent[1].method != "GET" || sent[1].path != "/nodes/pve1/tasks" || sent[1].query != "source=all&typefilter=vztemplate&vmid=130" {
		t.Errorf("task lookup = %+v", sent[1])
	}
	if sent[2].path != "/nodes/pve1/tasks/"+lxcTestTemplateUPID+"/status" {
		t.Errorf("waited on %s; want the newest vztemplate task", sent[2].path)
	}
}

// W8: a failed conversion task is the call's error, with its log.
func TestTemplateLXCTaskFailure(t *testing.T) {
	t.Parallel()
	fake := templatePVE{
		tasks:      []map[string]any{{"upid": lxcTestTemplateUPID, "starttime": 1787866064, "status": "RUNNING"}},
		exitStatus: map[string]string{lxcTestTemplateUPID: "rename volume failed"},
	}
	err := fake.serve(t).client().TemplateLXC(context.Background(), "pve1", 130)
	var taskErr *TaskError
	if !errors.As(err, &taskErr) || taskErr.UPID != lxcTestTemplateUPID || taskErr.ExitStatus != "rename volume failed" {
		t.Errorf("TemplateLXC = %v; want the task's failure", err)
	}
}

// W9: with no task listed, the config decides: a template is done, anything
// else is an error rather than a silent success.
func TestTemplateLXCWithoutTask(t *testing.T) {
	t.Parallel()
	done := templatePVE{tasks: []map[string]any{}, template: true}
	if err := done.serve(t).client().TemplateLXC(context.Background(), "pve1", 130); err != nil {
		t.Errorf("converted container: %v", err)
	}
	notDone := templatePVE{tasks: []map[string]any{}}
	err := notDone.serve(t).client().TemplateLXC(context.Background(), "pve1", 130)
	if err == nil || !strings.Contains(err.Error(), "not a template") {
		t.Errorf("unconverted container: %v; want an error", err)
	}
}

// Should PVE answer with a UPID, that task is waited for and no list is
// read.
func TestTemplateLXCAnsweredWithUPID(t *testing.T) {
	t.Parallel()
	fake := templatePVE{
		templateReply: lxcTestTemplateUPID,
		exitStatus:    map[string]string{lxcTestTemplateUPID: "OK"},
	}
	f := fake.serve(t)
	if err := f.client().TemplateLXC(context.Background(), "pve1", 130); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.requests() {
		if r.path == "/nodes/pve1/tasks" {
			t.Errorf("listed tasks although PVE named the task")
		}
	}
}

// W12: templating a missing container fails at once.
func TestTemplateLXCMissingContainer(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "Configuration file 'nodes/pve1/lxc/130.conf' does not exist")
	})
	if err := f.client().TemplateLXC(context.Background(), "pve1", 130); !IsNotFound(err) {
		t.Errorf("TemplateLXC = %v; want IsNotFound", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("sent %d requests, want 1", n)
	}
}
