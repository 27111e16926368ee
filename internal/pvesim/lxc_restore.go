package pvesim

import (
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Container restore (pve-container PVE/API2/LXC.pm create_vm with
// restore=1, PVE::LXC::Create recover_config and restore_configuration).
// The request is a create whose ostemplate is a backup archive: the same
// synchronous checks (W40: mount points without rootfs are refused), then
// the vzrestore task. Without any rootfs/mpN parameter the mount points
// come from the archive's config, each sized as it recorded and placed on
// "storage" (default "local"); given ones replace the archive's, which
// are then not restored. Config keys given win over the archive's; NICs
// get new MACs with "unique". Over an existing container ("force") the new
// volumes are made first, then the old ones go, and the container leaves
// its pool unless "pool" names one (W40, W48).

// restoresOver tells whether a restore may overwrite old: restore=1 and
// force=1 on the container's own node.
// pve-container src/PVE/API2/LXC.pm create_vm ($same_container_exists && $restore && $force)
func restoresOver(c *call, old *Guest) bool {
	return c.boolParam("restore") && c.boolParam("force") && old.Type == LXC && old.Node == c.str("node")
}

// restoreByBackupPrivilege is create_vm's third way to the permission:
// VM.Backup on a container a forced restore overwrites.
// pve-container src/PVE/API2/LXC.pm create_vm
func restoreByBackupPrivilege(c *call) bool {
	vmid := c.intParam("vmid", 0)
	old := c.cluster.Guests[vmid]
	return old != nil && restoresOver(c, old) && c.can("/vms/"+itoa(vmid), false, "VM.Backup")
}

// ostemplateContent is the content type ostemplate must have: a backup
// for a restore, a template otherwise.
// pve-container src/PVE/API2/LXC.pm create_vm (check_volume_access content type)
func ostemplateContent(c *call) string {
	if c.boolParam("restore") {
		return "backup"
	}
	return "vztmpl"
}

// pve-container src/PVE/API2/LXC.pm create_vm: over an existing container
// "can't overwrite running container" and check_protection($conf, "unable to
// restore CT $vmid"), else check_vmid_unused; create_and_lock_config dies
// with the "$emsg" prefix.
func (s *Sim) restoreLXC(c *call) (any, error) {
	req, err := s.checkCTCreate(c)
	if err != nil {
		return nil, err
	}
	cl := c.cluster
	emsg := "unable to restore CT " + itoa(req.vmid) + " - "
	_, unprivilegedGiven := c.param("unprivileged")
	existed := false
	if old := cl.Guests[req.vmid]; old != nil {
		if old.Status == "running" {
			return nil, errorf("can't overwrite running container")
		}
		if old.Config["protection"] == "1" {
			return nil, errorf("%sprotection mode enabled", emsg)
		}
		// create_and_lock_config waits 5 s for the flock, then refuses a
		// config lock (pve-guest-common src/PVE/AbstractConfig.pm
		// create_and_lock_config, check_lock).
		if err := c.waitGuestFlock(LXC, req.vmid, createLockTimeout); err != nil {
			return nil, errorf("%s%s", emsg, strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
		if err := cl.LockGuest(req.vmid, "create"); err != nil {
			return nil, errorf("%s%s", emsg, strings.TrimSuffix(asAPIError(err).message, "\n"))
		}
		existed = true
	} else if err := cl.AddGuest(&Guest{VMID: req.vmid, Node: req.node, Type: LXC, Config: map[string]string{"lock": "create"}}); err != nil {
		return nil, errorf("%s%s", emsg, strings.TrimSuffix(asAPIError(err).message, "\n"))
	}
	restore := &ctRestore{ctCreate: req, existed: existed, unique: c.boolParam("unique"),
		unprivilegedGiven: unprivilegedGiven, root: isRootPam(c), sysModify: c.can("/", false, "Sys.Modify"),
		vmAllocate: c.checkVMPerm(req.vmid, req.pool, "VM.Allocate") == nil}
	var run *ctRestoreRun
	t := s.startWorker(req.node, "vzrestore", itoa(req.vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzrestore", itoa(req.vmid)),
		begin: func(t *Task) error {
			var err error
			run, err = s.beginCTRestore(cl, t, restore)
			return err
		},
		work: func(t *Task) error {
			return s.finishCTRestore(cl, t, restore, run)
		},
	})
	return t.UPID, nil
}

// ctRestore is a container restore after its synchronous checks.
type ctRestore struct {
	*ctCreate
	existed, unique, unprivilegedGiven, root bool
	// sysModify is whether the caller holds Sys.Modify on "/", which a
	// restore that ends up privileged needs (PVE 9).
	sysModify bool
	// vmAllocate is whether the caller holds VM.Allocate on the container,
	// which PVE 8 asks for when a restore turns it privileged.
	vmAllocate bool
}

// ctRestoreRun is what the vzrestore worker found at its start.
type ctRestoreRun struct {
	orig            map[string]string
	unprivileged    bool
	mounts, delayed map[string]string
}

// failCTRestore ends a failed vzrestore worker: the volumes it made are
// freed, the config is removed once the old container is gone (or when
// there was none) and otherwise only loses "lock: create".
// pve-container src/PVE/API2/LXC.pm create_vm: die "$emsg $err", the
// exception stringified with its code; $realcmd removes the create lock
// while $destroy_config_on_error is not set.
func failCTRestore(cl *Cluster, req *ctRestore, made []*Volume, destroyConfig bool, err error) error {
	freeMade(cl, made)
	if destroyConfig {
		cl.RemoveGuest(req.vmid)
	} else {
		cl.UnlockGuest(req.vmid, "create")
	}
	emsg := "unable to restore CT " + itoa(req.vmid) + " - "
	return errorf("%s%s", emsg, strings.TrimSuffix(asAPIError(taskError(err)).message, "\n"))
}

// beginCTRestore is the start of the vzrestore worker, under lock_config:
// the reserved config is loaded (its failure is not prefixed), the
// container must not run, the archive's config is recovered and the
// privilege checks run; nothing is changed yet but the lock.
// pve-container src/PVE/API2/LXC.pm create_vm $code (restore), up to
// "up until here we did not modify the container": load_config,
// check_running ("can't overwrite running container"), recover_config,
// the Sys.Modify check of a privileged result, the storage-only mount
// points.
func (s *Sim) beginCTRestore(cl *Cluster, t *Task, req *ctRestore) (*ctRestoreRun, error) {
	g, err := lookupGuest(cl, LXC, req.node, req.vmid)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*ctRestoreRun, error) {
		return nil, failCTRestore(cl, req, nil, !req.existed, err)
	}
	if g.Status == "running" {
		return fail(errorf("can't overwrite running container"))
	}
	t.Log("recovering backed-up configuration from '%s'", req.ostemplate)
	orig, err := archiveConfig(cl, req.node, req.ostemplate, LXC)
	if err != nil {
		return fail(err)
	}
	run := &ctRestoreRun{orig: orig, unprivileged: orig["unprivileged"] == "1", mounts: copyMap(req.mounts)}
	if req.unprivilegedGiven {
		run.unprivileged = req.unprivileged
	}
	// pve-container src/PVE/API2/LXC.pm create_vm, restore branch of the
	// worker: since 4cc73b7 (6.0.6, PVE 9.0) a restore that creates a
	// privileged container or turns one privileged needs Sys.Modify; PVE
	// 8 only asks for VM.Allocate when it turns one privileged.
	if s.pve.privilegedNeedsSysModify {
		if !run.unprivileged && (!req.existed || g.Config["unprivileged"] == "1") && !req.sysModify {
			return fail(permError("/, Sys.Modify"))
		}
	} else if !run.unprivileged && req.existed && g.Config["unprivileged"] == "1" && !req.vmAllocate {
		return fail(permError("/vms/" + itoa(req.vmid) + ", VM.Allocate"))
	}
	run.delayed = map[string]string{}
	if len(run.mounts) == 0 {
		if run.mounts, run.delayed, err = cl.conf.archiveMounts(orig, req.storage, req.root); err != nil {
			return fail(err)
		}
	}
	return run, nil
}

// finishCTRestore is the rest of the vzrestore worker: the new volumes,
// the old container's volumes freed, the merged config.
// pve-container src/PVE/API2/LXC.pm create_vm $code: create_disks, then
// destroy_lxc_container of the old volumes, restore_configuration.
func (s *Sim) finishCTRestore(cl *Cluster, t *Task, req *ctRestore, run *ctRestoreRun) error {
	g, err := lookupGuest(cl, LXC, req.node, req.vmid)
	if err != nil {
		return err
	}
	var made []*Volume
	// Once volumes are made the old container is gone: a failure from
	// then on removes the config even when it overwrote one.
	fail := func(err error) error {
		return failCTRestore(cl, req, made, true, err)
	}
	orig, unprivileged, mounts, delayed := run.orig, run.unprivileged, run.mounts, run.delayed
	conf := copyMap(req.conf)
	for _, k := range mountKeys(mounts) {
		value, v, err := s.createMountPoint(cl, req.node, req.vmid, k, mounts[k])
		if v != nil {
			made = append(made, v)
			t.Log("%s: allocated volume '%s'", k, v.VolID)
		}
		if err != nil {
			return fail(err)
		}
		conf[k] = value
	}
	// pve-container src/PVE/API2/LXC.pm create_vm: destroy_lxc_container with the
	// create lock as replacement config.
	if req.existed {
		old := &Guest{VMID: req.vmid, Node: req.node, Type: LXC, Config: g.Config}
		for _, key := range ctVolumeKeys(old.Config) {
			volid := old.Config[key]
			if mp, err := cl.conf.parseMountPoint(key, volid); err == nil && !pvegrammar.IsLXCUnusedKey(key) {
				volid = mp.volume()
			}
			if ctOwnsVolume(cl, req.vmid, volid) && cl.Volume(req.node, volid) != nil {
				_ = freeVolume(cl, req.node, volid)
			}
		}
		// inferred: the container leaves its pool, as captured on a PVE 9.2
		// node (W40); pve-container's create_vm shows no removal, so this
		// comes from outside its Perl code.
		if pool := cl.PoolOf(req.vmid); pool != "" {
			cl.removePoolMember(pool, req.vmid)
		}
	}
	t.Log("restoring '%s' now..", req.ostemplate)
	t.Log("merging backed-up and given configuration..")
	for _, k := range sortedKeys(orig) {
		switch {
		case k == "digest" || k == "rootfs" || k == "unprivileged" || k == "parent" || k == "template" || k == "lock":
		case isMountKey(k) || pvegrammar.IsLXCUnusedKey(k):
		case k == "lxc" && !req.root:
			// pve-container src/PVE/LXC/Create.pm restore_configuration:
			// $rpcenv->warn, counted
			t.Warn("skipping custom lxc options, restore manually as root:")
		// pve-container src/PVE/LXC/Create.pm restore_configuration
		case req.unique && isCTNetKey(k):
			n, msg := cl.conf.lxc.PropertyString(k, orig[k])
			if msg != "" {
				return fail(errorf("%s", strings.TrimSuffix(msg, "\n")))
			}
			n["hwaddr"] = s.randomMAC()
			n["type"] = "veth"
			if _, given := conf[k]; !given {
				conf[k] = printCTNet(n)
			}
		default:
			if _, given := conf[k]; !given {
				conf[k] = orig[k]
			}
		}
	}
	// pve-container src/PVE/API2/LXC.pm create_vm $code (hostname, memory, swap).
	// create_vm's defaults, for an archive without them.
	if conf["hostname"] == "" {
		conf["hostname"] = "CT" + itoa(req.vmid)
	}
	if conf["memory"] == "" || conf["memory"] == "0" {
		conf["memory"] = "512"
	}
	if _, ok := conf["swap"]; !ok {
		conf["swap"] = "512"
	}
	for k, v := range delayed {
		conf[k] = v
	}
	if unprivileged {
		conf["unprivileged"] = "1"
	}
	g.Config = conf
	// The restored config is written new: no snapshot sections
	// (pve-container API2/LXC.pm create_vm with restore).
	g.Snapshots = nil
	cl.conf.writeCTConfig(g)
	// The restored root file system keeps its own root password and
	// authorized_keys: a restore runs no post-create hook, so password and
	// ssh-public-keys have no effect.
	if req.pool != "" && cl.Pools[req.pool] != nil {
		cl.addPoolMember(req.pool, req.vmid)
	}
	if req.start {
		t.Log("starting CT %d", req.vmid)
		// pve-container src/PVE/API2/LXC.pm create_vm: the start after
		// create is no eval, so its failure fails the task.
		if err := s.ctStart(cl, g, false); err != nil {
			return err
		}
	}
	return nil
}

// archiveMounts is create_vm's "storage only" restore: every volume mount
// point of the archive becomes a new volume of the recorded size on
// storage; bind and device mount points are root@pam's and restored as
// they were, after the data (delayed).
// pve-container src/PVE/API2/LXC.pm create_vm ($storage_only_mode with restore).
func (cs *guestSchema) archiveMounts(orig map[string]string, storage string, root bool) (mounts, delayed map[string]string, err error) {
	mounts, delayed = map[string]string{}, map[string]string{}
	if orig["rootfs"] == "" {
		return nil, nil, errorf("rootfs configuration could not be recovered, please check and specify manually!")
	}
	for _, k := range mountKeys(orig) {
		mp, err := cs.parseMountPoint(k, orig[k])
		if err != nil {
			return nil, nil, err
		}
		if !mp.isVolume() {
			if k == "rootfs" {
				return nil, nil, errorf("restoring rootfs to %s mount is only possible by specifying -rootfs manually!", mp.kind())
			}
			if !root {
				return nil, nil, errorf("restoring '%s' to %s mount is only possible for root", k, mp.kind())
			}
			delayed[k] = orig[k]
			continue
		}
		size, ok := pvegrammar.ParseSize(valueOr(mp["size"], "0"))
		if !ok || size == 0 {
			return nil, nil, errorf("unable to detect disk size - please specify %s (size)", k)
		}
		delete(mp, "size")
		mp["volume"] = storage + ":" + strconv.FormatFloat(float64(size)/float64(gib), 'f', -1, 64)
		mounts[k] = mp.print(k)
	}
	return mounts, delayed, nil
}
