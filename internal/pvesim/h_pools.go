package pvesim

import (
	"net/http"
	"strconv"
	"strings"
)

// Pool API, PVE 9 shape (PVE/API2/Pool.pm). Changes run inside
// lock_user_config, which prefixes any failure with the operation
// ("create pool failed: ...") and leaves user.cfg untouched.

func (s *Sim) registerPoolRoutes() {
	allocate := permission{path: "/pool/{poolid}", privs: []string{"Pool.Allocate"}}
	s.handle(http.MethodGet, "/pools", route{handle: s.listPools})
	s.handle(http.MethodPost, "/pools", route{perm: allocate, handle: createPool})
	s.handle(http.MethodPut, "/pools", route{perm: allocate, handle: updatePool})
	s.handle(http.MethodDelete, "/pools", route{perm: allocate, handle: deletePool})
	// The deprecated per-pool paths (no nested pools there).
	s.handle(http.MethodGet, "/pools/{poolid}", route{
		perm:   permission{path: "/pool/{poolid}", privs: []string{"Pool.Audit"}},
		handle: s.readPool,
	})
	s.handle(http.MethodPut, "/pools/{poolid}", route{perm: allocate, handle: updatePool})
	s.handle(http.MethodDelete, "/pools/{poolid}", route{perm: allocate, handle: deletePool})
}

// pve-manager PVE/API2/Pool.pm index
func (s *Sim) listPools(c *call) (any, error) {
	cl := c.cluster
	id, one := c.param("poolid")
	if !one {
		out := []map[string]any{}
		for _, pid := range cl.sortedPoolIDs() {
			if !c.can("/pool/"+pid, false, "Pool.Audit") {
				continue
			}
			e := map[string]any{"poolid": pid}
			if cm := cl.Pools[pid].Comment; cm != "" {
				e["comment"] = cm
			}
			out = append(out, e)
		}
		return out, nil
	}
	// pve-manager PVE/API2/Pool.pm index: the Pool.Audit check for one
	// pool is made with noerr and its result is not used, so a pool is
	// read without it; only a missing pool is refused.
	p := cl.Pools[id]
	if p == nil {
		return nil, errorf("pool '%s' does not exist", id)
	}
	e := s.poolDetail(cl, p, c.str("type"))
	e["poolid"] = id
	return []map[string]any{e}, nil
}

// pve-manager PVE/API2/Pool.pm read_pool (index for one pool)
func (s *Sim) readPool(c *call) (any, error) {
	cl := c.cluster
	p := cl.Pools[c.str("poolid")]
	if p == nil {
		return nil, errorf("pool '%s' does not exist", c.str("poolid"))
	}
	return s.poolDetail(cl, p, c.str("type")), nil
}

// poolDetail is a pool with its members: guests that exist (of the wanted
// type), then storages, with the answering node for node-local storage
// (pve-manager PVE/API2/Pool.pm index).
func (s *Sim) poolDetail(cl *Cluster, p *Pool, typ string) map[string]any {
	members := []map[string]any{}
	for _, vmid := range p.sortedVMs() {
		g := cl.Guests[vmid]
		if g == nil || (typ != "" && typ != string(g.Type)) {
			continue
		}
		members = append(members, s.guestEntry(cl, g))
	}
	if typ == "" || typ == "storage" {
		local := cl.answeringNode().Name
		for _, sid := range p.sortedStorages() {
			st := cl.Storage(sid)
			if st == nil {
				continue
			}
			node := local
			if !st.availableOn(node) && len(st.Nodes) > 0 {
				node = st.Nodes[0]
			}
			members = append(members, storageEntry(cl, st, node))
		}
	}
	out := map[string]any{"members": members}
	if p.Comment != "" {
		out["comment"] = p.Comment
	}
	return out
}

// pve-manager PVE/API2/Pool.pm create_pool
func createPool(c *call) (any, error) {
	cl := c.cluster
	id := c.str("poolid")
	fail := func(err error) error { return wrapLockError("create pool failed", err) }
	if cl.Pools[id] != nil {
		return nil, fail(errorf("pool '%s' already exists", id))
	}
	// pve-manager PVE/API2/Pool.pm create_pool. Since 7eadbed6 (9.0.0~12)
	// the new pool's own name, the part after its parent, must start with a
	// letter; PVE 8 takes any name the pve-poolid format allows.
	leaf := id
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		parent := id[:i]
		leaf = id[i+1:]
		if cl.Pools[parent] == nil {
			return nil, fail(errorf("parent '%s' of pool '%s' does not exist", parent, id))
		}
	}
	if c.sim.pve.poolNameStartsWithLetter && !startsWithLetter(leaf) {
		return nil, fail(errorf("pool name must start with a letter"))
	}
	p := &Pool{ID: id, VMs: map[int]bool{}, Storages: map[string]bool{}}
	p.Comment = c.str("comment")
	cl.Pools[id] = p
	return nil, nil
}

// updatePool adds (or with delete=1 removes) guests and storages and sets
// the comment. All changes of one call apply together or not at all
// (pve-manager PVE/API2/Pool.pm update_pool dies inside
// lock_user_config before it writes user.cfg). Like PVE (8.4 and 9.x), it
// does not check that a VM or a storage exists: their ids are only checked
// by the schema's formats, and user.cfg records what it is given.
func updatePool(c *call) (any, error) {
	cl := c.cluster
	fail := func(err error) error { return wrapLockError("update pools failed", err) }
	id := c.str("poolid")
	p := cl.Pools[id]
	if p == nil {
		return nil, fail(errorf("pool '%s' does not exist", id))
	}
	remove := c.boolParam("delete")
	type move struct {
		vmid int
		from string
	}
	var addVMs, dropVMs []int
	var moves []move
	seen := map[int]bool{}
	for _, v := range splitList(c.str("vms")) {
		vmid, _ := strconv.Atoi(v)
		if err := c.checkPermModify("/vms/" + v); err != nil {
			return nil, fail(err)
		}
		switch {
		case remove:
			if !p.VMs[vmid] || seen[vmid] {
				return nil, fail(errorf("VM %d is not a pool member", vmid))
			}
			dropVMs = append(dropVMs, vmid)
		case p.VMs[vmid] || seen[vmid]:
			return nil, fail(errorf("VM %d is already a pool member", vmid))
		default:
			if other := cl.PoolOf(vmid); other != "" {
				if !c.boolParam("allow-move") {
					return nil, fail(errorf("VM %d belongs already to pool '%s' and 'allow-move' is not set", vmid, other))
				}
				if err := c.check("/pool/"+other, false, "Pool.Allocate"); err != nil {
					return nil, fail(err)
				}
				moves = append(moves, move{vmid: vmid, from: other})
			}
			addVMs = append(addVMs, vmid)
		}
		seen[vmid] = true
	}
	var addStores, dropStores []string
	seenStore := map[string]bool{}
	for _, sid := range splitList(c.str("storage")) {
		if err := c.checkPermModify("/storage/" + sid); err != nil {
			return nil, fail(err)
		}
		switch {
		case remove:
			if !p.Storages[sid] || seenStore[sid] {
				return nil, fail(errorf("Storage '%s' is not a pool member", sid))
			}
			dropStores = append(dropStores, sid)
		case p.Storages[sid] || seenStore[sid]:
			return nil, fail(errorf("Storage '%s' is already a pool member", sid))
		default:
			addStores = append(addStores, sid)
		}
		seenStore[sid] = true
	}

	if cm, ok := c.param("comment"); ok {
		p.Comment = cm
	}
	for _, m := range moves {
		cl.removePoolMember(m.from, m.vmid)
	}
	for _, vmid := range addVMs {
		cl.addPoolMember(id, vmid)
	}
	for _, vmid := range dropVMs {
		cl.removePoolMember(id, vmid)
	}
	for _, sid := range addStores {
		p.Storages[sid] = true
	}
	for _, sid := range dropStores {
		delete(p.Storages, sid)
	}
	return nil, nil
}

// deletePool removes an empty pool. Members that no longer exist (destroyed
// guests, removed storages) do not count (pve-manager PVE/API2/Pool.pm
// delete_pool; it checks sub-pools, then guests, then storages).
func deletePool(c *call) (any, error) {
	cl := c.cluster
	fail := func(err error) error { return wrapLockError("delete pool failed", err) }
	id := c.str("poolid")
	p := cl.Pools[id]
	if p == nil {
		return nil, fail(errorf("pool '%s' does not exist", id))
	}
	for _, other := range cl.sortedPoolIDs() {
		if strings.HasPrefix(other, id+"/") {
			return nil, fail(errorf("pool '%s' is not empty (contains pool '%s')", id, other))
		}
	}
	for _, vmid := range p.sortedVMs() {
		if cl.Guests[vmid] != nil {
			return nil, fail(errorf("pool '%s' is not empty (contains VM %d)", id, vmid))
		}
	}
	for _, sid := range p.sortedStorages() {
		if cl.Storage(sid) != nil {
			return nil, fail(errorf("pool '%s' is not empty (contains storage '%s')", id, sid))
		}
	}
	delete(cl.Pools, id)
	return nil, nil
}

// wrapLockError is pve-access-control src/PVE/AccessControl.pm
// lock_user_config's die "$errmsg: $err". The
// interpolation stringifies a PVE::Exception as "CODE text" followed by a
// "NAME: text" line per parameter error (pve-common src/PVE/Exception.pm
// stringify; a Perl hash has no order, sorted here), so even a permission
// failure inside the lock reaches the client as a 500.
func wrapLockError(prefix string, err error) error {
	ae := asAPIError(err)
	msg := ae.message
	if ae.status != http.StatusInternalServerError {
		msg = strconv.Itoa(ae.status) + " " + msg
	}
	for _, name := range sortedKeys(ae.params) {
		msg += name + ": " + ae.params[name] + "\n"
	}
	return &apiError{status: http.StatusInternalServerError, message: prefix + ": " + msg}
}

// startsWithLetter is Pool.pm's m!^[A-Za-z]!.
func startsWithLetter(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}
