package pvesim

import (
	"strings"
)

// What PVE refuses on a template once its volumes are base volumes (W17).
// Marking a guest a template makes each volume a base image that linked
// clones are backed by; PVE frees one only when no clone uses it.
//
// Resizing a template's disk is not refused: qemu-server
// src/PVE/API2/Qemu.pm resize_vm and pve-container src/PVE/API2/LXC.pm
// resize_vm check no template flag, and pve-storage's volume_resize
// (src/PVE/Storage.pm, the plugins' volume_resize) has no base-volume case,
// so a base volume grows like any other.

// checkCTBaseVolumesFree is pve-container's destroy meeting vdisk_free:
// a base volume a linked clone is backed by is not freed, and the error
// (naming the volume without its storage) ends the destroy task before
// the container's config is removed.
func checkCTBaseVolumesFree(cl *Cluster, g *Guest) error {
	if !g.IsTemplate() {
		return nil
	}
	for _, key := range ctVolumeKeys(g.Config) {
		volid := g.Config[key]
		if mp, err := cl.conf.parseMountPoint(key, volid); err == nil && mp.isVolume() {
			volid = mp.volume()
		}
		v := cl.Volume(g.Node, volid)
		if v == nil || linkedCloneOf(cl, v) == "" {
			continue
		}
		// pve-storage src/PVE/Storage.pm vdisk_free, reached through
		// pve-container src/PVE/LXC.pm destroy_lxc_container.
		_, volname, _ := strings.Cut(volid, ":")
		return errorf("base volume '%s' is still in use by linked clones", volname)
	}
	return nil
}
