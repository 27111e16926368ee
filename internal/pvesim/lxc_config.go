package pvesim

import (
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Container config reads and the synchronous config update (W9):
// PVE::API2::LXC::Config update_vm and PVE::LXC::Config update_pct_config.
// Applying [pve:pending] is in lxc_pending.go.

// pve-container src/PVE/API2/LXC/Config.pm vm_config; a missing snapshot is
// pve-guest-common src/PVE/AbstractConfig.pm load_snapshot_config.
func getLXCConfig(c *call) (any, error) {
	if c.str("snapshot") != "" && c.boolParam("current") {
		msg := "cannot use 'snapshot' parameter with 'current'"
		return nil, paramError(map[string]string{"snapshot": msg, "current": msg})
	}
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if snap := c.str("snapshot"); snap != "" {
		// load_snapshot_config (pve-guest-common AbstractConfig.pm).
		return c.cluster.conf.snapshotConfigAnswer(g, snap)
	}
	cfg := currentConfig(g, c.boolParam("current"))
	out := make(map[string]any, len(cfg)+1)
	for k, v := range cfg {
		out[k] = c.cluster.conf.lxcTypedValue(k, v)
	}
	out["digest"] = guestDigest(g)
	return out, nil
}

// pve-container src/PVE/API2/LXC/Config.pm vm_pending
func getLXCPending(c *call) (any, error) {
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	return pendingArray(g, g.Config, g.Pending, c.cluster.conf.lxcTypedValue), nil
}

// ctUpdate is one config update after its parameter checks.
type ctUpdate struct {
	set     map[string]string
	deletes []string
	reverts []string
}

// updateLXC is update_vm: it answers null, or PVE's error with nothing
// changed. "no options specified" comes before the config flock, the
// rest under it.
// pve-container src/PVE/API2/LXC/Config.pm update_vm (lock_config around
// $code: load_config, check_lock, then
// pve-common src/PVE/Tools.pm assert_if_modified, then the permission checks).
func (s *Sim) updateLXC(c *call) (any, error) {
	req := &ctUpdate{set: map[string]string{}}
	for k, v := range c.params {
		if !lxcControlParams[k] {
			req.set[k] = v
		}
	}
	deleteStr, revertStr := c.str("delete"), c.str("revert")
	if len(req.set) == 0 && deleteStr == "" && revertStr == "" {
		return nil, errorf("no options specified")
	}
	req.deletes, req.reverts = splitList(deleteStr), splitList(revertStr)
	// Everything from load_config on runs under lock_config, which waits
	// for a worker that holds the container.
	if err := c.waitGuestFlock(LXC, c.intParam("vmid", 0), configLockTimeout); err != nil {
		return nil, err
	}
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil { // W10
		return nil, err
	}
	if d := c.str("digest"); d != "" && d != guestDigest(g) {
		return nil, errorf("detected modified configuration - file changed by other user? Try again.")
	}
	perm := ctModifyCheck{vmid: g.VMID, oldConf: g.Config, newConf: map[string]string{},
		unprivileged: g.Config["unprivileged"] == "1"}
	for _, list := range [][]string{req.deletes, req.reverts} {
		perm.deletes = list
		if err := checkCTModifyPerm(c, perm); err != nil {
			return nil, err
		}
	}
	if err := req.checkLists(c.cluster.conf); err != nil {
		return nil, err
	}
	perm.newConf, perm.deletes = req.set, nil
	if err := checkCTModifyPerm(c, perm); err != nil {
		return nil, err
	}
	if err := checkReplicatedMountPoints(c.cluster, g, req.set); err != nil {
		return nil, err
	}
	return nil, s.applyCTUpdate(c.cluster, g, req)
}

// checkLists is update_vm's checks of the revert and delete lists (W16).
// pve-container src/PVE/API2/LXC/Config.pm update_vm
func (req *ctUpdate) checkLists(conf *guestSchema) error {
	for _, opt := range req.reverts {
		if !conf.lxcOptionExists(opt) {
			return paramError(map[string]string{"revert": "unknown option '" + opt + "'"})
		}
		if _, ok := req.set[opt]; ok {
			return paramError(map[string]string{"revert": "you can't use '-" + opt + "' and '-revert " + opt + "' at the same time"})
		}
	}
	for _, opt := range req.deletes {
		if !conf.lxcOptionExists(opt) {
			return paramError(map[string]string{"delete": "unknown option '" + opt + "'"})
		}
		if _, ok := req.set[opt]; ok {
			// pve-container src/PVE/API2/LXC/Config.pm update_vm, its
			// text with the unbalanced quote (W16).
			return paramError(map[string]string{"delete": "you can't use '-" + opt + "' and -delete " + opt + "' at the same time"})
		}
		if containsString(req.reverts, opt) {
			return paramError(map[string]string{"delete": "you can't use '-delete " + opt + "' and '-revert " + opt + "' at the same time"})
		}
	}
	return nil
}

// applyCTUpdate runs update_pct_config on a copy of the guest and keeps
// the result only when nothing failed, as update_vm writes the config only
// then. Volumes made on the way are freed again on failure, and volumes
// the update drops are freed only when it is kept.
// pve-container src/PVE/API2/LXC/Config.pm update_vm: the config is written
// only when update_pct_config returned; hotplug errors are raised as one
// parameter exception (pve-container src/PVE/LXC/Config.pm
// vmconfig_hotplug_pending, vmconfig_apply_pending).
func (s *Sim) applyCTUpdate(cl *Cluster, g *Guest, req *ctUpdate) error {
	work := g.clone()
	job := &ctJob{s: s, cl: cl, g: &work}
	errs, err := job.update(req)
	if err == nil && len(errs) > 0 {
		err = paramError(errs)
	}
	if err != nil {
		job.rollback()
		return err
	}
	job.commit()
	g.Config, g.Pending = work.Config, work.Pending
	cl.conf.writeCTConfig(g)
	return nil
}

// ctJob is one change of a container's config: the volumes it made and
// the ones it is to free.
type ctJob struct {
	s      *Sim
	cl     *Cluster
	g      *Guest
	made   []*Volume
	toFree []string
}

func (j *ctJob) rollback() {
	for _, v := range j.made {
		j.cl.RemoveVolume(v.Node, v.VolID)
	}
}

func (j *ctJob) commit() {
	for _, volid := range j.toFree {
		_ = deleteMountPointVolume(j.cl, j.g, volid)
	}
}

// update is update_pct_config: reverts, deletions and new values go to
// [pve:pending], then what this request changed is applied, live on a
// running container as far as pve-container can.
// pve-container src/PVE/LXC/Config.pm update_pct_config; protection texts
// are pve-guest-common src/PVE/AbstractConfig.pm check_protection.
func (j *ctJob) update(req *ctUpdate) (map[string]string, error) {
	g := j.g
	for _, opt := range req.reverts {
		delete(g.Pending, opt)
		removePendingDelete(g, opt)
	}
	modified := map[string]bool{}
	for _, opt := range req.deletes {
		_, inConf := g.Config[opt]
		_, inPending := g.Pending[opt]
		if !inConf && !inPending {
			continue // "cannot delete 'X' - not set in current configuration!"
		}
		modified[opt] = true
		switch {
		case opt == "memory" || opt == "rootfs" || opt == "ostype":
			return nil, errorf("unable to delete required option '%s'", opt)
		case pvegrammar.IsLXCUnusedKey(opt) || isMountKey(opt):
			if g.Config["protection"] == "1" {
				return nil, errorf("can't remove CT %d drive '%s' - protection mode enabled", g.VMID, opt)
			}
		case opt == "unprivileged":
			return nil, errorf("unable to delete read-only option: '%s'", opt)
		}
		addPendingDelete(g, opt, false)
	}
	set := copyMap(req.set)
	if err := j.s.normalizeCTParams(set, g.Config); err != nil {
		return nil, err
	}
	for _, opt := range sortedKeys(set) {
		modified[opt] = true
		switch {
		case isMountKey(opt):
			if err := j.checkMountValue(opt, set[opt]); err != nil {
				return nil, err
			}
		case opt == "unprivileged":
			return nil, errorf("unable to modify read-only option: '%s'", opt) // W34
		}
		g.ensurePending()[opt] = set[opt]
		removePendingDelete(g, opt)
	}
	cleanupPending(g)
	errs := map[string]string{}
	if g.Status == "running" {
		j.hotplugPending(modified, errs)
	} else {
		j.applyPending(modified, errs)
	}
	return errs, nil
}

// checkMountValue is update_pct_config's check of a new rootfs or mpN:
// no protection, and a volume on a storage that takes container data.
// pve-container src/PVE/LXC/Config.pm update_pct_config ($check_content_type;
// a storage id that is not configured dies in pve-storage src/PVE/Storage.pm
// storage_config).
func (j *ctJob) checkMountValue(opt, value string) error {
	if j.g.Config["protection"] == "1" {
		return errorf("can't update CT %d drive '%s' - protection mode enabled", j.g.VMID, opt)
	}
	mp, err := j.cl.conf.parseMountPoint(opt, value)
	if err != nil {
		return err
	}
	if !mp.isVolume() {
		return nil
	}
	sid, _, found := strings.Cut(mp.volume(), ":")
	if !found || sid == "" {
		return errorf("unable to parse volume ID '%s'", mp.volume())
	}
	st := j.cl.Storage(sid)
	if st == nil {
		return errorf("storage '%s' does not exist", sid)
	}
	if !st.hasContent("rootdir") {
		return errorf("storage '%s' does not allow content type 'rootdir' (Container)", sid)
	}
	return nil
}

// normalizedTags is get_unique_tags: PVE's tag form (W19).
// pve-guest-common src/PVE/GuestHelpers.pm get_unique_tags
func normalizedTags(value string) string {
	return pvegrammar.UniqueTags(value)
}
