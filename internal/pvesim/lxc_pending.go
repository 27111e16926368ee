package pvesim

import (
	"errors"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// Applying a container's [pve:pending] section: vmconfig_apply_pending for
// a stopped container (and at every start), vmconfig_hotplug_pending for a
// running one.

// ctFastPlug are the keys that change in a running container at once.
var ctFastPlug = map[string]bool{
	"description": true, "onboot": true, "startup": true, "protection": true, "hostname": true,
	"hookscript": true, "cores": true, "tags": true, "lock": true,
}

// applyPending is vmconfig_apply_pending. selection limits it to the keys
// a request changed; nil applies everything (a start). A removed mount
// point's volume becomes unusedN (W24); removing unusedN frees its volume;
// a mount point set in create form gets a new volume, and the volume it
// replaces becomes unusedN (W37, W21).
// pve-container src/PVE/LXC/Config.pm vmconfig_apply_pending
func (j *ctJob) applyPending(selection map[string]bool, errs map[string]string) {
	g := j.g
	fail := func(opt string, err error) {
		errs[opt] = "unable to apply pending change " + opt + " : " + asAPIError(err).Error()
	}
	dels := pendingDeletes(g)
	for _, opt := range sortedKeysOf(dels) {
		if selection != nil && !selection[opt] {
			continue
		}
		if err := j.deletePendingValue(opt); err != nil {
			fail(opt, err)
			continue
		}
		delete(g.Config, opt)
		removePendingDelete(g, opt)
	}
	cleanupPending(g)
	for _, opt := range sortedKeys(g.Pending) {
		if opt == deleteKey || selection != nil && !selection[opt] {
			continue
		}
		if isMountKey(opt) && opt != "rootfs" {
			if err := j.applyPendingMountPoint(opt, false); err != nil {
				fail(opt, err)
				continue
			}
		} else if isCTNetKey(opt) {
			v, err := j.s.normalizeCTNet(opt, g.Pending[opt])
			if err != nil {
				fail(opt, err)
				continue
			}
			g.Pending[opt] = v
		}
		g.Config[opt] = g.Pending[opt]
		delete(g.Pending, opt)
	}
}

// deletePendingValue is what applying a pending deletion does besides
// dropping the key.
// pve-container src/PVE/LXC/Config.pm vmconfig_apply_pending (the delete branch)
func (j *ctJob) deletePendingValue(opt string) error {
	g := j.g
	value, ok := g.Config[opt]
	if !ok {
		return nil
	}
	switch {
	case isMountKey(opt) && opt != "rootfs":
		mp, err := j.cl.conf.parseMountPoint(opt, value)
		if err != nil {
			return err
		}
		if mp.isVolume() {
			// PVE asks is_volume_in_use with the whole mount point string,
			// which never matches: the volume always becomes unusedN.
			_, err := addCTUnused(g.Config, mp.volume())
			return err
		}
	case pvegrammar.IsLXCUnusedKey(opt):
		j.freeUnlessUsed(value)
	}
	return nil
}

// freeUnlessUsed schedules delete_mountpoint_volume for a volume no mount
// point, current, pending or of a snapshot, uses (is_volume_in_use with
// snapshots and pending); a used volume only leaves the config, silently.
func (j *ctJob) freeUnlessUsed(volid string) {
	if j.cl.conf.ctVolumes(j.g.Config)[volid] || j.cl.conf.ctVolumes(j.g.Pending)[volid] || j.cl.conf.volumeInSnapshot(j.g, volid) {
		return
	}
	j.toFree = append(j.toFree, volid)
}

// applyPendingMountPoint is apply_pending_mountpoint: a create form
// allocates a new volume; another value is printed with the volume's real
// size. On a running container an existing mount point is left pending.
// The volume the old value held becomes unusedN (and is dropped again on
// write if a mount point still uses it, so the live form with the same
// volume changes options and path in place, W37).
// pve-container src/PVE/LXC/Config.pm apply_pending_mountpoint
func (j *ctJob) applyPendingMountPoint(opt string, running bool) error {
	g := j.g
	mp, err := j.cl.conf.parseMountPoint(opt, g.Pending[opt])
	if err != nil {
		return err
	}
	old, hasOld := g.Config[opt]
	if sm := newDiskRE.FindStringSubmatch(mp.volume()); sm != nil && mp.isVolume() {
		value, v, err := j.s.createMountPoint(j.cl, g.Node, g.VMID, opt, g.Pending[opt])
		if err != nil {
			return err
		}
		j.made = append(j.made, v)
		g.Pending[opt] = value
	} else {
		if running && hasOld {
			return errSkipHotplug
		}
		if mp.isVolume() {
			if v := j.cl.Volume(g.Node, mp.volume()); v != nil {
				mp["size"] = itoa64(v.Size)
			}
		}
		g.Pending[opt] = mp.print(opt)
	}
	if hasOld {
		if om, err := j.cl.conf.parseMountPoint(opt, old); err == nil && om.isVolume() {
			if _, err := addCTUnused(g.Config, om.volume()); err != nil {
				return err
			}
		}
	}
	return nil
}

// hotplugPending is vmconfig_hotplug_pending for the keys a request
// changed. Live: the fast-plug keys, cpulimit, cpuunits, memory, swap,
// NIC changes, new mount points and removing unusedN. Everything else
// (features, DNS, console, a changed or removed mount point, rootfs, ...)
// stays pending until the container is started again.
// pve-container src/PVE/LXC/Config.pm vmconfig_hotplug_pending
func (j *ctJob) hotplugPending(selection map[string]bool, errs map[string]string) {
	g := j.g
	for _, opt := range sortedKeys(g.Pending) {
		if opt != deleteKey && selection[opt] && ctFastPlug[opt] {
			g.Config[opt] = g.Pending[opt]
			delete(g.Pending, opt)
		}
	}
	fail := func(opt string, err error) {
		errs[opt] = "unable to hotplug " + opt + ": " + asAPIError(err).Error()
	}
	dels := pendingDeletes(g)
	for _, opt := range sortedKeysOf(dels) {
		if !selection[opt] {
			continue
		}
		switch {
		case ctFastPlug[opt], opt == "swap", opt == "cpulimit", opt == "cpuunits", isCTNetKey(opt):
		case pvegrammar.IsLXCUnusedKey(opt):
			j.freeUnlessUsed(g.Config[opt])
		default:
			continue
		}
		delete(g.Config, opt)
		removePendingDelete(g, opt)
	}
	for _, opt := range sortedKeys(g.Pending) {
		if opt == deleteKey || !selection[opt] {
			continue
		}
		var err error
		switch {
		case opt == "cpulimit", opt == "cpuunits", opt == "memory", opt == "swap":
		case isCTNetKey(opt):
			var v string
			if v, err = j.s.normalizeCTNet(opt, g.Pending[opt]); err == nil {
				g.Pending[opt] = v
			}
		case isMountKey(opt) && opt != "rootfs":
			if _, exists := g.Config[opt]; exists {
				continue
			}
			err = j.applyPendingMountPoint(opt, true)
		case strings.HasPrefix(opt, "dev"):
			if _, exists := g.Config[opt]; exists {
				continue
			}
		default:
			continue
		}
		if errors.Is(err, errSkipHotplug) {
			continue
		}
		if err != nil {
			fail(opt, err)
			continue
		}
		g.Config[opt] = g.Pending[opt]
		delete(g.Pending, opt)
	}
}
