package pvesim

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

type poolAnswer struct {
	PoolID  string           `json:"poolid"`
	Comment string           `json:"comment"`
	Members []map[string]any `json:"members"`
}

func TestPoolsCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"), vm(101, "pve2", "db"))

	e.call(t, http.MethodPost, "/pools", form("poolid", "prod", "comment", "production")).wantOK(t)
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).
		wantStatus(t, http.StatusInternalServerError, "create pool failed: pool 'prod' already exists")

	var list []poolAnswer
	e.call(t, http.MethodGet, "/pools", nil).decode(t, &list)
	if len(list) != 1 || list[0].PoolID != "prod" || list[0].Comment != "production" || list[0].Members != nil {
		t.Fatalf("list = %+v", list)
	}

	// W48: membership changes through PUT /pools.
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "vms", "100", "storage", "local", "comment", "live")).wantOK(t)
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "vms", "100")).
		wantStatus(t, http.StatusInternalServerError, "update pools failed: VM 100 is already a pool member")
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "storage", "local")).
		wantStatus(t, http.StatusInternalServerError, "update pools failed: Storage 'local' is already a pool member")

	var one []poolAnswer
	e.call(t, http.MethodGet, "/pools", form("poolid", "prod")).decode(t, &one)
	if len(one) != 1 || one[0].Comment != "live" || len(one[0].Members) != 2 {
		t.Fatalf("pool = %+v", one)
	}
	if m := one[0].Members[0]; m["id"] != "qemu/100" || m["name"] != "web" {
		t.Errorf("guest member = %v", m)
	}
	if m := one[0].Members[1]; m["id"] != "storage/pve1/local" || m["type"] != "storage" {
		t.Errorf("storage member = %v", m)
	}
	e.call(t, http.MethodGet, "/pools", form("poolid", "prod", "type", "storage")).decode(t, &one)
	if len(one[0].Members) != 1 {
		t.Errorf("type=storage members = %v", one[0].Members)
	}
	if g, _ := e.sim.Guest(100); g.Pool != "prod" {
		t.Errorf("guest pool = %q", g.Pool)
	}
	if r := resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["pool"] != "prod" {
		t.Errorf("resource pool = %v", r["pool"])
	}

	e.call(t, http.MethodDelete, "/pools", form("poolid", "prod")).
		wantStatus(t, http.StatusInternalServerError, "delete pool failed: pool 'prod' is not empty (contains VM 100)")
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "vms", "100", "delete", "1")).wantOK(t)
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "vms", "100", "delete", "1")).
		wantStatus(t, http.StatusInternalServerError, "update pools failed: VM 100 is not a pool member")
	e.call(t, http.MethodDelete, "/pools", form("poolid", "prod")).
		wantStatus(t, http.StatusInternalServerError, "delete pool failed: pool 'prod' is not empty (contains storage 'local')")
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "storage", "local", "delete", "1")).wantOK(t)
	e.call(t, http.MethodDelete, "/pools", form("poolid", "prod")).wantOK(t)
	e.call(t, http.MethodDelete, "/pools", form("poolid", "prod")).
		wantStatus(t, http.StatusInternalServerError, "delete pool failed: pool 'prod' does not exist")
	e.call(t, http.MethodPut, "/pools", form("poolid", "prod", "comment", "x")).
		wantStatus(t, http.StatusInternalServerError, "update pools failed: pool 'prod' does not exist")
	if _, ok := e.sim.Pool("prod"); ok {
		t.Fatal("pool still exists")
	}
}

// W48: a guest belongs to one pool; moving it needs allow-move.
func TestW48PoolMoveNeedsAllowMove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.call(t, http.MethodPost, "/pools", form("poolid", "a")).wantOK(t)
	e.call(t, http.MethodPost, "/pools", form("poolid", "b")).wantOK(t)
	e.call(t, http.MethodPut, "/pools", form("poolid", "a", "vms", "100")).wantOK(t)

	e.call(t, http.MethodPut, "/pools", form("poolid", "b", "vms", "100")).
		wantStatus(t, http.StatusInternalServerError,
			"update pools failed: VM 100 belongs already to pool 'a' and 'allow-move' is not set")
	e.call(t, http.MethodPut, "/pools", form("poolid", "b", "vms", "100", "allow-move", "1")).wantOK(t)
	pa, _ := e.sim.Pool("a")
	pb, _ := e.sim.Pool("b")
	if pa.VMs[100] || !pb.VMs[100] {
		t.Fatalf("after move: a=%v b=%v", pa.VMs, pb.VMs)
	}
}

// A failing update changes nothing, even the parts before the failure
// (pve-manager PVE/API2/Pool.pm update_pool dies before cfs_write_file).
func TestPoolUpdateIsAtomic(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.call(t, http.MethodPost, "/pools", form("poolid", "a", "comment", "old")).wantOK(t)
	e.call(t, http.MethodPut, "/pools", form("poolid", "a", "vms", "100,100", "comment", "new")).
		wantStatus(t, http.StatusInternalServerError, "update pools failed: VM 100 is already a pool member")
	p, _ := e.sim.Pool("a")
	if p.Comment != "old" || len(p.VMs) != 0 {
		t.Fatalf("pool changed: %+v", p)
	}
}

func TestDeprecatedPoolPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.call(t, http.MethodPost, "/pools", form("poolid", "old")).wantOK(t)
	e.call(t, http.MethodPut, "/pools/old", form("vms", "100", "comment", "c")).wantOK(t)
	var p poolAnswer
	e.call(t, http.MethodGet, "/pools/old", nil).decode(t, &p)
	if p.Comment != "c" || len(p.Members) != 1 || p.PoolID != "" {
		t.Fatalf("pool = %+v", p)
	}
	e.call(t, http.MethodGet, "/pools/nope", nil).wantStatus(t, http.StatusInternalServerError, "pool 'nope' does not exist")
	e.call(t, http.MethodPut, "/pools/old", form("vms", "100", "delete", "1")).wantOK(t)
	e.call(t, http.MethodDelete, "/pools/old", nil).wantOK(t)
}

// pve-manager PVE/API2/Pool.pm create_pool and delete_pool: the texts of a
// missing parent and of a pool that still holds a sub-pool.
func TestNestedPools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "a/b")).
		wantStatus(t, http.StatusInternalServerError, "create pool failed: parent 'a' of pool 'a/b' does not exist")
	e.call(t, http.MethodPost, "/pools", form("poolid", "a")).wantOK(t)
	e.call(t, http.MethodPost, "/pools", form("poolid", "a/b")).wantOK(t)
	e.call(t, http.MethodDelete, "/pools", form("poolid", "a")).
		wantStatus(t, http.StatusInternalServerError, "delete pool failed: pool 'a' is not empty (contains pool 'a/b')")
	a := e.call(t, http.MethodPost, "/pools", form("poolid", "a/b/c/d"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
}

// Permission checks for members run inside lock_user_config, so they come
// back as a wrapped 500.
func TestPoolMemberPermissionInsideLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	addGuests(t, e.sim, vm(100, "pve1", "web"))
	e.call(t, http.MethodPost, "/pools", form("poolid", "a")).wantOK(t)
	e.sim.SetPrivileges(testTokenUser, "Pool.Allocate")
	e.call(t, http.MethodPut, "/pools", form("poolid", "a", "vms", "100")).
		wantStatus(t, http.StatusInternalServerError,
			"update pools failed: 403 Permission check failed (/vms/100, Permissions.Modify|VM.Allocate)")
}

// pveproxy's form decoder treats "comment=" as "comment not given", so a form
// cannot clear a comment; a JSON body with an empty string can.
func TestPoolCommentClearNeedsJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod", "comment", "old")).wantOK(t)

	e.call(t, http.MethodPut, "/pools", url.Values{"poolid": {"prod"}, "comment": {""}}).wantOK(t)
	if p, _ := e.sim.Pool("prod"); p.Comment != "old" {
		t.Fatalf("an empty form value must be ignored, comment = %q", p.Comment)
	}

	req, err := http.NewRequestWithContext(context.Background(), http.MethodPut, e.srv.URL+apiPrefix+"/pools",
		strings.NewReader(`{"poolid":"prod","comment":""}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	e.auth(req)
	e.send(t, req).wantOK(t)
	if p, _ := e.sim.Pool("prod"); p.Comment != "" {
		t.Fatalf("JSON empty comment must clear it, comment = %q", p.Comment)
	}
}

// pve-manager PVE/API2/Pool.pm update_pool (8.4 and 9.x) checks neither that
// a VM nor that a storage exists: user.cfg records the ids it is given, and
// removing them works the same way.
func TestPoolUpdateTakesUnknownMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "a")).wantOK(t)
	e.call(t, http.MethodPut, "/pools", form("poolid", "a", "vms", "555", "storage", "nope")).wantOK(t)
	p, _ := e.sim.Pool("a")
	if !p.VMs[555] || !p.Storages["nope"] {
		t.Fatalf("pool = %+v, want VM 555 and storage nope recorded", p)
	}
	e.call(t, http.MethodPut, "/pools", form("poolid", "a", "vms", "555", "storage", "nope", "delete", "1")).wantOK(t)
	if p, _ := e.sim.Pool("a"); len(p.VMs) != 0 || len(p.Storages) != 0 {
		t.Fatalf("pool = %+v after removing them", p)
	}
}

// pve-manager PVE/API2/Pool.pm index checks Pool.Audit for one pool with
// noerr and ignores the result: GET /pools?poolid= reads the pool without
// the privilege, while the list leaves the pool out.
func TestPoolReadWithoutAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1", "comment", "c")).wantOK(t)
	e.sim.SetPrivileges(testTokenUser, "VM.Audit")
	var list []map[string]any
	e.call(t, http.MethodGet, "/pools", nil).decode(t, &list)
	if len(list) != 0 {
		t.Errorf("list = %v, want no pool without Pool.Audit", list)
	}
	var one []map[string]any
	e.call(t, http.MethodGet, "/pools", form("poolid", "p1")).decode(t, &one)
	if len(one) != 1 || one[0]["comment"] != "c" || one[0]["poolid"] != "p1" {
		t.Errorf("pool = %v", one)
	}
	e.call(t, http.MethodGet, "/pools", form("poolid", "nope")).
		wantStatus(t, http.StatusInternalServerError, "pool 'nope' does not exist")
}
