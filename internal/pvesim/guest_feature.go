package pvesim

import "net/http"

// GET /nodes/{node}/{qemu|lxc}/{vmid}/feature: qemu-server
// src/PVE/API2/Qemu.pm vm_feature and pve-container src/PVE/API2/LXC.pm
// vm_feature. Clients ask it whether a guest can be snapshotted, cloned or
// copied (of its current state or of a snapshot) before they try.

func (s *Sim) registerFeatureRoutes() {
	for _, typ := range []GuestType{QEMU, LXC} {
		s.handle(http.MethodGet, "/nodes/{node}/"+string(typ)+"/{vmid}/feature", route{
			perm:   permission{path: "/vms/{vmid}", privs: []string{"VM.Audit"}},
			handle: func(c *call) (any, error) { return guestFeature(c, typ) },
		})
	}
}

// guestFeature loads the config (or the snapshot's), then has_feature:
// every volume must have the feature (QemuConfig.pm skips CD-ROMs, the
// cloud-init drive too; LXC/Config.pm walks every mount point, and its
// clone and copy want raw or subvol targets). The VM answer adds nodes,
// shared_nodes (QemuServer.pm): every node, less those a storage of the
// config is not on (a disabled storage leaves none, a storage restricted
// to some nodes keeps those, a local storage keeps this node); a
// container's answer has hasFeature only.
func guestFeature(c *call, typ GuestType) (any, error) {
	g, err := loadGuest(c, typ)
	if err != nil {
		return nil, err
	}
	cfg := g.Config
	snapName := c.str("snapname")
	if snapName != "" {
		if cfg, err = loadSnapshot(g, snapName); err != nil {
			return nil, err
		}
	}
	feature := c.str("feature")
	has := true
	for _, v := range c.cluster.conf.snapshotVolumes(typ, cfg) {
		if !volumeHasFeature(c.cluster, feature, v.volid, snapName != "", typ == LXC && feature != "snapshot") {
			has = false
		}
	}
	out := map[string]any{"hasFeature": boolInt(has)}
	if typ == LXC {
		return out, nil
	}
	nodes := map[string]bool{}
	for _, n := range c.cluster.Nodes {
		nodes[n.Name] = true
	}
	for _, key := range guestDrives(cfg) {
		d, ok := c.cluster.conf.parseDrive(key, cfg[key])
		if !ok {
			continue
		}
		st, _, err := parseVolume(c.cluster, d.file())
		if err != nil {
			continue
		}
		for n := range nodes {
			if st.Disabled || st.Nodes != nil && !st.availableOn(n) || st.Nodes == nil && !st.Shared && n != g.Node {
				delete(nodes, n)
			}
		}
	}
	// keys %$nodelist: no order in PVE; sorted here.
	out["nodes"] = sortedKeys(nodes)
	return out, nil
}
