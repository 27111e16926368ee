package lxc

import (
	"slices"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ guestops.ConfigKeyOwner = (*containerResource)(nil)

// representedKeys are the container config keys an attribute of
// pve_container reads and writes. Slot keys (mount points, NICs) are
// matched by pattern in RepresentsConfigKey.
var representedKeys = map[string]bool{
	keyHostname: true, guestops.KeyDescription: true, guestops.KeyTags: true,
	guestops.KeyOnBoot: true, guestops.KeyProtection: true, keyUnprivileged: true,
	keyCores: true, keyCPULimit: true, keyCPUUnits: true, keyMemory: true, keySwap: true,
	keyRootFS: true, keyFeatures: true, keySearchDomain: true, keyNameserver: true,
	keyConsole: true, keyConsoleMode: true, keyTTY: true,
}

// detectedKeys are written by PVE at create from the template archive (its
// architecture and distribution), not chosen by anyone: like PVE's
// bookkeeping keys, an import does not list them as unmanaged.
var detectedKeys = map[string]bool{"arch": true, "ostype": true}

// RepresentsConfigKey tells which keys of a container's config
// pve_container has an attribute for: the lists above and every mount point
// and NIC slot. unusedN (W24), raw lxc.* keys and every other key are not.
func (r *containerResource) RepresentsConfigKey(key, _ string) bool {
	return representedKeys[key] || detectedKeys[key] ||
		wire.IsMountPointSlot(key) || wire.IsNetSlot(key) || wire.IsLXCDevSlot(key)
}

var _ guestops.ConfigOptionOwner = (*containerResource)(nil)

// Options the attributes hold, per kind of represented key. size is PVE's
// record of a volume's size; a NIC's type (veth) is PVE's own.
var (
	rootFSOptions     = []string{optSize}
	mountPointOptions = []string{optPath, optSize, optBackup, optReadOnly, optACL, optQuota, optReplicate, optShared}
	nicOptions        = []string{
		nicNameKey, nicBridgeKey, nicTagKey, nicFirewallKey, nicMACKey, nicMTUKey, nicRateKey,
		nicIPKey, nicGatewayKey, nicIP6Key, nicGateway6Key, "type",
	}
	featureOptions = []string{featNesting, featKeyctl, featFuse, featMknod, featMount}
)

// UnmanagedOptions lists the options of a represented key that no
// attribute holds: mount options of the root disk, a NIC's trunks, feature
// flags such as force_rw_sys and the like. PVE keeps them, and so do the
// provider's rewrites, but configuration cannot show them.
func (r *containerResource) UnmanagedOptions(key, value string) []string {
	switch {
	case key == keyRootFS:
		return driveOptionsOutside(value, rootFSOptions)
	case wire.IsMountPointSlot(key):
		return driveOptionsOutside(value, mountPointOptions)
	case wire.IsNetSlot(key):
		return guestops.OptionsOutside(value, "", nicOptions...)
	case wire.IsLXCDevSlot(key):
		return guestops.OptionsOutside(value, wire.LXCDevPathKey, deviceOptions...)
	case key == keyFeatures:
		return guestops.OptionsOutside(value, "", featureOptions...)
	}
	return nil
}

func driveOptionsOutside(value string, represented []string) []string {
	drive, err := wire.ParseDrive(value)
	if err != nil {
		return nil
	}
	var out []string
	for opt := range drive.Options {
		if !slices.Contains(represented, opt) {
			out = append(out, opt)
		}
	}
	slices.Sort(out)
	return out
}
