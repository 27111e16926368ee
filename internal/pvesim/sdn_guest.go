package pvesim

import (
	"sort"
	"strconv"
	"strings"
)

// Guests' network devices on SDN vnets.

// sdnBridgeZone is the zone pve-guest-common src/PVE/GuestHelpers.pm
// check_vnet_access checks a bridge under: the zone of the vnet of that
// name in vnets.cfg (the staged file, not the running config), otherwise
// "localnetwork".
func sdnBridgeZone(cl *Cluster, bridge string) string {
	if v := cl.SDN.Get(SDNVnets, bridge); v != nil {
		if z, ok := v.Props["zone"]; ok {
			return z
		}
	}
	return "localnetwork"
}

// sdnTrunkTags is pve-guest-common src/PVE/GuestHelpers.pm
// get_tags_from_trunk: "10;20-22" is 10, 20, 21 and 22; the tags come
// sorted as strings, as Perl's sort keys does.
func sdnTrunkTags(trunks string) []string {
	set := map[string]bool{}
	for _, trunk := range strings.Split(trunks, ";") {
		lo, hi, _ := strings.Cut(trunk, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if errA == nil && errB == nil && b > a {
			for n := a; n <= b; n++ {
				set[strconv.Itoa(n)] = true
			}
			continue
		}
		set[lo] = true
	}
	out := sortedKeys(set)
	sort.Strings(out)
	return out
}

// checkVnetAccess is pve-guest-common src/PVE/GuestHelpers.pm
// check_vnet_access: SDN.Use on /sdn/zones/<zone>/<bridge>/<tag> for a
// tagged device, on each trunk's tag, and on /sdn/zones/<zone>/<bridge>
// when there is neither. root@pam passes (qemu-server
// src/PVE/QemuServer.pm and pve-container src/PVE/LXC.pm
// check_bridge_access).
func checkVnetAccess(c *call, bridge, tag, trunks string) error {
	if isRootPam(c) || bridge == "" {
		return nil
	}
	zone := sdnBridgeZone(c.cluster, bridge)
	base := "/sdn/zones/" + zone + "/" + bridge
	if perlTruthy(tag) {
		if err := c.check(base+"/"+tag, false, "SDN.Use"); err != nil {
			return err
		}
	}
	if trunks != "" {
		for _, t := range sdnTrunkTags(trunks) {
			if err := c.check(base+"/"+t, false, "SDN.Use"); err != nil {
				return err
			}
		}
	}
	if !perlTruthy(tag) && trunks == "" {
		return c.check(base, false, "SDN.Use")
	}
	return nil
}

// checkQemuBridgeAccess is qemu-server src/PVE/QemuServer.pm
// check_bridge_access over the netN keys given (sorted).
func checkQemuBridgeAccess(c *call, conf map[string]string) error {
	if isRootPam(c) {
		return nil
	}
	for _, k := range sortedKeys(conf) {
		if !strings.HasPrefix(k, "net") || isDriveKey(k) || conf[k] == "" {
			continue
		}
		n, msg := c.cluster.conf.qemu.PropertyString(k, conf[k])
		if msg != "" {
			continue
		}
		if err := checkVnetAccess(c, n["bridge"], n["tag"], n["trunks"]); err != nil {
			return err
		}
	}
	return nil
}
