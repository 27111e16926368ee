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

// checkStartVnets is what a VM's start asks of each net device on an SDN
// vnet: qemu-server's network script (src/usr/pve-bridge) plugs the tap
// device into the vnet's bridge (pve-network src/PVE/Network/SDN/Zones.pm
// tap_create: a vnet missing from the running config falls back to a
// plain bridge of that name), and a bridge the node's network does not
// have fails (pve-common src/PVE/Network.pm read_bridge_mtu, "bridge
// '$bridge' does not exist"): a vnet only staged, not applied, on a zone
// that leaves the node out, or not yet reloaded on the node. QEMU then
// exits and the start fails (qemu-server src/PVE/QemuServer.pm
// vm_start_nolock, "start failed: QEMU exited with code 1"; inferred: the
// exit code and QEMU's line about the failed script). Bridges that are no
// vnet are not checked (not simulated: the node's own bridges).
func checkStartVnets(cl *Cluster, g *Guest, t *Task) error {
	sd := cl.SDN
	for i := 0; i < 32; i++ {
		opt := "net" + strconv.Itoa(i)
		raw, ok := g.Config[opt]
		if !ok {
			continue
		}
		n, msg := cl.conf.qemu.PropertyString(opt, raw)
		bridge := n["bridge"]
		if msg != "" || bridge == "" {
			continue
		}
		if sd.Get(SDNVnets, bridge) == nil && sd.RunningObject(SDNVnets, bridge) == nil {
			continue
		}
		if sd.vnetOnNode(bridge, g.Node) {
			continue
		}
		t.Note("bridge '%s' does not exist", bridge)
		t.Note("kvm: -netdev type=tap,id=%s,ifname=tap%di%d,script=/usr/libexec/qemu-server/pve-bridge,"+
			"downscript=/usr/libexec/qemu-server/pve-bridgedown: network script /usr/libexec/qemu-server/pve-bridge failed with status 512",
			opt, g.VMID, i)
		return errorf("start failed: QEMU exited with code 1")
	}
	return nil
}

// sdnLocalVnets is pve-network src/PVE/Network/SDN.pm get_local_vnets:
// the running config's vnets whose zone includes the node and that the
// caller holds SDN.Audit or SDN.Use on (check_sdn_bridge on
// /sdn/zones/<zone>/<vnet>), as interfaces of type vnet.
func sdnLocalVnets(c *call, node string) map[string]map[string]any {
	sd := c.cluster.SDN
	out := map[string]map[string]any{}
	for _, id := range sortedKeys(sd.Running.Kinds[SDNVnets]) {
		v := sd.Running.Kinds[SDNVnets][id]
		zone := v.Props["zone"]
		if zone == "" {
			continue
		}
		if !isRootPam(c) && !c.can("/sdn/zones/"+zone+"/"+id, true, "SDN.Audit", "SDN.Use") {
			continue
		}
		z := sd.RunningObject(SDNZones, zone)
		if z != nil {
			if nodes := sdnZoneNodes(z); nodes != nil && !nodes[node] {
				continue
			}
		}
		ipam, vlanaware := 0, 0
		if z != nil && perlTruthy(z.Props["ipam"]) {
			ipam = 1
		}
		if perlTruthy(v.Props["vlanaware"]) {
			vlanaware = 1
		}
		var comments any
		if alias, ok := v.Props["alias"]; ok {
			comments = alias
		}
		out[id] = map[string]any{"type": "vnet", "active": "1", "ipam": ipam, "vlanaware": vlanaware, "comments": comments}
	}
	return out
}
