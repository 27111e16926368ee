package pvesim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// GuestType is PVE's guest kind, as in "qemu/100".
type GuestType string

// The two guest kinds.
const (
	QEMU GuestType = "qemu"
	LXC  GuestType = "lxc"
)

// Cluster is the simulated state. All access goes through the simulator's
// lock: read it inside Sim.View, change it inside Sim.Update.
type Cluster struct {
	Name     string
	Nodes    []*Node
	Storages []*Storage
	Guests   map[int]*Guest
	Pools    map[string]*Pool
	// Access is user.cfg and domains.cfg (access_model.go).
	Access *Access
	// Firewall is the firewall configuration (firewall_model.go).
	Firewall *FirewallState
	// HA is the HA stack's configuration and state (ha_model.go).
	HA *HAState
	// Replication is replication.cfg and the jobs' run states
	// (replication_model.go).
	Replication *ReplicationState
	// BackupJobs are jobs.cfg's vzdump jobs (backup_jobs.go).
	BackupJobs *BackupJobs
	// Mappings are the hardware mapping files (mapping.go).
	Mappings *MappingState
	// SDN is /etc/pve/sdn: the staged files and the running config (sdn_model.go).
	SDN *SDNState

	volumes map[volumeKey]*Volume
	tasks   []*Task

	// conf is the served release's guest config schema, which parses and
	// checks every config the cluster stores.
	conf *guestSchema
}

// Node is one cluster member.
type Node struct {
	Name     string
	ID       int // corosync node id
	IP       string
	Online   bool
	MaxCPU   int
	MaxMem   int64
	MemUsed  int64
	CPU      float64 // utilisation, 0..1
	RootSize int64
	RootUsed int64
	BootTime time.Time
}

// Storage is one entry of storage.cfg. A storage that is not shared has an
// independent instance on every node it is available on; Capacity applies to
// each instance.
type Storage struct {
	ID       string
	Type     string // dir, lvmthin, nfs, ...
	Content  []string
	Shared   bool
	Nodes    []string // nil: available on every node
	Disabled bool
	Capacity int64
	Config   map[string]string // type-specific keys: path, vgname, server, ...
	Secrets  map[string]string // sensitive values kept under /etc/pve/priv, never returned (storage_config.go)
}

// Volume is a stored object with an identity: its volid on one storage
// instance. Node is empty for volumes on shared storage.
type Volume struct {
	VolID   string // "local:iso/debian-13-netinst.iso"
	Storage string
	Node    string
	Content string // iso, vztmpl, import, images, rootdir, backup, snippets
	Format  string // iso, tzst, qcow2, raw, subvol, ...
	Size    int64
	// VirtualSize is the size of the disk an image holds, as its header
	// gives it (qemu-img info's virtual-size), for an image whose header
	// differs from its file size; 0 means the file size.
	VirtualSize int64
	Owner       int // owning vmid, 0 if none
	CTime       int64
	// Base is the volid of the base volume a linked clone is backed by,
	// empty for an independent volume.
	Base string
	// Digests are a file's checksums by algorithm (md5, sha1, sha224,
	// sha256, sha384, sha512, lowercase hex), known for files that came
	// through upload or download-url. Data holds the bytes themselves when
	// they are small; larger files keep only their size and digests.
	Digests map[string]string
	Data    []byte
	// Seed is set for an uploaded .iso small enough to be a cloud-init
	// seed: what it holds, or why it is no ISO 9660 image (W32).
	Seed *SeedCheck
	// BackupConfig is the guest config file a backup archive embeds
	// (qemu-server.conf or pct.conf), what extractconfig returns.
	BackupConfig string
	// Snapshots are the volume's own snapshots, oldest first, as the
	// storage keeps them (volume_snapshot); never changed in place, so a
	// copied Volume keeps its list.
	Snapshots []VolumeSnapshot
}

// VolumeSnapshot is one storage-level snapshot of a volume: its name and
// the volume's size when it was taken (a rollback restores it).
type VolumeSnapshot struct {
	Name string
	Size int64
}

// Guest is a VM or container. Config holds the keys of its config file, so
// "lock", "template", "name" (qemu) and "hostname" (lxc) live there, as they
// do on PVE.
type Guest struct {
	VMID   int
	Node   string
	Type   GuestType
	Config map[string]string
	// Pending holds changes PVE could not apply yet (the [PENDING] section
	// of the config file); its "delete" key lists pending deletions, a
	// forced one prefixed with "!".
	Pending map[string]string
	Status  string // running, stopped
	// Paused is a running guest whose CPUs are stopped (qmpstatus paused,
	// W18).
	Paused bool
	// Started is when the guest was last started, for its uptime; zero for
	// a guest added as running.
	Started time.Time
	Pool    string // kept in step with the pools' member lists
	// PasswordHash and AuthorizedKeys are what a container's create wrote
	// into the guest: root's password as a crypt hash and root's
	// authorized_keys. PVE keeps neither in the config.
	PasswordHash   string
	AuthorizedKeys string
	// Checkpointed is a container suspended to a checkpoint: stopped, to be
	// resumed from its saved state.
	Checkpointed bool
	// Snapshots are the config file's [snapname] sections: each holds the
	// config keys copied at snapshot time plus PVE's own keys (parent,
	// snaptime, description, vmstate, snapstate). The current config's
	// "parent" key lives in Config, as on PVE.
	Snapshots map[string]map[string]string
}

// Pool is a resource pool of user.cfg.
type Pool struct {
	ID       string
	Comment  string
	VMs      map[int]bool
	Storages map[string]bool
}

type volumeKey struct {
	node  string
	volid string
}

// Name is the guest's name: "name" for VMs, "hostname" for containers.
func (g *Guest) Name() string {
	if g.Type == LXC {
		return g.Config["hostname"]
	}
	return g.Config["name"]
}

// Lock is the guest's config lock ("clone", "backup", ...), empty if none.
func (g *Guest) Lock() string { return g.Config["lock"] }

// IsTemplate tells whether the guest is a template.
func (g *Guest) IsTemplate() bool { return g.Config["template"] == "1" }

// kind is the word PVE uses for the guest in messages (guest_type()).
func (g *Guest) kind() string {
	if g.Type == LXC {
		return "CT"
	}
	return "VM"
}

// CheckLock fails like PVE's check_lock when the guest carries a config
// lock (W10): a config write on a locked guest is "500 VM is locked (clone)"
// ("CT" for containers).
// pve-guest-common src/PVE/AbstractConfig.pm check_lock
func (g *Guest) CheckLock() error {
	if lock := g.Lock(); lock != "" {
		return errorf("%s is locked (%s)", g.kind(), lock)
	}
	return nil
}

// ConfigPath is the guest's config file as PVE names it in messages (W12).
func (g *Guest) ConfigPath() string {
	return configPath(g.Node, g.Type, g.VMID)
}

func configPath(node string, typ GuestType, vmid int) string {
	dir := "qemu-server"
	if typ == LXC {
		dir = "lxc"
	}
	return fmt.Sprintf("nodes/%s/%s/%d.conf", node, dir, vmid)
}

func (g *Guest) clone() Guest {
	out := *g
	out.Config = copyMap(g.Config)
	if g.Pending != nil {
		out.Pending = copyMap(g.Pending)
	}
	if g.Snapshots != nil {
		out.Snapshots = make(map[string]map[string]string, len(g.Snapshots))
		for name, snap := range g.Snapshots {
			out.Snapshots[name] = copyMap(snap)
		}
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (p *Pool) clone() Pool {
	out := Pool{ID: p.ID, Comment: p.Comment, VMs: map[int]bool{}, Storages: map[string]bool{}}
	for id := range p.VMs {
		out.VMs[id] = true
	}
	for id := range p.Storages {
		out.Storages[id] = true
	}
	return out
}

// sortedVMs lists the pool's member vmids in ascending order.
func (p *Pool) sortedVMs() []int {
	out := make([]int, 0, len(p.VMs))
	for id := range p.VMs {
		out = append(out, id)
	}
	sort.Ints(out)
	return out
}

func (p *Pool) sortedStorages() []string {
	out := make([]string, 0, len(p.Storages))
	for id := range p.Storages {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Node returns the named node, or nil.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Storage returns the storage with that id, or nil.
func (c *Cluster) Storage(id string) *Storage {
	for _, s := range c.Storages {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// availableOn tells whether the storage can be used on the node.
func (s *Storage) availableOn(node string) bool {
	if s.Nodes == nil {
		return true
	}
	for _, n := range s.Nodes {
		if n == node {
			return true
		}
	}
	return false
}

func (s *Storage) hasContent(content string) bool {
	for _, c := range s.Content {
		if c == content {
			return true
		}
	}
	return false
}

// contentString is PVE's content_hash_to_string: sorted, comma separated.
func (s *Storage) contentString() string {
	c := append([]string(nil), s.Content...)
	sort.Strings(c)
	return strings.Join(c, ",")
}

// instanceNode is the node key under which a storage's volumes live: empty
// for shared storage, the node otherwise.
func (s *Storage) instanceNode(node string) string {
	if s.Shared {
		return ""
	}
	return node
}

// Volume returns the volume with that volid as seen from node, or nil.
func (c *Cluster) Volume(node, volid string) *Volume {
	storeID, _, _ := strings.Cut(volid, ":")
	st := c.Storage(storeID)
	if st == nil {
		return nil
	}
	return c.volumes[volumeKey{node: st.instanceNode(node), volid: volid}]
}

// AddVolume stores a volume; an existing volume with the same identity is
// replaced (PVE overwrites an upload of the same name silently, W45).
func (c *Cluster) AddVolume(v *Volume) error {
	st := c.Storage(v.Storage)
	if st == nil {
		return errorf("storage '%s' does not exist", v.Storage) // not an API answer: a guard for Go callers (seeding, AddVolume)
	}
	if !strings.HasPrefix(v.VolID, v.Storage+":") {
		return fmt.Errorf("volume id %q is not on storage %q", v.VolID, v.Storage)
	}
	if st.Shared {
		v.Node = ""
	} else if c.Node(v.Node) == nil {
		return fmt.Errorf("volume %q: no such node %q", v.VolID, v.Node)
	}
	c.volumes[volumeKey{node: v.Node, volid: v.VolID}] = v
	return nil
}

// RemoveVolume deletes a volume; it reports whether it existed.
func (c *Cluster) RemoveVolume(node, volid string) bool {
	storeID, _, _ := strings.Cut(volid, ":")
	st := c.Storage(storeID)
	if st == nil {
		return false
	}
	key := volumeKey{node: st.instanceNode(node), volid: volid}
	_, ok := c.volumes[key]
	delete(c.volumes, key)
	return ok
}

// VolumesOn lists the volumes of one storage instance as seen from node,
// sorted by volid like PVE's volume_list.
func (c *Cluster) VolumesOn(storage, node string) []*Volume {
	st := c.Storage(storage)
	if st == nil {
		return nil
	}
	want := st.instanceNode(node)
	var out []*Volume
	for k, v := range c.volumes {
		if v.Storage == storage && k.node == want {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return strings.ToLower(out[i].VolID) < strings.ToLower(out[j].VolID)
	})
	return out
}

// used is the space taken on one storage instance.
func (c *Cluster) used(st *Storage, node string) int64 {
	var sum int64
	for _, v := range c.VolumesOn(st.ID, node) {
		sum += v.Size
	}
	return sum
}

// PoolOf is the pool a vmid belongs to (user.cfg), or "".
func (c *Cluster) PoolOf(vmid int) string {
	for id, p := range c.Pools {
		if p.VMs[vmid] {
			return id
		}
	}
	return ""
}

// AddGuest registers a guest. Its vmid must be free cluster-wide, its node
// must exist; a Pool names an existing pool the guest joins.
func (c *Cluster) AddGuest(g *Guest) error {
	if g.VMID < 100 || g.VMID > 999999999 {
		return fmt.Errorf("invalid vmid %d", g.VMID)
	}
	if g.Type != QEMU && g.Type != LXC {
		return fmt.Errorf("invalid guest type %q", g.Type)
	}
	if c.Node(g.Node) == nil {
		return fmt.Errorf("no such node %q", g.Node)
	}
	if old := c.Guests[g.VMID]; old != nil {
		return errorf("%s %d already exists on node '%s'", old.kind(), g.VMID, old.Node) // pve-cluster src/PVE/Cluster.pm check_vmid_unused
	}
	if g.Config == nil {
		g.Config = map[string]string{}
	}
	if g.Status == "" {
		g.Status = "stopped"
	}
	if g.Pool != "" {
		p := c.Pools[g.Pool]
		if p == nil {
			return errorf("pool '%s' does not exist", g.Pool) // not an API answer: a guard for Go callers (seeding); the API checks check_pool_exist first
		}
		if other := c.PoolOf(g.VMID); other != "" && other != g.Pool {
			delete(c.Pools[other].VMs, g.VMID)
		}
		p.VMs[g.VMID] = true
	} else {
		// A stale user.cfg entry of a destroyed guest still applies.
		g.Pool = c.PoolOf(g.VMID)
	}
	c.Guests[g.VMID] = g
	return nil
}

// RemoveGuest drops a guest. Pool membership stays in user.cfg, as on PVE,
// until the pool is updated.
func (c *Cluster) RemoveGuest(vmid int) bool {
	_, ok := c.Guests[vmid]
	delete(c.Guests, vmid)
	return ok
}

// SetLock sets (or with "" clears) a guest's config lock without checking
// an existing one; LockGuest is the checked form handlers use.
func (c *Cluster) SetLock(vmid int, lock string) error {
	g := c.Guests[vmid]
	if g == nil {
		return fmt.Errorf("no guest %d", vmid)
	}
	if lock == "" {
		delete(g.Config, "lock")
	} else {
		g.Config["lock"] = lock
	}
	return nil
}

// LockGuest takes a config lock the way a PVE operation does before it
// forks its task: it fails with "VM is locked (X)" when another lock is set.
func (c *Cluster) LockGuest(vmid int, lock string) error {
	g := c.Guests[vmid]
	if g == nil {
		return fmt.Errorf("no guest %d", vmid)
	}
	if err := g.CheckLock(); err != nil {
		return err
	}
	g.Config["lock"] = lock
	return nil
}

// UnlockGuest releases the given lock; a different lock stays.
func (c *Cluster) UnlockGuest(vmid int, lock string) {
	if g := c.Guests[vmid]; g != nil && g.Config["lock"] == lock {
		delete(g.Config, "lock")
	}
}

// addPoolMember and removePoolMember keep Pool.VMs and Guest.Pool in step.
func (c *Cluster) addPoolMember(pool string, vmid int) {
	c.Pools[pool].VMs[vmid] = true
	if g := c.Guests[vmid]; g != nil {
		g.Pool = pool
	}
}

func (c *Cluster) removePoolMember(pool string, vmid int) {
	delete(c.Pools[pool].VMs, vmid)
	if g := c.Guests[vmid]; g != nil && g.Pool == pool {
		g.Pool = ""
	}
}

// sortedGuests lists guests by vmid.
func (c *Cluster) sortedGuests() []*Guest {
	out := make([]*Guest, 0, len(c.Guests))
	for _, g := range c.Guests {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].VMID < out[j].VMID })
	return out
}

func (c *Cluster) sortedPoolIDs() []string {
	out := make([]string, 0, len(c.Pools))
	for id := range c.Pools {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
