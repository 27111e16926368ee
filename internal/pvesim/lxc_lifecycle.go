package pvesim

import (
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Container destroy, template and migrate (PVE::API2::LXC destroy_vm,
// template, migrate_vm; PVE::LXC::Migrate).

// ctDestroyChecks are destroy_vm's $early_checks, run before and again
// inside the task.
// pve-container src/PVE/API2/LXC.pm destroy_vm $early_checks; the texts are
// pve-guest-common src/PVE/AbstractConfig.pm check_protection and check_lock.
func ctDestroyChecks(cl *Cluster, g *Guest, purge bool) error {
	if g.Config["protection"] == "1" {
		return errorf("can't remove CT %d - protection mode enabled", g.VMID)
	}
	if err := g.CheckLock(); err != nil {
		return err
	}
	return destroyReferenceChecks(cl, g, purge)
}

// pve-container src/PVE/API2/LXC.pm destroy_vm ($running_error_msg, the forced
// stop warning, the purge line).
func (s *Sim) destroyLXC(c *call) (any, error) {
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	force, purge, unreferenced := c.boolParam("force"), c.boolParam("purge"), c.boolParam("destroy-unreferenced-disks")
	if err := ctDestroyChecks(c.cluster, g, purge); err != nil {
		return nil, err
	}
	if !force && g.Status == "running" {
		return nil, errorf("unable to destroy CT %d - container is running", g.VMID)
	}
	node, vmid := g.Node, g.VMID
	cl := c.cluster
	// The worker reloads the config under lock_config and runs the early
	// checks and the running check again before it changes anything
	// (pve-container src/PVE/API2/LXC.pm destroy_vm $code).
	t := s.startWorker(node, "vzdestroy", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzdestroy", itoa(vmid)),
		begin: func(*Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			if err := ctDestroyChecks(cl, g, purge); err != nil {
				return err
			}
			if !force && g.Status == "running" {
				return errorf("unable to destroy CT %d - container is running", vmid)
			}
			return nil
		},
		work: func(t *Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			if g.Status == "running" {
				t.Note("forced to stop CT %d before destroying!", vmid) // pve-container src/PVE/API2/LXC.pm destroy_vm: warn
				ctStop(g)
			}
			if err := destroyCT(cl, g, false, unreferenced, t); err != nil {
				return err
			}
			// pve-container src/PVE/API2/LXC.pm destroy_vm: remove_vmfw_conf
			// after destroy_lxc_container and remove_vm_access.
			removeGuestFirewall(cl, vmid)
			if purge {
				t.Log("purging CT %d from related configurations..", vmid)
				purgeGuestReferences(cl, vmid, t)
			}
			return nil
		},
	})
	return t.UPID, nil
}

// destroyCT is destroy_lxc_container plus remove_vm_access: the volumes
// of the container's mount points and unusedN that it owns are freed (a
// bind mount's host path is never touched), with destroy-unreferenced-
// disks every image it owns.
// pve-container src/PVE/LXC.pm destroy_lxc_container
func destroyCT(cl *Cluster, g *Guest, skiplock, unreferenced bool, t *Task) error {
	if !skiplock {
		if err := g.CheckLock(); err != nil {
			return err
		}
	}
	if err := checkCTBaseVolumesFree(cl, g); err != nil {
		return err
	}
	for _, key := range ctVolumeKeys(g.Config) {
		volid := g.Config[key]
		if !pvegrammar.IsLXCUnusedKey(key) {
			mp, err := cl.conf.parseMountPoint(key, volid)
			if err != nil || !mp.isVolume() {
				continue
			}
			volid = mp.volume()
		}
		if !ctOwnsVolume(cl, g.VMID, volid) || cl.Volume(g.Node, volid) == nil {
			continue
		}
		// pve-container src/PVE/LXC.pm delete_mountpoint_volume frees
		// with no eval: a failure fails the destroy, the config stays.
		if err := freeVolume(cl, g.Node, volid); err != nil {
			return err
		}
	}
	dropGuest(cl, g, unreferenced, t)
	return nil
}

// templateLXC is the container's template call. PVE checks under the
// config lock in the handler (its route waits for the guest's flock),
// forks a vztemplate worker and answers null without its UPID (W9, W17);
// the simulator runs that worker at once, so the change has happened when
// the answer arrives. A failure shows only in the task.
// pve-container src/PVE/API2/LXC.pm template
func (s *Sim) templateLXC(c *call) (any, error) {
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	// pve-container src/PVE/API2/LXC.pm template.
	if len(g.Snapshots) > 0 {
		return nil, errorf("unable to create template, because CT contains snapshots")
	}
	if g.IsTemplate() {
		return nil, errorf("you can't convert a template to a template")
	}
	if g.Status == "running" {
		return nil, errorf("you can't convert a CT to template if the CT is running")
	}
	cl := c.cluster
	s.runTaskNow(g.Node, "vztemplate", itoa(g.VMID), c.user, func(*Task) error {
		if err := ctTemplateCreate(cl, g); err != nil {
			return err
		}
		g.Config["template"] = "1"
		c.cluster.conf.writeCTConfig(g)
		return nil
	})
	return nil, nil
}

// ctTemplateCreate is template_create: every mount point needs the
// storage's template feature (a bind mount has none), then each volume is
// renamed from "vm-" to "base-" (W17).
// pve-container src/PVE/LXC.pm template_create (volume_has_feature 'template').
func ctTemplateCreate(cl *Cluster, g *Guest) error {
	keys := mountKeys(g.Config)
	mps := map[string]mountPoint{}
	for _, key := range keys {
		mp, err := cl.conf.parseMountPoint(key, g.Config[key])
		if err != nil {
			return err
		}
		st, _, err := parseVolume(cl, mp.volume())
		if !mp.isVolume() || err != nil || st.Type == "lvm" {
			return errorf("Template feature is not available for '%s'", mp.volume())
		}
		mps[key] = mp
	}
	for _, key := range keys {
		mp := mps[key]
		base, err := createBase(cl, g.Node, mp.volume())
		if err != nil {
			return err
		}
		mp["volume"] = base
		g.Config[key] = mp.print(key)
	}
	return nil
}

// pve-container src/PVE/API2/LXC.pm migrate_vm; the worker is
// pve-container src/PVE/LXC/Migrate.pm prepare and phase1 under
// pve-guest-common src/PVE/AbstractMigrate.pm migrate ("migration aborted",
// "migration problems").
func (s *Sim) migrateLXC(c *call) (any, error) {
	cl := c.cluster
	node, target := c.str("node"), c.str("target")
	if target == node {
		return nil, paramError(map[string]string{"target": "target is local node."})
	}
	if cl.Node(target) == nil {
		return nil, errorf("no such cluster node '%s'", target)
	}
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	online, restart := c.boolParam("online"), c.boolParam("restart")
	if g.Status == "running" && !online && !restart {
		return nil, errorf("can't migrate running container without --online or --restart")
	}
	smap, err := parseStorageMap("target-storage", c.str("target-storage"))
	if err != nil {
		return nil, err
	}
	if err := checkStorageMapTargets(c, smap, g.VMID, target, "rootdir", "storage '%s' does not support CT rootdirs"); err != nil {
		return nil, err
	}
	if cl.haManaged(g.VMID) {
		return s.haMigrateTask(c, g, target), nil
	}
	vmid := g.VMID
	// pve-guest-common src/PVE/AbstractMigrate.pm migrate: a failure in
	// prepare or phase1 logs and dies "migration aborted", a failure after
	// the move "migration problems". phase1_cleanup removes the
	// "migrate" lock again (pve-container src/PVE/LXC/Migrate.pm).
	locked := false
	abort := func(t *Task, err error) error {
		if locked {
			cl.UnlockGuest(vmid, "migrate")
		}
		t.Log("ERROR: migration aborted (duration 00:00:00): %s", strings.TrimSuffix(asAPIError(err).message, "\n"))
		return errorf("migration aborted")
	}
	var local []string
	running := false
	// The worker runs prepare under lock_config as it starts (lock_vm):
	// the config must be on this node, no config lock, no live migration,
	// the volume scan; phase1 then sets "lock: migrate"
	// (pve-container src/PVE/LXC/Migrate.pm lock_vm, prepare, phase1).
	t := s.startWorker(node, "vzmigrate", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("vzmigrate", itoa(vmid)),
		begin: func(t *Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return abort(t, err)
			}
			if err := g.CheckLock(); err != nil {
				return abort(t, err)
			}
			running = g.Status == "running"
			if running && online {
				return abort(t, errorf("lxc live migration is currently not implemented"))
			}
			// prepare dies here without a final newline, so a real node's
			// text also carries Perl's " at .../PVE/LXC/Migrate.pm line N."
			// suffix, which differs between versions and is left out.
			if running && !restart {
				return abort(t, errorf("running container can only be migrated in restart mode"))
			}
			if local, err = ctLocalVolumes(cl, g, target, smap); err != nil {
				return abort(t, err)
			}
			if err := checkMappedTargetSpace(cl, g, local, smap, target); err != nil {
				return abort(t, err)
			}
			t.Log("starting migration of CT %d to node '%s' (%s)", vmid, target, cl.Node(target).IP)
			g.Config["lock"] = "migrate"
			locked = true
			return nil
		},
		work: func(t *Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return abort(t, err)
			}
			if running {
				t.Log("shutdown CT %d", vmid)
				ctStop(g)
			}
			if problems := ctSnapshotVolumeProblems(cl, g, smap); len(problems) > 0 {
				// LXC/Migrate.pm phase1: the errors per volume, then the abort.
				for _, p := range problems {
					t.Log("WARN: %s", p)
				}
				return abort(t, errorf("can't migrate CT - check log"))
			}
			if err := migrateCTVolumes(cl, g, local, smap, target, t); err != nil {
				return abort(t, err)
			}
			g.Node = target
			cl.replicationFollowMigration(vmid, node, target)
			cl.UnlockGuest(vmid, "migrate")
			if running {
				t.Log("start container on target node")
				if err := s.ctStart(cl, g, false); err != nil {
					return errorf("migration problems")
				}
			}
			t.Log("migration finished successfully (duration 00:00:01)")
			return nil
		},
	})
	return t.UPID, nil
}

// ctLocalVolumes is PVE::LXC::Migrate::prepare's volume scan: a bind or
// device mount point must be marked shared; every storage must be enabled,
// take container data and, when it is shared, be available on the target;
// the volumes on node-local storage are returned, to move with the
// container under the same volids.
// pve-container src/PVE/LXC/Migrate.pm prepare
func ctLocalVolumes(cl *Cluster, g *Guest, target string, smap *storageMap) ([]string, error) {
	var local []string
	for _, key := range ctVolumeKeys(g.Config) {
		volid := g.Config[key]
		if !pvegrammar.IsLXCUnusedKey(key) {
			mp, err := cl.conf.parseMountPoint(key, volid)
			if err != nil {
				return nil, err
			}
			if !mp.isVolume() {
				if mp["shared"] == "1" {
					continue
				}
				return nil, errorf("cannot migrate local %s mount point '%s'", mp.kind(), key)
			}
			volid = mp.volume()
		}
		sid, _, found := strings.Cut(volid, ":")
		if !found {
			return nil, errorf("can't determine assigned storage for mount point '%s'", key)
		}
		st, err := usableStorage(cl, sid, g.Node)
		if err != nil {
			return nil, err
		}
		if !st.hasContent("rootdir") {
			return nil, errorf("content type 'rootdir' is not available on storage '%s'", sid)
		}
		// The map applies to local storage only; the target storage must
		// be enabled on the target and take container data.
		targetSID := targetStorageFor(cl, smap, volid)
		tst, err := usableStorage(cl, targetSID, target)
		if err != nil {
			return nil, err
		}
		if !tst.hasContent("rootdir") {
			return nil, errorf("%s: content type 'rootdir' is not available on storage '%s'", volid, targetSID)
		}
		if !st.Shared && !containsString(local, volid) {
			local = append(local, volid)
		}
	}
	return local, nil
}

// lxcMigratePrecondition is migrate_vm_precondition: whether the
// container runs and which nodes it may go to.
// pve-container src/PVE/API2/LXC.pm migrate_vm_precondition
func lxcMigratePrecondition(c *call) (any, error) {
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	allowed := []string{}
	for _, n := range c.cluster.Nodes {
		if n.Name != g.Node {
			allowed = append(allowed, n.Name)
		}
	}
	return map[string]any{
		"running": boolInt(g.Status == "running"), "allowed-nodes": allowed, "not-allowed-nodes": map[string]any{},
	}, nil
}
