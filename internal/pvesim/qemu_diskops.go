package pvesim

import (
	"regexp"
	"strconv"
	"strings"
)

// Disk operations on an existing guest: resize (W22) and move_disk (W23).

// resizeSize is resize_vm's "[+]NUMBER[KMGT]".
var resizeSize = regexp.MustCompile(`^(\+)?(\d+(?:\.\d+)?)([KMGT])?$`)

// qemu-server src/PVE/API2/Qemu.pm resize_vm (all checks in $updatefn,
// inside the worker since qemu-server 8.0).
func (s *Sim) resizeQemu(c *call) (any, error) {
	if err := rootOnly(c, "skiplock"); err != nil {
		return nil, err
	}
	node, vmid := c.str("node"), c.intParam("vmid", 0)
	disk, sizeStr, digest, skiplock := c.str("disk"), c.str("size"), c.str("digest"), c.boolParam("skiplock")
	cl := c.cluster
	canAllocate := func(storeID string) error {
		return c.check("/storage/"+storeID, false, "Datastore.AllocateSpace")
	}
	// Since PVE 8.0 every check of resize runs in the task, in $updatefn
	// under lock_config at the worker's start; the disk grows when the
	// task ends.
	var grow func(t *Task)
	t := s.startQemuWorker(node, "resize", vmid, c.user, func(*Task) error {
		var err error
		grow, err = resizeChecks(cl, node, vmid, disk, sizeStr, digest, skiplock, canAllocate)
		return err
	}, func(t *Task) error {
		if grow != nil {
			grow(t)
		}
		return nil
	})
	return t.UPID, nil
}

// resizeChecks are resize_vm's $updatefn checks; it returns what grows the
// disk, nil when the size stays.
// qemu-server src/PVE/API2/Qemu.pm resize_vm $updatefn
func resizeChecks(cl *Cluster, node string, vmid int, disk, sizeStr, digest string, skiplock bool,
	canAllocate func(storeID string) error,
) (func(t *Task), error) {
	g, err := lookupQemu(cl, node, vmid)
	if err != nil {
		return nil, err
	}
	if digest != "" && digest != guestDigest(g) {
		return nil, errorf("checksum mismatch (file change by other user?)")
	}
	if !skiplock {
		if err := g.CheckLock(); err != nil {
			return nil, err
		}
	}
	value, ok := g.Config[disk]
	if !ok {
		return nil, errorf("disk '%s' does not exist", disk)
	}
	d, _ := cl.conf.parseDrive(disk, value)
	st, _, err := parseVolume(cl, d.file())
	if err != nil {
		return nil, err
	}
	if d.isCDROM() {
		return nil, errorf("you can't resize a cdrom")
	}
	if err := canAllocate(st.ID); err != nil {
		return nil, err
	}
	v := cl.Volume(g.Node, d.file())
	if v == nil {
		return nil, errorf("Could not determine current size of volume '%s'", d.file())
	}
	newSize := parseResize(sizeStr, v.Size)
	if newSize < v.Size {
		return nil, errorf("shrinking disks is not supported") // W22
	}
	if newSize == v.Size {
		return nil, nil
	}
	allocated := newSize
	if st.Type == "lvm" || st.Type == "lvmthin" {
		allocated = (newSize + lvmExtent - 1) / lvmExtent * lvmExtent
	}
	if free := st.Capacity - cl.used(st, g.Node) + v.Size; allocated > free && !st.overcommits() {
		// inferred: the simulator's own text (see overcommits).
		return nil, errorf("storage '%s' has not enough free space on node '%s' (requested %d bytes, free %d bytes)",
			st.ID, g.Node, allocated, free)
	}
	return func(t *Task) {
		t.Log("resize disk %s to %d bytes", disk, newSize)
		v.Size = allocated
		d["size"] = strconv.FormatInt(newSize, 10)
		g.Config[disk] = d.print()
	}, nil
}

// parseResize computes resize_vm's new size in bytes: "+" grows relative to
// the current size; PVE truncates to whole bytes (qemu-server
// src/PVE/API2/Qemu.pm resize_vm).
func parseResize(spec string, current int64) int64 {
	m := resizeSize.FindStringSubmatch(spec)
	if m == nil {
		return current
	}
	n, _ := strconv.ParseFloat(m[2], 64)
	switch m[3] {
	case "K":
		n *= float64(kib)
	case "M":
		n *= float64(mib)
	case "G":
		n *= float64(gib)
	case "T":
		n *= float64(tib)
	}
	if m[1] == "+" {
		n += float64(current)
	}
	return int64(n)
}

// moveQemuDisk is move_vm_disk to another storage. Reassigning a disk to
// another guest (target-vmid) is not modelled.
// qemu-server src/PVE/API2/Qemu.pm move_vm_disk: the parameter checks,
// $load_and_check_move (before the fork and again in the worker; the digest
// text is pve-common src/PVE/Tools.pm assert_if_modified) and
// $move_updatefn ("storage migration failed: $err").
func (s *Sim) moveQemuDisk(c *call) (any, error) {
	_, hasTarget := c.param("target-vmid")
	storage := c.str("storage")
	switch {
	case hasTarget && storage != "":
		msg := "either set 'storage' or 'target-vmid', but not both"
		return nil, paramError(map[string]string{"target-vmid": msg, "storage": msg})
	case hasTarget:
		return nil, errorf("reassigning a disk to another VM ('target-vmid') is not supported by the simulator") // not simulated: disk reassign
	case storage == "":
		msg := "both 'storage' and 'target-vmid' missing, either needs to be set"
		return nil, paramError(map[string]string{"target-vmid": msg, "storage": msg})
	}
	if err := c.check("/storage/"+storage, false, "Datastore.AllocateSpace"); err != nil {
		return nil, err
	}
	node, vmid, disk := c.str("node"), c.intParam("vmid", 0), c.str("disk")
	format, digest, remove := c.str("format"), c.str("digest"), c.boolParam("delete")
	cl := c.cluster
	check := func(g *Guest) (drive, error) {
		if err := g.CheckLock(); err != nil {
			return nil, err
		}
		if digest != "" && digest != guestDigest(g) {
			return nil, errorf("detected modified configuration - file changed by other user? Try again.")
		}
		value, ok := g.Config[disk]
		if !ok {
			return nil, errorf("disk '%s' does not exist", disk)
		}
		d, _ := c.cluster.conf.parseDrive(disk, value)
		if d.file() == "" {
			return nil, errorf("disk '%s' has no associated volume", disk)
		}
		// drive_is_cdrom($drive, 1): a cloud-init drive may move.
		if d.isCDROMNotCloudInit() {
			return nil, errorf("you can't move a cdrom")
		}
		oldStore, info, err := parseVolume(cl, d.file())
		if err != nil {
			return nil, err
		}
		if oldStore.ID == storage && (format == "" || info.format == "" || info.format == format) {
			return nil, errorf("you can't move to the same storage with same format")
		}
		st, err := usableStorage(cl, storage, node)
		if err != nil {
			return nil, err
		}
		if !st.hasContent("images") {
			return nil, paramError(map[string]string{"storage": "storage '" + storage + "' does not support vm images"})
		}
		// Qemu.pm move_vm_disk: is_volume_in_use with the disk skipped.
		if remove && c.cluster.conf.volumeUsedElsewhere(g, disk, d.file()) {
			return nil, errorf("you can't move a disk with snapshots and delete the source")
		}
		return d, nil
	}
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if _, err := check(g); err != nil {
		return nil, err
	}
	// $load_and_check_move again under lock_config at the worker's start;
	// the copy shows when the task ends.
	var d drive
	t := s.startQemuWorker(node, "qmmove", vmid, c.user, func(*Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		d, err = check(g)
		return err
	}, func(t *Task) error {
		g, err := lookupQemu(cl, node, vmid)
		if err != nil {
			return err
		}
		old := d.file()
		t.Log("copying volume '%s' from current storage '%s' to target storage '%s'",
			old, strings.SplitN(old, ":", 2)[0], storage)
		if c.cluster.conf.volumeUsedElsewhere(g, disk, old) {
			// A plain warn of move_vm_disk: no log_warn, so not counted.
			t.Log("moving disk with snapshots, snapshots will not be moved!")
		}
		nd, v, err := s.cloneDisk(cl, g, vmid, disk, d, true, storage, format)
		if err != nil {
			return errorf("storage migration failed: %s", strings.TrimSuffix(asAPIError(err).message, "\n")) // qemu-server src/PVE/API2/Qemu.pm move_vm_disk $move_updatefn
		}
		if g.IsTemplate() {
			base, err := createBase(cl, g.Node, v.VolID)
			if err == nil {
				nd["file"] = base
			}
		}
		g.Config[disk] = nd.print()
		if remove {
			t.Log("removing source volume '%s' after successful copy", old)
			if err := freeVolume(cl, g.Node, old); err != nil {
				// qemu-server src/PVE/API2/Qemu.pm move_vm_disk: warn $@
				t.Note("%s", asAPIError(err).Error())
			}
		} else {
			key, err := addUnused(g.Config, old)
			if err != nil {
				return err
			}
			t.Log("adding source volume '%s' as '%s' to config", old, key)
		}
		c.cluster.conf.writeConfig(g)
		return nil
	})
	return t.UPID, nil
}
