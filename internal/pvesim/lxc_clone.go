package pvesim

import (
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Container clone (PVE::API2::LXC clone_vm). Everything but the volume
// copies happens before the task: the source gets "lock: disk", the new
// container's config is written at once with "lock: create" (W11: its
// resources entry is nameless until the task ends), a taken newid is
// refused synchronously (W13).

// ctClonePlan is what clone_vm decides before it forks.
type ctClonePlan struct {
	src, newid      int
	node, target    string
	storage, pool   string
	full            bool
	mounts          map[string]mountPoint
	hostname, descr string
}

func (s *Sim) cloneLXC(c *call) (any, error) {
	cl := c.cluster
	node, vmid, newid := c.str("node"), c.intParam("vmid", 0), c.intParam("newid", 0)
	pool, target, storage := c.str("pool"), c.str("target"), c.str("storage")
	// pve-container src/PVE/API2/LXC.pm clone_vm permissions: an 'or' of
	// /vms/{newid} and /pool/{pool}; when both fail pve-access-control
	// src/PVE/RPCEnvironment.pm exec_api2_perm_check raises a bare
	// raise_perm_exc(). The pool, node and storage checks follow as in
	// clone_vm (check_pool_exist, check_node_exists, storage_check_enabled).
	if !c.can("/vms/"+itoa(newid), false, "VM.Allocate") && (pool == "" || !c.can("/pool/"+pool, false, "VM.Allocate")) {
		return nil, permError("")
	}
	if pool != "" && cl.Pools[pool] == nil {
		return nil, permError("pool '" + pool + "' does not exist")
	}
	if target == node || target == "localhost" {
		target = ""
	}
	if target != "" && cl.Node(target) == nil {
		return nil, errorf("no such cluster node '%s'", target)
	}
	if storage != "" {
		st, err := usableStorage(cl, storage, node)
		if err != nil {
			return nil, err
		}
		if target != "" {
			if _, err := usableStorage(cl, storage, target); err != nil {
				return nil, err
			}
			if !st.Shared {
				return nil, errorf("can't clone to non-shared storage '%s'", storage)
			}
		}
	}
	// pve-container src/PVE/API2/LXC.pm clone_vm: set_lock (pve-guest-common
	// src/PVE/AbstractConfig.pm set_lock: lock_config, 10 s, then
	// load_config and check_lock), then create_and_lock_config for newid
	// (5 s for its flock; pve-cluster src/PVE/Cluster.pm check_vmid_unused).
	if err := c.waitGuestFlock(LXC, vmid, configLockTimeout); err != nil {
		return nil, err
	}
	src, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if err := src.CheckLock(); err != nil {
		return nil, err
	}
	if err := c.waitGuestFlock(LXC, newid, createLockTimeout); err != nil {
		return nil, err
	}
	if old := cl.Guests[newid]; old != nil {
		return nil, errorf("%s %d already exists on node '%s'", old.kind(), newid, old.Node) // W13
	}
	plan := &ctClonePlan{src: vmid, newid: newid, node: node, target: target, storage: storage, pool: pool,
		full: !src.IsTemplate(), hostname: c.str("hostname"), descr: c.str("description")}
	if _, ok := c.param("full"); ok {
		plan.full = c.boolParam("full")
	}
	newConf, err := s.planCTClone(c, src, plan)
	if err != nil {
		return nil, err
	}
	src.Config["lock"] = "disk"
	if err := cl.AddGuest(&Guest{VMID: newid, Node: node, Type: LXC, Config: newConf}); err != nil {
		cl.UnlockGuest(vmid, "disk")
		return nil, err
	}
	// pve-container src/PVE/API2/LXC.pm clone_vm: clone_vmfw_conf once the
	// new config is created and locked, before the worker.
	cloneGuestFirewall(cl, vmid, newid)
	running := src.Status == "running"
	// The worker holds no flock for its run (noLockTasks); as it starts it
	// checks that the source still runs or not as the handler saw it
	// (pve-container src/PVE/API2/LXC.pm clone_vm $realcmd: "unexpected
	// state change", which leaves both config locks in place).
	t := s.startWorker(node, "vzclone", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzclone", itoa(vmid)),
		begin: func(t *Task) error {
			t.Log("creating a clone of container %d with ID %d", vmid, newid)
			src := cl.Guests[vmid]
			if (src != nil && src.Status == "running") != running {
				return errorf("unexpected state change")
			}
			return nil
		},
		work: func(t *Task) error {
			defer cl.UnlockGuest(vmid, "disk")
			if err := s.runCTClone(cl, t, plan); err != nil {
				if g := cl.Guests[newid]; g != nil && g.Lock() == "create" {
					cl.RemoveGuest(newid)
				}
				removeGuestFirewall(cl, newid) // clone_vm $realcmd: remove_vmfw_conf($newid)
				// pve-container src/PVE/API2/LXC.pm clone_vm $realcmd
				return errorf("clone failed: %s", strings.TrimSuffix(asAPIError(err).message, "\n"))
			}
			return nil
		},
	})
	return t.UPID, nil
}

// planCTClone is clone_vm's walk over the source config: every mount point
// must be a volume the caller may allocate on; NICs get new MACs; the rest
// is copied, except unusedN, the template flag and pending changes.
// pve-container src/PVE/API2/LXC.pm clone_vm (the eval after the locks);
// parse_lxc_network (pve-container src/PVE/LXC/Config.pm) sets type=veth.
func (s *Sim) planCTClone(c *call, src *Guest, plan *ctClonePlan) (map[string]string, error) {
	cl := c.cluster
	if plan.storage != "" && !plan.full {
		return nil, errorf("parameter 'storage' not allowed for linked clones")
	}
	// With snapname the clone copies that snapshot's config, without the
	// snapshot keys (pve-container src/PVE/API2/LXC.pm clone_vm).
	snapName, srcCfg := c.str("snapname"), src.Config
	if snapName != "" {
		snap, err := loadSnapshot(src, snapName)
		if err != nil {
			return nil, err
		}
		srcCfg = snap
	}
	shared := true
	plan.mounts = map[string]mountPoint{}
	newConf := map[string]string{}
	for _, opt := range sortedKeys(srcCfg) {
		value := srcCfg[opt]
		switch {
		case pvegrammar.IsLXCUnusedKey(opt) || opt == "lock" || opt == "template":
		case opt == snapParent || opt == snapTime || opt == snapState:
		case isMountKey(opt):
			mp, err := c.cluster.conf.parseMountPoint(opt, value)
			if err != nil {
				return nil, err
			}
			if !mp.isVolume() {
				return nil, errorf("unable to clone mountpoint '%s' (type %s)", opt, mp.kind())
			}
			sid, _, _ := strings.Cut(mp.volume(), ":")
			if plan.storage != "" {
				sid = plan.storage
			}
			st := cl.Storage(sid)
			if st == nil {
				return nil, errorf("storage '%s' does not exist", sid)
			}
			if !st.Shared {
				shared = false
			}
			if err := c.check("/storage/"+sid, false, "Datastore.AllocateSpace"); err != nil {
				return nil, err
			}
			if plan.full && src.Status == "running" && snapName == "" {
				return nil, errorf("Full clone of a running container is only possible from a snapshot")
			}
			if !plan.full && snapName != "" && !volumeCloneFromSnapshot(cl, mp.volume()) {
				return nil, errorf("Linked clone feature for '%s' is not available", mp.volume())
			}
			if !plan.full && snapName == "" && !ctLinkedCloneable(cl, mp.volume()) {
				return nil, errorf("Linked clone feature for '%s' is not available", mp.volume())
			}
			plan.mounts[opt] = mp
		case isCTNetKey(opt):
			n, msg := c.cluster.conf.lxc.PropertyString(opt, value)
			if msg != "" {
				return nil, errorf("%s", strings.TrimSuffix(msg, "\n"))
			}
			n["hwaddr"] = s.randomMAC()
			n["type"] = "veth"
			newConf[opt] = printCTNet(n)
			if err := checkBridgeAccess(c, opt, newConf[opt]); err != nil {
				return nil, err
			}
		default:
			newConf[opt] = value
		}
	}
	// pve-container src/PVE/API2/LXC.pm clone_vm: a target needs shared volumes;
	// the new config carries lock: create, hostname and description.
	if plan.target != "" && !shared {
		return nil, errorf("can't clone CT to node '%s' (CT uses local storage)", plan.target)
	}
	newConf["lock"] = "create"
	if plan.hostname != "" {
		newConf["hostname"] = plan.hostname
	}
	if plan.descr != "" {
		newConf["description"] = plan.descr
	}
	storeDescription(newConf, ctDescriptionReadBack)
	return newConf, nil
}

// ctLinkedCloneable is volume_has_feature('clone') for the raw and subvol
// formats a container volume may have: a base volume on a thin storage.
// pve-storage src/PVE/Storage.pm volume_has_feature with
// valid_target_formats raw and subvol, as clone_vm asks.
func ctLinkedCloneable(cl *Cluster, volid string) bool {
	st, info, err := parseVolume(cl, volid)
	if err != nil || !info.isBase {
		return false
	}
	return st.Type == "lvmthin" || st.Type == "zfspool" || st.Type == "rbd"
}

// runCTClone is the vzclone worker: each mount point's volume is copied
// (full) or cloned from its base (linked), then the container joins its
// pool, loses "lock: create" and moves to the target node if one was
// given.
// pve-container src/PVE/API2/LXC.pm clone_vm $realcmd and $lock_and_reload.
func (s *Sim) runCTClone(cl *Cluster, t *Task, plan *ctClonePlan) error {
	g := cl.Guests[plan.newid]
	if g == nil || g.Lock() != "create" {
		return errorf("Lost 'create' config lock, aborting.")
	}
	src := cl.Guests[plan.src]
	if src == nil {
		return errorf("Configuration file '%s' does not exist", configPath(plan.node, LXC, plan.src))
	}
	var made []*Volume
	for _, opt := range mountKeys(plan.mounts) {
		mp := mountPoint(copyMap(plan.mounts[opt]))
		srcVol := cl.Volume(src.Node, mp.volume())
		if srcVol == nil {
			freeMade(cl, made)
			return errorf("volume '%s' does not exist", mp.volume())
		}
		var v *Volume
		var err error
		if plan.full {
			t.Log("create full clone of mountpoint %s (%s)", opt, mp.volume())
			sid, _, _ := strings.Cut(mp.volume(), ":")
			size := mp.sizeBytes()
			if size == 0 {
				size = srcVol.Size
			}
			v, err = s.allocCTDisk(cl, src.Node, plan.newid, valueOr(plan.storage, sid), size)
		} else {
			t.Log("create linked clone of mount point %s (%s)", opt, mp.volume())
			v, err = s.allocVolume(cl, allocation{storage: srcVol.Storage, node: src.Node, vmid: plan.newid,
				format: "raw", size: srcVol.Size, base: srcVol.VolID, content: "rootdir"})
		}
		if err != nil {
			freeMade(cl, made)
			return err
		}
		made = append(made, v)
		mp["volume"] = v.VolID
		g.Config[opt] = mp.print(opt)
	}
	if plan.pool != "" && cl.Pools[plan.pool] != nil {
		cl.addPoolMember(plan.pool, plan.newid)
	}
	cl.UnlockGuest(plan.newid, "create")
	if plan.target != "" {
		g.Node = plan.target
	}
	cl.conf.writeCTConfig(g)
	return nil
}

func freeMade(cl *Cluster, made []*Volume) {
	for _, v := range made {
		cl.RemoveVolume(v.Node, v.VolID)
	}
}
