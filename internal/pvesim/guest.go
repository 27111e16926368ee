package pvesim

// What VMs and containers share: finding a guest's config on a node,
// listing its pending changes, and what destroying or migrating a guest
// does to the volumes and pool membership it leaves behind.

// lookupGuest is load_config for a vmid on a node: a guest that is not
// there, or is of the other kind, is W12's missing config file.
// pve-guest-common src/PVE/AbstractConfig.pm load_config
func lookupGuest(cl *Cluster, typ GuestType, node string, vmid int) (*Guest, error) {
	g := cl.Guests[vmid]
	if g == nil || g.Type != typ || g.Node != node {
		return nil, errorf("Configuration file '%s' does not exist", configPath(node, typ, vmid))
	}
	return g, nil
}

// loadGuest is lookupGuest for the node and vmid of a request.
func loadGuest(c *call, typ GuestType) (*Guest, error) {
	return lookupGuest(c.cluster, typ, c.str("node"), c.intParam("vmid", 0))
}

// pendingArray is config_with_pending_array: one entry per key with its
// current value, pending value and pending deletion (2 when forced), then
// the digest. cfg and pending are the values to show (secrets already
// masked); typed turns a value into its JSON form (W5).
// pve-guest-common src/PVE/GuestHelpers.pm config_with_pending_array
func pendingArray(g *Guest, cfg, pending map[string]string, typed func(key, value string) any) []map[string]any {
	pending = copyMap(pending)
	dels := pendingDeletes(g)
	out := []map[string]any{}
	for _, k := range sortedKeys(cfg) {
		item := map[string]any{"key": k, "value": typed(k, cfg[k])}
		if p, ok := pending[k]; ok {
			item["pending"] = typed(k, p)
			delete(pending, k)
		}
		if force, ok := dels[k]; ok {
			item["delete"] = deleteFlag(force)
			delete(dels, k)
		}
		out = append(out, item)
	}
	for _, k := range sortedKeys(pending) {
		if k != deleteKey {
			out = append(out, map[string]any{"key": k, "pending": typed(k, pending[k])})
		}
	}
	for _, k := range sortedKeysOf(dels) {
		out = append(out, map[string]any{"key": k, "delete": deleteFlag(dels[k])})
	}
	return append(out, map[string]any{"key": "digest", "value": guestDigest(g)})
}

// destroyGuest removes a guest and the volumes its config owns, each kind
// the way its own destroy code does.
func destroyGuest(cl *Cluster, g *Guest, skiplock, unreferenced bool, t *Task) error {
	if g.Type == LXC {
		return destroyCT(cl, g, skiplock, unreferenced, t)
	}
	if err := destroyVMChecks(cl, g, skiplock); err != nil {
		return err
	}
	destroyVM(cl, g, unreferenced, t)
	return nil
}

// dropGuest is the end of every destroy: with destroy-unreferenced-disks
// every image the vmid still owns is freed, the guest leaves its pool
// (remove_vm_access does that whether or not purge is set) and its config
// is gone.
// pve-access-control src/PVE/AccessControl.pm remove_vm_access, called by
// qemu-server src/PVE/API2/Qemu.pm destroy_vm and pve-container
// src/PVE/API2/LXC.pm destroy_vm whether or not purge is set.
func dropGuest(cl *Cluster, g *Guest, unreferenced bool, t *Task) {
	if unreferenced {
		for _, v := range ownedVolumes(cl, g.Node, g.VMID) {
			if err := freeVolume(cl, v.Node, v.VolID); err != nil {
				// qemu-server src/PVE/QemuServer.pm destroy_vm counts it
				// (log_warn); pve-container src/PVE/LXC.pm
				// destroy_lxc_container only warns.
				if g.Type == QEMU {
					t.Warn("%s", asAPIError(err).Error())
				} else {
					t.Note("%s", asAPIError(err).Error())
				}
			}
		}
	}
	if pool := cl.PoolOf(g.VMID); pool != "" {
		cl.removePoolMember(pool, g.VMID)
	}
	cl.RemoveGuest(g.VMID)
}

// rewriteVolumeRefs points every config reference to a renamed volume at
// its new volid, after a migration had to rename it on the target.
func (cs *guestSchema) rewriteVolumeRefs(g *Guest, renamed map[string]string) {
	if len(renamed) == 0 {
		return
	}
	for _, cfg := range []map[string]string{g.Config, g.Pending} {
		if g.Type == LXC {
			cs.rewriteMountPoints(cfg, renamed)
			continue
		}
		for _, key := range volumeKeys(cfg) {
			if d, ok := cs.parseDrive(key, cfg[key]); ok {
				if nv, ok := renamed[d.file()]; ok {
					d["file"] = nv
					cfg[key] = d.print()
				}
			} else if nv, ok := renamed[cfg[key]]; ok {
				cfg[key] = nv
			}
		}
	}
	cs.rewriteSnapshotVolumeRefs(g, renamed)
}
