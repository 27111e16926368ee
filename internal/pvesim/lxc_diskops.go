package pvesim

import (
	"net/http"
	"strconv"
	"strings"
)

// Container volume operations: resize (W22) and move_volume (W23).

// mountPointOf is parse_volume on the config value of key; a key the
// config does not hold fails like parsing an empty string does
// (pve-container src/PVE/LXC/Config.pm parse_volume through pve-common
// src/PVE/JSONSchema.pm parse_property_string).
func (cs *guestSchema) mountPointOf(g *Guest, key string) (mountPoint, error) {
	value, ok := g.Config[key]
	if !ok {
		params := map[string]string{"volume": "property is missing and it is not optional"}
		if key != "rootfs" {
			params["mp"] = "property is missing and it is not optional"
		}
		return nil, &apiError{status: http.StatusInternalServerError, message: "format error\n", params: params}
	}
	return cs.parseMountPoint(key, value)
}

// resizeLXC is resize_vm. Unlike qemu-server, pve-container checks before
// it forks: shrinking and the same size are refused synchronously
// (pve-container src/PVE/API2/LXC.pm resize_vm $load_and_check; the digest
// text is pve-common src/PVE/Tools.pm assert_if_modified).
func (s *Sim) resizeLXC(c *call) (any, error) {
	node, vmid, disk, sizeStr := c.str("node"), c.intParam("vmid", 0), c.str("disk"), c.str("size")
	cl := c.cluster
	check := func(g *Guest) (mountPoint, *Volume, int64, error) {
		if err := g.CheckLock(); err != nil {
			return nil, nil, 0, err
		}
		// The method's own parameters go through the config permission
		// check, where they need VM.Config.Options.
		if err := checkCTModifyPerm(c, ctModifyCheck{vmid: vmid, oldConf: g.Config,
			newConf: map[string]string{"disk": disk, "size": sizeStr}, unprivileged: g.Config["unprivileged"] == "1",
		}); err != nil {
			return nil, nil, 0, err
		}
		if d := c.str("digest"); d != "" && d != guestDigest(g) {
			return nil, nil, 0, errorf("detected modified configuration - file changed by other user? Try again.")
		}
		mp, err := c.cluster.conf.mountPointOf(g, disk)
		if err != nil {
			return nil, nil, 0, err
		}
		st, info, err := parseVolume(cl, mp.volume())
		if err != nil {
			return nil, nil, 0, err
		}
		if info.owner != vmid {
			return nil, nil, 0, errorf("can't resize mount point owned by another container (%d)", info.owner)
		}
		if err := c.check("/storage/"+st.ID, false, "Datastore.AllocateSpace"); err != nil {
			return nil, nil, 0, err
		}
		v := cl.Volume(g.Node, mp.volume())
		if v == nil {
			return nil, nil, 0, errorf("Could not determine current size of volume '%s'", mp.volume())
		}
		newSize := parseResize(sizeStr, v.Size)
		if newSize < v.Size {
			return nil, nil, 0, errorf("unable to shrink disk size") // W22
		}
		if newSize == v.Size {
			return nil, nil, 0, errorf("disk is already at specified size")
		}
		return mp, v, newSize, nil
	}
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if _, _, _, err := check(g); err != nil {
		return nil, err
	}
	// The worker runs $load_and_check again under lock_config as it
	// starts, and resizes with what it found (pve-container
	// src/PVE/API2/LXC.pm resize_vm $code).
	var mp mountPoint
	var v *Volume
	var newSize int64
	t := s.startWorker(node, "resize", itoa(vmid), c.user, workerSpec{
		locks: s.guestTaskLocks("resize", itoa(vmid)),
		begin: func(*Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			mp, v, newSize, err = check(g)
			return err
		},
		work: func(t *Task) error {
			g, err := lookupGuest(cl, LXC, node, vmid)
			if err != nil {
				return err
			}
			st := cl.Storage(v.Storage)
			allocated := newSize
			if st.Type == "lvm" || st.Type == "lvmthin" {
				allocated = (newSize + lvmExtent - 1) / lvmExtent * lvmExtent
			}
			if free := st.Capacity - cl.used(st, g.Node) + v.Size; allocated > free && !st.overcommits() {
				// inferred: the simulator's own text (see overcommits).
				return errorf("storage '%s' has not enough free space on node '%s' (requested %d bytes, free %d bytes)",
					st.ID, g.Node, allocated, free)
			}
			t.Log("update CT %d: resize --disk %s --size %s", vmid, disk, sizeStr)
			v.Size = allocated
			mp["size"] = strconv.FormatInt(newSize, 10)
			g.Config[disk] = mp.print(disk)
			cl.conf.writeCTConfig(g)
			return nil
		},
	})
	return t.UPID, nil
}

// moveLXCVolume is move_volume to another storage. The copy keeps the
// data under a new volid; the source becomes unusedN unless delete=1
// (pve-container src/PVE/API2/LXC.pm move_volume). The worker checks
// nothing at its start: it loads the config and copies.
// Moving a volume to another container (target-vmid) is not modelled.
func (s *Sim) moveLXCVolume(c *call) (any, error) {
	_, hasTarget := c.param("target-vmid")
	storage := c.str("storage")
	switch {
	case hasTarget && storage != "":
		msg := "either set 'storage' or 'target-vmid', but not both"
		return nil, paramError(map[string]string{"target-vmid": msg, "storage": msg})
	case hasTarget:
		return nil, errorf("moving a volume to another container ('target-vmid') is not supported by the simulator") // not simulated: volume reassign
	case storage == "":
		msg := "both 'storage' and 'target-vmid' missing, either needs to be set"
		return nil, paramError(map[string]string{"target-vmid": msg, "storage": msg})
	}
	if err := c.check("/storage/"+storage, false, "Datastore.AllocateSpace"); err != nil {
		return nil, err
	}
	node, vmid, key := c.str("node"), c.intParam("vmid", 0), c.str("volume")
	remove := c.boolParam("delete")
	// $move_to_storage_checks run under lock_config in the handler and set
	// the "disk" lock before the worker forks; the worker holds no flock
	// for its run (pve-container src/PVE/API2/LXC.pm move_volume).
	if err := c.waitGuestFlock(LXC, vmid, configLockTimeout); err != nil {
		return nil, err
	}
	g, err := loadGuest(c, LXC)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	if g.Status == "running" {
		return nil, errorf("cannot move volumes of a running container")
	}
	if strings.HasPrefix(key, "unused") {
		return nil, errorf("cannot move volume '%s', only configured volumes can be moved to another storage", key)
	}
	mp, err := c.cluster.conf.mountPointOf(g, key)
	if err != nil {
		return nil, err
	}
	// pve-container src/PVE/API2/LXC.pm move_volume,
	// is_volume_in_use_by_snapshots.
	if remove && c.cluster.conf.volumeInSnapshot(g, mp.volume()) {
		return nil, errorf("you can't move a volume with snapshots and delete the source")
	}
	if d := c.str("digest"); d != "" && d != guestDigest(g) {
		return nil, errorf("detected modified configuration - file changed by other user? Try again.")
	}
	g.Config["lock"] = "disk"
	cl := c.cluster
	t := s.startTask(node, "move_volume", itoa(vmid), c.user, func(t *Task) error {
		defer cl.UnlockGuest(vmid, "disk")
		g, err := lookupGuest(cl, LXC, node, vmid)
		if err != nil {
			return err
		}
		old := mp.volume()
		if !mp.isVolume() {
			return errorf("cannot copy volumes of type %s", mp.kind()) // pve-container src/PVE/LXC.pm copy_volume
		}
		size := mp.sizeBytes()
		if size == 0 {
			if size, err = volumeSize(cl, g.Node, old); err != nil {
				return err
			}
		}
		t.Log("moving volume '%s' (%s) to storage '%s'", key, old, storage)
		v, err := s.allocCTDisk(cl, g.Node, vmid, storage, size)
		if err != nil {
			return err
		}
		newVolid := v.VolID
		if g.IsTemplate() {
			if newVolid, err = createBase(cl, g.Node, v.VolID); err != nil {
				cl.RemoveVolume(g.Node, v.VolID)
				return err
			}
		}
		mp["volume"] = newVolid
		g.Config[key] = mp.print(key)
		if remove {
			if err := freeVolume(cl, g.Node, old); err != nil {
				// pve-container src/PVE/API2/LXC.pm move_volume: warn $@
				t.Note("%s", asAPIError(err).Error())
				_, _ = addCTUnused(g.Config, old)
			}
		} else if _, err := addCTUnused(g.Config, old); err != nil {
			return err
		}
		c.cluster.conf.writeCTConfig(g)
		return nil
	})
	return t.UPID, nil
}
