package pvesim

import (
	"strings"
)

// Clone (qemu-server src/PVE/API2/Qemu.pm clone_vm, QemuServer::clone_disk).
// The handler runs load_and_check and forks; the worker takes the flocks,
// runs load_and_check again, writes the "lock: clone" placeholder and
// copies the disks, holding the flocks until it ends.

// cloneOntoTakenID is clone_vm onto a vmid that the checks before the
// fork do not see as taken: a guest on another node, or a container on
// this one, has no VM config file here. The worker prints its first line,
// then writing the temporary config fails in the cluster file system,
// which refuses a vmid in use, and the task fails with that error
// (qemu-server src/PVE/API2/Qemu.pm clone_vm, $clonefn; pve-common
// src/PVE/File.pm file_set_contents).
func (s *Sim) cloneOntoTakenID(c *call, vmid, newid int) string {
	node := c.str("node")
	t := s.startTask(node, "qmclone", itoa(vmid), c.user, func(t *Task) error {
		t.Log("creating a clone of VM %d with ID %d", vmid, newid)
		return errorf("close (rename) atomic file '/etc/pve/%s' failed: File exists", configPath(node, QEMU, newid))
	})
	return t.UPID
}

// clonePlan is what clone_vm's load_and_check decides before it forks.
type clonePlan struct {
	newConf map[string]string
	drives  []string // slots whose volume is cloned, sorted
	full    map[string]bool
	srcConf map[string]string
}

func (s *Sim) cloneQemu(c *call) (any, error) {
	cl := c.cluster
	node, vmid, newid := c.str("node"), c.intParam("vmid", 0), c.intParam("newid", 0)
	pool, target := c.str("pool"), c.str("target")
	// qemu-server src/PVE/API2/Qemu.pm clone_vm permissions: an 'or' of
	// /vms/{newid} and /pool/{pool}; when both fail pve-access-control
	// src/PVE/RPCEnvironment.pm exec_api2_perm_check raises a bare
	// raise_perm_exc().
	if !c.can("/vms/"+itoa(newid), false, "VM.Allocate") && (pool == "" || !c.can("/pool/"+pool, false, "VM.Allocate")) {
		return nil, permError("")
	}
	if target == node || target == "localhost" {
		target = ""
	}
	src, err := assertQemuOnNode(c) // check_running comes first (W14)
	if err != nil {
		return nil, err
	}
	// load_and_check runs once before the fork ("early checks before
	// forking/locking") and again in the worker under the locks.
	if _, err := s.planClone(c, src, newid, target); err != nil {
		return nil, err
	}
	if cl.Guests[newid] != nil {
		return s.cloneOntoTakenID(c, vmid, newid), nil
	}
	storage, format := c.str("storage"), c.str("format")
	name, description := c.str("name"), c.str("description")
	// The worker takes the source's flock, exclusive when the source runs
	// and shared otherwise (so clones of a template run side by side), then
	// the target's, each waiting 1 s; it holds both until it ends.
	locks := []flock{
		{file: GuestLockFile(QEMU, vmid), shared: src.Status != "running", timeout: workerLockTimeout},
		{file: GuestLockFile(QEMU, newid), timeout: workerLockTimeout},
	}
	var plan *clonePlan
	t := s.startWorker(node, "qmclone", itoa(vmid), c.user, workerSpec{locks: locks,
		begin: func(*Task) error {
			var err error
			if src, err = lookupQemu(cl, node, vmid); err != nil {
				return err
			}
			if plan, err = s.planClone(c, src, newid, target); err != nil {
				return err
			}
			// The temporary config holding only "lock: clone" (W11:
			// nameless while the task runs), written before the disks are
			// copied.
			if err := cl.AddGuest(&Guest{VMID: newid, Node: node, Type: QEMU, Config: map[string]string{"lock": "clone"}}); err != nil {
				return err
			}
			// qemu-server src/PVE/API2/Qemu.pm clone_vm $clonefn:
			// clone_vmfw_conf right after the temporary config.
			cloneGuestFirewall(cl, vmid, newid)
			return nil
		},
		work: func(t *Task) error {
			t.Log("creating a clone of VM %d with ID %d", vmid, newid)
			err := s.runClone(cl, t, src, newid, plan, storage, format, name, description)
			if err != nil {
				if g := cl.Guests[newid]; g != nil && g.Lock() == "clone" {
					cl.RemoveGuest(newid)
				}
				removeGuestFirewall(cl, newid) // clone_vm $clonefn: remove_vmfw_conf($newid)
				// qemu-server src/PVE/API2/Qemu.pm clone_vm $clonefn: die "clone failed: $err"
				return errorf("clone failed: %s", strings.TrimSuffix(asAPIError(err).message, "\n"))
			}
			g := cl.Guests[newid]
			if target != "" {
				g.Node = target
			}
			if pool != "" && cl.Pools[pool] != nil {
				cl.addPoolMember(pool, newid)
			}
			return nil
		},
	})
	return t.UPID, nil
}

// planClone is load_and_check: pool, target, storage and lock checks, the
// W13 taken-id check, and the new config without the volumes.
// qemu-server src/PVE/API2/Qemu.pm clone_vm $load_and_check; the pool check is
// pve-access-control src/PVE/RPCEnvironment.pm check_pool_exist, the node
// check pve-cluster src/PVE/Cluster.pm check_node_exists, the storage check
// pve-storage src/PVE/Storage.pm storage_check_enabled.
func (s *Sim) planClone(c *call, src *Guest, newid int, target string) (*clonePlan, error) {
	cl := c.cluster
	node := c.str("node")
	storage, format := c.str("storage"), c.str("format")
	if pool := c.str("pool"); pool != "" && cl.Pools[pool] == nil {
		return nil, permError("pool '" + pool + "' does not exist")
	}
	if target != "" && cl.Node(target) == nil {
		return nil, errorf("no such cluster node '%s'", target)
	}
	if storage != "" {
		st, err := usableStorage(cl, storage, node)
		if err != nil {
			return nil, err
		}
		if !st.hasContent("images") {
			return nil, paramError(map[string]string{"storage": "storage '" + storage + "' does not support vm images"}) // W14
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
	if err := src.CheckLock(); err != nil {
		return nil, err
	}
	// With snapname the clone copies that snapshot's config
	// ($oldconf of clone_vm).
	snapName, srcCfg := c.str("snapname"), src.Config
	if snapName != "" {
		snap, err := loadSnapshot(src, snapName)
		if err != nil {
			return nil, err
		}
		srcCfg = snap
	}
	full := !src.IsTemplate()
	if _, ok := c.param("full"); ok {
		full = c.boolParam("full")
	}
	if storage != "" && !full {
		return nil, errorf("parameter 'storage' not allowed for linked clones")
	}
	if format != "" && !full {
		return nil, errorf("parameter 'format' not allowed for linked clones")
	}
	shared, err := checkCloneStorageAccess(c, srcCfg, storage)
	if err != nil {
		return nil, err
	}
	if target != "" && !shared {
		return nil, errorf("can't clone VM to node '%s' (VM uses local storage)", target)
	}
	// load_and_check looks for the config file on this node only (W13);
	// a guest elsewhere, or a container here, fails the worker instead
	// (cloneOntoTakenID).
	if old := cl.Guests[newid]; old != nil && old.Type == QEMU && old.Node == c.str("node") {
		// qemu-server src/PVE/API2/Qemu.pm clone_vm.
		return nil, errorf("unable to create VM %d: config file already exists", newid) // W13
	}
	running := src.Status == "running"
	plan := &clonePlan{newConf: map[string]string{}, full: map[string]bool{}, srcConf: copyMap(srcCfg)}
	for _, opt := range sortedKeys(srcCfg) {
		value := srcCfg[opt]
		switch {
		case internalConfigKeys[opt] && opt != "meta" || opt == "lock" || opt == "snapstate" || strings.HasPrefix(opt, "unused"):
			continue
		case opt == "tpmstate0" && full && running && snapName == "":
			return nil, errorf("cannot clone TPM state while VM is running") // qemu-server src/PVE/API2/Qemu.pm clone_vm
		}
		// qemu-server src/PVE/API2/Qemu.pm clone_vm $load_and_check: every
		// NIC gets a new MAC (parse_net does not die: an unparsable value
		// would lose its other settings), drives are parsed and checked for
		// the clone or copy feature.
		switch {
		case strings.HasPrefix(opt, "net") && !isDriveKey(opt):
			n, msg := c.cluster.conf.qemu.PropertyString(opt, value)
			if msg != "" || n == nil {
				n = map[string]string{}
			}
			n["macaddr"] = s.randomMAC()
			plan.newConf[opt] = printNet(n)
		case isDriveKey(opt):
			d, ok := c.cluster.conf.parseDrive(opt, value)
			if !ok {
				return nil, errorf("unable to parse drive options for '%s'", opt)
			}
			if d.isCDROMNotCloudInit() {
				plan.newConf[opt] = value
				continue
			}
			if full || d.isCloudInit() || opt == "tpmstate0" {
				// volume_has_feature('copy') of the snapshot.
				if snapName != "" && !volumeCopyFromSnapshot(cl, d.file()) {
					return nil, errorf("Full clone feature is not supported for a snapshot of '%s' (%s)", d.file(), opt)
				}
				plan.full[opt] = true
			} else if snapName != "" && !volumeCloneFromSnapshot(cl, d.file()) {
				return nil, errorf("Linked clone feature is not supported for a snapshot of '%s' (%s)", d.file(), opt)
			} else if snapName == "" && !linkedCloneable(cl, src, d.file()) {
				return nil, errorf("Linked clone feature is not supported for '%s' (%s)", d.file(), opt)
			}
			plan.drives = append(plan.drives, opt)
		default:
			plan.newConf[opt] = value
		}
	}
	return plan, nil
}

// checkCloneStorageAccess is $check_storage_access_clone: it tells whether
// every volume is on shared storage.
// qemu-server src/PVE/API2/Qemu.pm $check_storage_access_clone
func checkCloneStorageAccess(c *call, srcCfg map[string]string, storage string) (bool, error) {
	shared := true
	for _, key := range guestDrives(srcCfg) {
		d, ok := c.cluster.conf.parseDrive(key, srcCfg[key])
		if !ok || d.file() == "none" {
			continue
		}
		if d.isCDROM() && d.file() == "cdrom" {
			if err := c.check("/", false, "Sys.Console"); err != nil {
				return false, err
			}
			continue
		}
		sid, _, found := strings.Cut(d.file(), ":")
		if !found {
			shared = false
			continue
		}
		st := c.cluster.Storage(sid)
		if st == nil {
			return false, errorf("storage '%s' does not exist", sid)
		}
		if !st.Shared {
			shared = false
		}
		if d.isCDROM() {
			continue
		}
		if storage != "" {
			sid = storage
		}
		if err := c.check("/storage/"+sid, false, "Datastore.AllocateSpace"); err != nil {
			return false, err
		}
	}
	return shared, nil
}

// linkedCloneable is volume_has_feature('clone'): a base image on a
// storage that can back a thin copy.
// pve-storage src/PVE/Storage.pm volume_has_feature and the plugins'
// volume_has_feature tables ('clone' needs a base volume).
func linkedCloneable(cl *Cluster, src *Guest, volid string) bool {
	st, info, err := parseVolume(cl, volid)
	if err != nil || !info.isBase {
		return false
	}
	return st.fileStorage() || st.Type == "lvmthin" || st.Type == "zfspool" || st.Type == "rbd"
}

// runClone is the qmclone worker: new identity (smbios1 uuid, vmgenid,
// MACs), name, then every disk copied (full) or cloned (linked).
// qemu-server src/PVE/API2/Qemu.pm clone_vm $clonefn
func (s *Sim) runClone(cl *Cluster, t *Task, src *Guest, newid int, plan *clonePlan,
	storage, format, name, description string,
) error {
	g := cl.Guests[newid]
	if g == nil || g.Lock() != "clone" {
		return errorf("unable to create VM %d: config file already exists", newid)
	}
	if cl.Guests[src.VMID] != src {
		return errorf("Configuration file '%s' does not exist", configPath(src.Node, QEMU, src.VMID))
	}
	conf := copyMap(plan.newConf)
	smbios, _ := cl.conf.qemu.PropertyString("smbios1", conf["smbios1"])
	if smbios == nil {
		smbios = map[string]string{}
	}
	smbios["uuid"] = s.newUUID()
	conf["smbios1"] = printSorted(smbios)
	if v := conf["vmgenid"]; v != "" && v != "0" {
		conf["vmgenid"] = s.newUUID()
	}
	delete(conf, "template")
	if name != "" {
		conf["name"] = name
	} else {
		conf["name"] = "Copy-of-VM-" + valueOr(plan.srcConf["name"], itoa(src.VMID))
	}
	if description != "" {
		conf["description"] = description
	}
	var made []*Volume
	for _, opt := range plan.drives {
		d, _ := cl.conf.parseDrive(opt, plan.srcConf[opt])
		nd, v, err := s.cloneDisk(cl, src, newid, opt, d, plan.full[opt], storage, format)
		if err != nil {
			for _, m := range made {
				cl.RemoveVolume(m.Node, m.VolID)
			}
			return err
		}
		made = append(made, v)
		t.Log("create %s clone of drive %s (%s)", map[bool]string{true: "full", false: "linked"}[plan.full[opt]], opt, d.file())
		conf[opt] = nd.print()
	}
	if len(src.Pending) > 0 {
		var keys []string
		for k := range src.Pending {
			keys = append(keys, k)
		}
		// qemu-server src/PVE/API2/Qemu.pm clone_vm: a plain warn
		t.Note("found pending changes for '%s', discarding for clone", strings.Join(keys, ","))
	}
	g.Config = conf
	cl.conf.writeConfig(g)
	return nil
}

// printSorted prints a property string without a default key: keys sorted.
func printSorted(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

// cloneDisk is clone_disk: a linked clone is a thin volume backed by the
// base image; a full clone is a new volume of the source's size (fixed
// sizes for cloud-init, EFI vars and TPM state) on the target storage.
// qemu-server src/PVE/QemuServer.pm clone_disk (linked: pve-storage
// src/PVE/Storage.pm vdisk_clone; full: vdisk_alloc and a copy).
func (s *Sim) cloneDisk(cl *Cluster, src *Guest, newid int, opt string, d drive, full bool,
	storage, format string,
) (drive, *Volume, error) {
	srcVol := cl.Volume(src.Node, d.file())
	sid, _, _ := strings.Cut(d.file(), ":")
	nd := drive(copyMap(d))
	delete(nd, "format")
	if !full {
		if srcVol == nil {
			return nil, nil, errorf("volume '%s' does not exist", d.file())
		}
		st := cl.Storage(sid)
		cloneFormat := "raw"
		if st.fileStorage() {
			cloneFormat = "qcow2"
		}
		v, err := s.allocVolume(cl, allocation{storage: sid, node: src.Node, vmid: newid, format: cloneFormat,
			size: srcVol.Size, base: srcVol.VolID})
		if err != nil {
			return nil, nil, err
		}
		nd["file"] = v.VolID
		nd["size"] = itoa64(v.Size)
		return nd, v, nil
	}
	storeID := valueOr(storage, sid)
	st := cl.Storage(storeID)
	if st == nil {
		return nil, nil, errorf("storage '%s' does not exist", storeID)
	}
	hint := format
	if hint == "" && srcVol != nil {
		hint = srcVol.Format
	}
	a := allocation{storage: storeID, node: src.Node, vmid: newid, format: st.resolveFormat(hint)}
	switch {
	case d.isCloudInit():
		a.name = "vm-" + itoa(newid) + "-cloudinit"
		if st.fileStorage() {
			a.name += "." + a.format
		}
		a.size = cloudInitSize
	case opt == "efidisk0":
		a.size = efiVars2M
		if d["efitype"] == "4m" {
			a.size = efiVars4M
		}
	case opt == "tpmstate0":
		a.format, a.size = "raw", tpmStateSize
	default:
		if srcVol == nil {
			return nil, nil, errorf("volume '%s' does not exist", d.file())
		}
		a.size = srcVol.Size
	}
	v, err := s.allocVolume(cl, a)
	if err != nil {
		return nil, nil, err
	}
	nd["file"] = v.VolID
	if !strings.HasPrefix(opt, "unused") {
		nd["size"] = itoa64(v.Size)
	}
	return nd, v, nil
}

func itoa64(n int64) string { return itoa(int(n)) }
