package pvesim

import (
	"strings"
)

// What PVE refuses on a template once its volumes are base volumes (W17).
// Marking a guest a template makes each volume a read-only base image that
// linked clones are backed by; PVE frees one only when no clone uses it,
// and this simulator never resizes one (stricter than storages whose
// plugin would let a base image grow: in doubt, refuse).

// checkBaseResize refuses resizing a template's base volume.
func checkBaseResize(cl *Cluster, volid string) error {
	// A volume the storage cannot parse is refused by resize's own checks.
	if _, info, err := parseVolume(cl, volid); err == nil && info.isBase {
		return errorf("unable to resize volume '%s' - base volumes of a template are read-only", volid)
	}
	return nil
}

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
		if mp, err := parseMountPoint(key, volid); err == nil && mp.isVolume() {
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
