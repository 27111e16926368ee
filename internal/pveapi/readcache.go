package pveapi

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// A Client lives as long as one provider configuration, which is one
// Terraform command (Terraform starts the provider, and configures it,
// for each command, and for each of its plan and apply passes). Within
// that span some answers are the same for every guest that asks, and a
// plan asks once per guest: the pool a guest declares, the cluster's node
// list. The Client keeps those answers for its own life, so a plan of N
// guests asks once per pool and once for the nodes, while a change made
// outside Terraform before the command is still seen, since the next
// command starts empty.

// memo keeps one answer per key for as long as nothing drops it. The
// first caller for a key asks PVE; callers that come while it asks wait
// for its answer instead of asking too (Terraform refreshes up to ten
// resources at once, and they would all miss together). Failed answers
// are not kept. The zero value is ready to use and safe for concurrent
// use.
type memo[V any] struct {
	mu      sync.Mutex
	entries map[string]*memoEntry[V]
	// generation counts dropAll calls, so an answer asked for before a
	// drop is never stored after it (seed).
	generation uint64
}

type memoEntry[V any] struct {
	done  chan struct{}
	value V
	err   error
}

// get returns the kept answer for key, or the answer of fetch, which it
// keeps. An answer asked for before a dropAll is given only to the
// callers that were already waiting for it; a caller that comes after the
// drop asks again.
func (m *memo[V]) get(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	m.mu.Lock()
	if e, ok := m.entries[key]; ok {
		m.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
		if e.err != nil {
			// The other caller's failure may be its own (its context
			// ended): this caller asks for itself, without keeping.
			return fetch(ctx)
		}
		return e.value, nil
	}
	e := &memoEntry[V]{done: make(chan struct{})}
	if m.entries == nil {
		m.entries = map[string]*memoEntry[V]{}
	}
	m.entries[key] = e
	m.mu.Unlock()

	defer close(e.done)
	e.value, e.err = fetch(ctx)
	if e.err != nil {
		m.mu.Lock()
		if m.entries[key] == e {
			delete(m.entries, key)
		}
		m.mu.Unlock()
	}
	return e.value, e.err
}

// currentGeneration is read before asking PVE for an answer that seed
// may store.
func (m *memo[V]) currentGeneration() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.generation
}

// seed keeps an answer obtained outside get, unless something was
// dropped since it was asked for (generation is from currentGeneration
// before the request) or another caller is asking for the same key.
func (m *memo[V]) seed(key string, value V, generation uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.generation != generation {
		return
	}
	if e, ok := m.entries[key]; ok {
		select {
		case <-e.done:
		default:
			return
		}
	}
	e := &memoEntry[V]{done: make(chan struct{}), value: value}
	close(e.done)
	if m.entries == nil {
		m.entries = map[string]*memoEntry[V]{}
	}
	m.entries[key] = e
}

// dropAll forgets every answer; the next get asks PVE again.
func (m *memo[V]) dropAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = nil
	m.generation++
}

// PoolGuests is what a pool's answer says about the guests in it.
type PoolGuests struct {
	// Exists is false when PVE said the pool does not exist.
	Exists bool
	vmids  map[int]struct{}
}

// Has reports whether the pool lists the VM or container vmid.
func (p PoolGuests) Has(vmid int) bool {
	_, ok := p.vmids[vmid]
	return ok
}

func poolGuestsOf(pool *Pool, found bool) PoolGuests {
	if !found {
		return PoolGuests{}
	}
	out := PoolGuests{Exists: true, vmids: map[int]struct{}{}}
	for _, m := range pool.Members {
		if m.Type == GuestTypeQemu || m.Type == GuestTypeLXC {
			out.vmids[m.VMID.Int()] = struct{}{}
		}
	}
	return out
}

// PoolGuests tells whether a pool exists and which guests it lists, asking
// PVE once per pool for the life of the Client. Every write the Client
// sends, and every task it sees end, forgets what it kept (noteWrite):
// membership changes with pool updates, and inside the tasks that create,
// restore, clone or destroy a guest, and telling exactly which write moves
// which guest would repeat PVE's own rules. A plan writes nothing, so there
// the answers last the whole command. GetPool always asks PVE (and keeps
// what it hears).
func (c *Client) PoolGuests(ctx context.Context, poolid string) (PoolGuests, error) {
	return c.pools.get(ctx, poolid, func(ctx context.Context) (PoolGuests, error) {
		pool, found, err := c.getPoolAndKeepExistence(ctx, poolid)
		if err != nil {
			return PoolGuests{}, err
		}
		return poolGuestsOf(pool, found), nil
	})
}

// PoolExists tells whether a pool exists, asking PVE once per pool until
// the Client writes to /pools: pools are created and deleted only there
// (pve-manager, PVE/API2/Pool.pm, create_pool and delete_pool, and their
// older /pools/{poolid} forms), so guest writes, which change
// what a pool lists, leave the answer standing. An apply that creates
// guests in a pool checks the pool once, not once per guest.
func (c *Client) PoolExists(ctx context.Context, poolid string) (bool, error) {
	return c.poolExistence.get(ctx, poolid, func(ctx context.Context) (bool, error) {
		generation := c.pools.currentGeneration()
		pool, found, err := c.getPool(ctx, poolid)
		if err != nil {
			return false, err
		}
		c.pools.seed(poolid, poolGuestsOf(pool, found), generation)
		return found, nil
	})
}

// getPoolAndKeepExistence is getPool, keeping whether the pool exists for
// PoolExists.
func (c *Client) getPoolAndKeepExistence(ctx context.Context, poolid string) (*Pool, bool, error) {
	generation := c.poolExistence.currentGeneration()
	pool, found, err := c.getPool(ctx, poolid)
	if err == nil {
		c.poolExistence.seed(poolid, found, generation)
	}
	return pool, found, err
}

// NodeNames lists the cluster's node names, asking PVE once for the life
// of the Client: nodes do not join or leave a cluster within one Terraform
// command. It says nothing of whether a node is online; Nodes does, and
// always asks.
func (c *Client) NodeNames(ctx context.Context) ([]string, error) {
	names, err := c.nodeNames.get(ctx, "", func(ctx context.Context) ([]string, error) {
		nodes, err := c.Nodes(ctx)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Node
		}
		return names, nil
	})
	return slices.Clone(names), err
}

// LocateGuest finds a VM or container by VMID like FindGuest, from one
// cluster listing shared by every caller until the Client's next write or
// task end: objects that only name a guest (its firewall) look it up once
// per command, not once each. A VMID the kept listing lacks is asked for
// again, so a guest made since the listing is found.
func (c *Client) LocateGuest(ctx context.Context, vmid int) (guest *Resource, found bool, err error) {
	generation := c.guests.currentGeneration()
	index, err := c.guests.get(ctx, "", func(ctx context.Context) (map[int]Resource, error) {
		return c.guestIndex(ctx)
	})
	if err != nil {
		return nil, false, err
	}
	entry, ok := index[vmid]
	if !ok {
		index, err = c.guestIndex(ctx)
		if err != nil {
			return nil, false, err
		}
		c.guests.seed("", index, generation)
		if entry, ok = index[vmid]; !ok {
			return nil, false, nil
		}
	}
	return &entry, true, nil
}

func (c *Client) guestIndex(ctx context.Context) (map[int]Resource, error) {
	resources, err := c.ClusterResources(ctx, "vm")
	if err != nil {
		return nil, err
	}
	index := make(map[int]Resource, len(resources))
	for _, r := range resources {
		if r.IsGuest() {
			index[r.VMID.Int()] = r
		}
	}
	return index, nil
}

// noteWrite forgets the kept pool memberships after a write request or
// the end of a task (path ""), and whether pools exist after a write to
// /pools (see PoolGuests, PoolExists). It is called once the write has
// returned, whatever its outcome: a write that failed may still have
// reached PVE.
func (c *Client) noteWrite(path string) {
	c.pools.dropAll()
	c.guests.dropAll()
	if path == "/pools" || strings.HasPrefix(path, "/pools/") {
		c.poolExistence.dropAll()
	}
}
