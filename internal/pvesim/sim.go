// Package pvesim is an in-memory Proxmox VE cluster served over PVE's REST
// API (/api2/json). It is a witness for the provider's tests: every request
// is checked against PVE's own schema and answered with PVE's statuses,
// texts and shapes, whoever the client is.
package pvesim

import (
	"crypto/rand"
	"fmt"
	mathrand "math/rand"
	"net/http"
	"sync"
	"time"
)

// Sim is one simulated cluster. It is safe for concurrent use.
type Sim struct {
	opts Options
	// pve is the PVE release served (Options.PVEVersion).
	pve pveProfile

	// mu guards the model (cluster, tasks). Handlers run with it held, so a
	// request sees and changes the cluster atomically, like PVE's config
	// file locks make each API call atomic.
	mu      sync.Mutex
	cluster *Cluster
	pidNext int
	// ids draws the identities PVE makes up (MAC addresses, UUIDs); it is
	// seeded so a run is reproducible, and guarded by mu.
	ids *mathrand.Rand

	// armed is the task failure drawn for the handler running now.
	armed *armedTaskFault

	// stats is what pvestatd last reported per guest, taken at statsAt;
	// statsEpoch is the start of its cycle. Guarded by mu.
	stats      map[int]map[string]any
	statsAt    time.Time
	statsEpoch time.Time

	routes map[string]*route // "METHOD /path/{template}"

	auth authState

	// hooksMu guards the test hooks: counters, log, faults, latency,
	// privileges and the seeded random source.
	hooksMu   sync.Mutex
	counts    map[string]int
	requests  []RequestRecord
	faults    []*faultRule
	latency   map[string]time.Duration
	globalLat time.Duration
	// restrictions are the SetPrivileges test hooks, by identity.
	restrictions map[string]map[string]bool
	// directories are the SetDirectory test hooks, by realm.
	directories map[string]*directory
	rng         *mathrand.Rand

	logMu sync.Mutex
}

// New builds a simulator from opts.
func New(opts Options) (*Sim, error) {
	if opts.Nodes == 0 {
		opts.Nodes = defaultNodes
	}
	if opts.Nodes < 1 || opts.Nodes > 32 {
		return nil, fmt.Errorf("nodes: %d out of range 1..32", opts.Nodes)
	}
	if opts.TicketLifetime == 0 {
		opts.TicketLifetime = defaultTicketLifetime
	}
	if opts.StatsInterval == 0 {
		opts.StatsInterval = defaultStatsInterval
	}
	if opts.ReplicationInterval == 0 {
		opts.ReplicationInterval = defaultReplicationInterval
	}
	profile, err := lookupProfile(opts.PVEVersion)
	if err != nil {
		return nil, err
	}
	s := &Sim{
		opts:         opts,
		pve:          profile,
		counts:       map[string]int{},
		latency:      map[string]time.Duration{},
		globalLat:    opts.Latency,
		restrictions: map[string]map[string]bool{},
		// A seeded source makes fault rates reproducible.
		rng: mathrand.New(mathrand.NewSource(opts.Seed)),
		ids: mathrand.New(mathrand.NewSource(opts.Seed ^ 0x5eed)),
	}
	if err := s.auth.init(opts); err != nil {
		return nil, err
	}
	for id, privs := range opts.Privileges {
		s.setPrivileges(id, privs)
	}
	// Task PIDs start at a seed-dependent, plausible value.
	s.pidNext = 0x1000 + int(uint64(opts.Seed)%0x8000)
	s.cluster = seedCluster(opts.Nodes, s.now(), profile.conf)
	// pve-ha-manager src/PVE/HA/Config.pm have_groups_been_migrated: a
	// fresh PVE 9 cluster has no groups.cfg, which counts as migrated.
	s.cluster.HA.GroupsMigrated = profile.release != "8.4"
	if opts.ZFSStorage {
		s.cluster.Storages = append(s.cluster.Storages, zfsStorage())
	}
	s.cluster.Access.seedIdentities(&s.auth)
	// pvestatd has been running: the seeded guests are reported.
	s.statsEpoch = s.now()
	s.takeStats(s.statsEpoch)
	s.routes = map[string]*route{}
	s.registerRoutes()
	return s, nil
}

func (s *Sim) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// Handler serves PVE's API under /api2/json.
func (s *Sim) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

// View runs fn with the cluster locked for reading. fn must not keep
// references to the model after it returns, nor change it.
func (s *Sim) View(fn func(c *Cluster)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	fn(s.cluster)
}

// Update runs fn with the cluster locked for writing, for test setup and
// for state changes "outside the API".
func (s *Sim) Update(fn func(c *Cluster) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	return fn(s.cluster)
}

// AddGuest registers a guest (see Cluster.AddGuest).
func (s *Sim) AddGuest(g Guest) error {
	return s.Update(func(c *Cluster) error {
		cp := g.clone()
		if err := c.AddGuest(&cp); err != nil {
			return err
		}
		// A guest set up outside the API stands for one that existed
		// before: pvestatd has reported it already.
		s.reportGuest(&cp, s.now())
		return nil
	})
}

// ReportStats runs a pvestatd cycle now: /cluster/resources then shows
// every guest as it is. For tests that look at the listing "after the next
// cycle" without waiting for it.
func (s *Sim) ReportStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	s.takeStats(s.now())
}

// SetStatsInterval restarts pvestatd's cycle now with interval d
// (negative: live). With a long interval and ReportStats a test decides
// when /cluster/resources catches up.
func (s *Sim) SetStatsInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleTasksLocked()
	s.opts.StatsInterval = d
	s.statsEpoch = s.now()
	s.statsAt = s.statsEpoch
}

// SetLock sets or (with "") clears a guest's config lock.
func (s *Sim) SetLock(vmid int, lock string) error {
	return s.Update(func(c *Cluster) error { return c.SetLock(vmid, lock) })
}

// Guest returns a copy of the guest with that vmid.
func (s *Sim) Guest(vmid int) (Guest, bool) {
	var out Guest
	var ok bool
	s.View(func(c *Cluster) {
		if g := c.Guests[vmid]; g != nil {
			out, ok = g.clone(), true
		}
	})
	return out, ok
}

// Pool returns a copy of the pool with that id.
func (s *Sim) Pool(id string) (Pool, bool) {
	var out Pool
	var ok bool
	s.View(func(c *Cluster) {
		if p := c.Pools[id]; p != nil {
			out, ok = p.clone(), true
		}
	})
	return out, ok
}

// Volumes returns copies of the volumes on a storage, all instances of a
// node-local storage included, sorted by node and volid.
func (s *Sim) Volumes(storage string) []Volume {
	var out []Volume
	s.View(func(c *Cluster) {
		st := c.Storage(storage)
		if st == nil {
			return
		}
		nodes := []string{""}
		if !st.Shared {
			nodes = nodes[:0]
			for _, n := range c.Nodes {
				nodes = append(nodes, n.Name)
			}
		}
		for _, n := range nodes {
			for _, v := range c.VolumesOn(storage, n) {
				out = append(out, *v)
			}
		}
	})
	return out
}

// randomBytes fills b from the system's secure source; a failure there is
// not something a simulator can recover from.
func randomBytes(b []byte) {
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("pvesim: random source failed: %v", err))
	}
}
