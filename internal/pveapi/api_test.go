package pveapi

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// recorder keeps the last request's query or form per route.
type recorder struct {
	mu     sync.Mutex
	values map[string]url.Values
}

func (r *recorder) record(key string, req *http.Request) {
	_ = req.ParseForm()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]url.Values{}
	}
	r.values[key] = req.Form
}

func (r *recorder) get(key string) url.Values {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values[key]
}

func TestClusterAndNodeCalls(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	rec := &recorder{}
	f.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"version": "9.1.1", "release": "9.1", "repoid": "deadbeef"})
	})
	f.handle("GET /nodes", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"node": "pve1", "status": "online", "cpu": 0.03, "maxcpu": 8, "mem": "1024", "maxmem": 4096, "uptime": 100},
			{"node": "pve2", "status": "offline"},
		})
	})
	f.handle("GET /nodes/{node}/status", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("node") != "pve1" {
			writePVEError(w, 500, "no such node")
			return
		}
		writeData(w, map[string]any{
			"cpu": 0.1, "cpuinfo": map[string]any{"model": "EPYC", "cores": 4, "cpus": "8", "sockets": 1},
			"memory": map[string]any{"total": 8192, "used": 1024, "free": 7168}, "uptime": "3600",
			"loadavg": []any{"0.10", "0.20", 0.3}, "pveversion": "pve-manager/9.1.1/abc",
			"boot-info": map[string]any{"mode": "efi", "secureboot": 1},
		})
	})
	f.handle("GET /cluster/resources", func(w http.ResponseWriter, r *http.Request) {
		rec.record("resources", r)
		writeData(w, []map[string]any{
			{"id": "qemu/100", "type": "qemu", "vmid": 100, "name": "web", "node": "pve1", "status": "running", "tags": "a;b"},
			{"id": "qemu/101", "type": "qemu", "vmid": 101, "node": "pve1", "status": "unknown", "lock": "clone"},
			{"id": "lxc/102", "type": "lxc", "vmid": "102", "name": "ct", "node": "pve1", "lock": "suspended"},
			{"id": "storage/pve1/local", "type": "storage", "storage": "local", "node": "pve1", "shared": 0},
		})
	})
	f.handle("GET /cluster/status", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"id": "cluster", "name": "lab", "type": "cluster", "quorate": 1, "nodes": 2, "version": 3},
			{"id": "node/pve1", "name": "pve1", "type": "node", "online": 1, "local": 1, "nodeid": 1, "ip": "10.0.0.1"},
		})
	})
	f.handle("GET /cluster/nextid", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("vmid") {
		case "":
			writeData(w, "105") // PVE sends the id as a string
		case "100":
			writeParamError(w, map[string]string{"vmid": "VM 100 already exists"})
		case "99":
			writeParamError(w, map[string]string{"vmid": "invalid format - value does not look like a valid VM ID\n"})
		default:
			writeData(w, r.URL.Query().Get("vmid"))
		}
	})
	c := f.client()
	ctx := context.Background()

	v, err := c.Version(ctx)
	if err != nil || v.Release != "9.1" || v.RepoID != "deadbeef" {
		t.Errorf("Version = %+v, %v", v, err)
	}
	nodes, err := c.Nodes(ctx)
	if err != nil || len(nodes) != 2 || nodes[0].Mem != 1024 || nodes[0].MaxCPU != 8 || nodes[1].Status != "offline" {
		t.Errorf("Nodes = %+v, %v", nodes, err)
	}
	status, err := c.NodeStatus(ctx, "pve1")
	if err != nil || status.CPUInfo.CPUs != 8 || status.Uptime != 3600 || len(status.LoadAvg) != 3 || status.LoadAvg[2] != "0.3" || !bool(status.BootInfo.SecureBoot) {
		t.Errorf("NodeStatus = %+v, %v", status, err)
	}
	resources, err := c.ClusterResources(ctx, "vm")
	if err != nil || len(resources) != 4 {
		t.Fatalf("ClusterResources = %+v, %v", resources, err)
	}
	if rec.get("resources").Get("type") != "vm" {
		t.Errorf("type filter = %q", rec.get("resources").Get("type"))
	}
	// W11: a locked or nameless guest is in progress, never absent.
	inProgress := []bool{false, true, false, false}
	for i, r := range resources {
		if r.InProgress() != inProgress[i] {
			t.Errorf("%s InProgress = %t, want %t", r.ID, r.InProgress(), inProgress[i])
		}
	}
	if _, err := c.ClusterResources(ctx, ""); err != nil || rec.get("resources").Has("type") {
		t.Errorf("no filter should send no type: %v %v", err, rec.get("resources"))
	}
	cs, err := c.ClusterStatus(ctx)
	if err != nil || len(cs) != 2 || !bool(cs[0].Quorate) || cs[0].Nodes != 2 || !bool(cs[1].Local) || cs[1].IP != "10.0.0.1" {
		t.Errorf("ClusterStatus = %+v, %v", cs, err)
	}

	id, err := c.NextID(ctx)
	if err != nil || id != 105 {
		t.Errorf("NextID = %d, %v", id, err)
	}
	if free, err := c.IsVMIDFree(ctx, 100); err != nil || free {
		t.Errorf("IsVMIDFree(100) = %t, %v; want false", free, err)
	}
	if free, err := c.IsVMIDFree(ctx, 200); err != nil || !free {
		t.Errorf("IsVMIDFree(200) = %t, %v; want true", free, err)
	}
	if _, err := c.IsVMIDFree(ctx, 99); err == nil {
		t.Error("IsVMIDFree(99): a format error must be returned, not read as taken")
	}
}

func TestPoolCalls(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	rec := &recorder{}
	f.handle("GET /pools", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("poolid") {
		case "":
			writeData(w, []map[string]any{{"poolid": "prod", "comment": "production"}, {"poolid": "dev"}})
		case "prod":
			writeData(w, []map[string]any{{
				"poolid": "prod", "comment": "production",
				"members": []map[string]any{
					{"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "name": "web"},
					{"id": "storage/pve1/local", "type": "storage", "node": "pve1", "storage": "local"},
				},
			}})
		case "missing":
			writePVEError(w, 500, "pool 'missing' does not exist")
		case "broken":
			writePVEError(w, 500, "ipcc_send_rec[1] failed: Connection refused")
		case "forbidden":
			writePVEOldError(w, 403, "Permission check failed (/pool/forbidden, Pool.Audit)")
		case "empty":
			writeData(w, []map[string]any{})
		}
	})
	f.handle("POST /pools", func(w http.ResponseWriter, r *http.Request) { rec.record("create", r); writeData(w, nil) })
	f.handle("PUT /pools", func(w http.ResponseWriter, r *http.Request) { rec.record("update", r); writeData(w, nil) })
	f.handle("DELETE /pools", func(w http.ResponseWriter, r *http.Request) {
		rec.record("delete", r)
		if r.URL.Query().Get("poolid") == "gone" {
			writePVEError(w, 500, "pool 'gone' does not exist")
			return
		}
		writeData(w, nil)
	})
	c := f.client()
	ctx := context.Background()

	pools, err := c.Pools(ctx)
	if err != nil || len(pools) != 2 || pools[0].Comment != "production" {
		t.Errorf("Pools = %+v, %v", pools, err)
	}
	pool, found, err := c.GetPool(ctx, "prod")
	if err != nil || !found || pool.Comment != "production" || len(pool.Members) != 2 || pool.Members[0].VMID != 100 {
		t.Errorf("GetPool(prod) = %+v, %t, %v", pool, found, err)
	}
	if pool, found, err := c.GetPool(ctx, "missing"); err != nil || found || pool != nil {
		t.Errorf("GetPool(missing) = %+v, %t, %v; want not found", pool, found, err)
	}
	for _, id := range []string{"broken", "forbidden", "empty"} {
		if _, found, err := c.GetPool(ctx, id); err == nil || found {
			t.Errorf("GetPool(%s) = found %t, err %v; want an error", id, found, err)
		}
	}

	if err := c.CreatePool(ctx, "prod", "production"); err != nil {
		t.Fatal(err)
	}
	if got := rec.get("create").Encode(); got != "comment=production&poolid=prod" {
		t.Errorf("create form = %s", got)
	}
	if err := c.CreatePool(ctx, "bare", ""); err != nil || rec.get("create").Encode() != "poolid=bare" {
		t.Errorf("create without comment: form %s, %v", rec.get("create").Encode(), err)
	}

	// W48 membership through PUT /pools; W6 booleans as 1.
	comment := "live"
	err = c.UpdatePool(ctx, PoolUpdate{PoolID: "prod", Comment: &comment, VMs: []int{100, 101}, Storage: []string{"local"}, AllowMove: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.get("update").Encode(); got != "allow-move=1&comment=live&poolid=prod&storage=local&vms=100%2C101" {
		t.Errorf("update form = %s", got)
	}
	if err := c.UpdatePool(ctx, PoolUpdate{PoolID: "prod", VMs: []int{100}, Delete: true}); err != nil {
		t.Fatal(err)
	}
	if got := rec.get("update").Encode(); got != "delete=1&poolid=prod&vms=100" {
		t.Errorf("update form = %s", got)
	}

	if err := c.DeletePool(ctx, "prod"); err != nil || rec.get("delete").Get("poolid") != "prod" {
		t.Errorf("DeletePool: %v %v", rec.get("delete"), err)
	}
	if err := c.DeletePool(ctx, "gone"); !IsPoolNotFound(err) {
		t.Errorf("DeletePool(gone) = %v; want pool not found", err)
	}
}

func TestStorageCalls(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	rec := &recorder{}
	f.handle("GET /nodes/{node}/storage", func(w http.ResponseWriter, r *http.Request) {
		rec.record("list", r)
		writeData(w, []map[string]any{
			{"storage": "local", "type": "dir", "content": "iso,vztmpl,import,backup", "active": 1, "enabled": "1", "shared": 0, "total": 100, "used": "40", "avail": 60, "used_fraction": 0.4},
			{"storage": "local-lvm", "type": "lvmthin", "content": "images,rootdir", "active": 1},
		})
	})
	f.handle("GET /nodes/{node}/storage/{storage}/status", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"type": "dir", "content": "iso", "active": 1, "total": "100"})
	})
	f.handle("GET /nodes/{node}/storage/{storage}/content", func(w http.ResponseWriter, r *http.Request) {
		rec.record("content", r)
		writeData(w, []map[string]any{
			{"volid": "local:iso/debian-13.iso", "content": "iso", "format": "iso", "size": 700000000, "ctime": "1700000000"},
			{"volid": "local:import/noble.qcow2", "content": "import", "format": "qcow2", "size": "600000000", "protected": 1,
				"verification": map[string]any{"state": "ok", "upid": "u"}},
		})
	})
	c := f.client()
	ctx := context.Background()

	storages, err := c.Storages(ctx, "pve1", StorageFilter{Content: []string{"iso", "vztmpl"}, Enabled: true, Target: "pve2"})
	if err != nil || len(storages) != 2 {
		t.Fatalf("Storages = %+v, %v", storages, err)
	}
	if got := rec.get("list").Encode(); got != "content=iso%2Cvztmpl&enabled=1&target=pve2" {
		t.Errorf("storage filter = %s", got)
	}
	local := storages[0]
	if !local.HasContent("import") || local.HasContent("images") || !bool(local.Enabled) || local.Used != 40 || local.UsedFraction != 0.4 {
		t.Errorf("local = %+v", local)
	}
	if _, err := c.Storages(ctx, "pve1", StorageFilter{}); err != nil || len(rec.get("list")) != 0 {
		t.Errorf("empty filter sent %v, %v", rec.get("list"), err)
	}

	st, err := c.StorageStatus(ctx, "pve1", "local")
	if err != nil || st.Storage != "local" || st.Total != 100 || !bool(st.Active) {
		t.Errorf("StorageStatus = %+v, %v", st, err)
	}

	volumes, err := c.StorageContent(ctx, "pve1", "local", "import")
	if err != nil || len(volumes) != 2 || rec.get("content").Get("content") != "import" {
		t.Fatalf("StorageContent = %+v, %v", volumes, err)
	}
	if volumes[0].CTime != 1700000000 || volumes[1].Size != 600000000 || !bool(volumes[1].Protected) || volumes[1].Verification.State != "ok" {
		t.Errorf("volumes = %+v", volumes)
	}
}

// pveproxy drops "key=" pairs from a form body, so an empty value travels as
// JSON; everything else stays a form.
func TestEncodeBodyEmptyValueGoesAsJSON(t *testing.T) {
	t.Parallel()
	body, ct, err := encodeBody(url.Values{"poolid": {"prod"}, "comment": {"a b"}})
	if err != nil || ct != "application/x-www-form-urlencoded" || string(body) != "comment=a+b&poolid=prod" {
		t.Fatalf("form: %q %q %v", body, ct, err)
	}
	body, ct, err = encodeBody(url.Values{"poolid": {"prod"}, "comment": {""}})
	if err != nil || ct != "application/json" || string(body) != `{"comment":"","poolid":"prod"}` {
		t.Fatalf("json: %q %q %v", body, ct, err)
	}
}

// pveproxy refuses chunked bodies, so a POST without parameters must go
// out with no body at all rather than an empty chunked one.
func TestPostWithoutParamsIsNotChunked(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var chunked []string
	var lengths []int64
	var mu sync.Mutex
	f.handle("POST /nodes/{node}/qemu/{vmid}/status/start", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		chunked = append(chunked, r.TransferEncoding...)
		lengths = append(lengths, r.ContentLength)
		mu.Unlock()
		writeData(w, "UPID:pve1:00000001:00000001:00000001:qmstart:100:root@pam:")
	})
	c := f.client()
	if _, err := c.GuestStatusAction(context.Background(), "pve1", GuestTypeQemu, 100, QemuStart, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(chunked) != 0 || len(lengths) != 1 || lengths[0] != 0 {
		t.Fatalf("transfer encoding %v, content lengths %v; want no chunking and length 0", chunked, lengths)
	}
}

// A parameter with several values goes as a JSON array (see encodeBody).
func TestEncodeBodyRepeatedKeyGoesAsJSON(t *testing.T) {
	t.Parallel()
	body, ct, err := encodeBody(url.Values{"id": {"gpu"}, "map": {"node=a,path=/x", "node=b,path=/y"}})
	if err != nil || ct != "application/json" || string(body) != `{"id":"gpu","map":["node=a,path=/x","node=b,path=/y"]}` {
		t.Fatalf("json: %q %q %v", body, ct, err)
	}
}
