package pvesim

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// GET /nodes/{node}/lxc/{vmid}/interfaces: pve-container
// src/PVE/API2/LXC.pm (path '{vmid}/interfaces') and src/PVE/LXC.pm
// get_interfaces, which reads `ip --json a` inside the container's network
// namespace.

func (s *Sim) registerGuestExtraRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/lxc/{vmid}/interfaces", route{
		perm:   permission{path: "/vms/{vmid}", privs: []string{"VM.Audit"}},
		handle: lxcInterfaces,
	})
	// cloudinit_update takes lock_config before it loads the config.
	s.handle(http.MethodPut, "/nodes/{node}/qemu/{vmid}/cloudinit", route{
		perm:       permission{path: "/vms/{vmid}", privs: []string{"VM.Config.Cloudinit"}},
		configLock: true,
		handle:     regenerateCloudInit,
	})
}

// ctAddress is one entry of an interface's addr_info.
type ctAddress struct {
	family string // inet, inet6
	local  string
	prefix int
}

// lxcInterfaces is get_interfaces: without a running container there is
// no pid (find_lxc_pid dies, the error is swallowed) and the answer is
// null; PVE does not load the config first, so an unknown vmid answers
// null too. Each interface carries ip-addresses, hardware-address and the
// legacy hwaddr, inet and inet6 (the last address of each family).
func lxcInterfaces(c *call) (any, error) {
	g := c.cluster.Guests[c.intParam("vmid", 0)]
	if g == nil || g.Type != LXC || g.Node != c.str("node") || g.Status != "running" {
		return nil, nil
	}
	type iface struct {
		name, mac string
		addrs     []ctAddress
	}
	list := []iface{{name: "lo", mac: "00:00:00:00:00:00", addrs: []ctAddress{{"inet", "127.0.0.1", 8}, {"inet6", "::1", 128}}}}
	for i := 0; i < 32; i++ {
		key := fmt.Sprintf("net%d", i)
		raw, ok := g.Config[key]
		if !ok {
			continue
		}
		n, msg := c.cluster.conf.lxc.PropertyString(key, raw)
		if msg != "" {
			continue
		}
		list = append(list, iface{name: n["name"], mac: strings.ToLower(n["hwaddr"]), addrs: ctAddresses(n, g.VMID, i)})
	}
	out := make([]map[string]any, 0, len(list))
	for _, it := range list {
		entry := map[string]any{"name": it.name, "hardware-address": it.mac, "hwaddr": it.mac}
		ips := []map[string]any{}
		for _, a := range it.addrs {
			entry[a.family] = fmt.Sprintf("%s/%d", a.local, a.prefix)
			ips = append(ips, map[string]any{"ip-address-type": a.family, "ip-address": a.local, "prefix": a.prefix})
		}
		entry["ip-addresses"] = ips
		out = append(out, entry)
	}
	return out, nil
}

// ctAddresses are the addresses a container's NIC holds: a static ip= or
// ip6= as configured; for DHCP (and SLAAC) the simulated network's lease,
// the same the guest agent reports for VMs (guestIPv4, guestIPv6); none
// for manual. Every NIC that is up has the IPv6 link-local address the
// kernel derives from its MAC (modified EUI-64, RFC 4291 appendix A).
func ctAddresses(n map[string]string, vmid, i int) []ctAddress {
	var out []ctAddress
	if ip := n["ip"]; ip != "" && ip != "manual" {
		for _, a := range guestIPv4(ip, vmid, i) {
			out = append(out, ctAddress{"inet", a.Address, a.Prefix})
		}
	}
	for _, a := range guestIPv6(n["ip6"], vmid, i) {
		out = append(out, ctAddress{"inet6", a.Address, a.Prefix})
	}
	if ll := linkLocal(n["hwaddr"]); ll != "" {
		out = append(out, ctAddress{"inet6", ll, 64})
	}
	return out
}

// linkLocal is fe80::/64 with the modified EUI-64 of mac: ff:fe in the
// middle, the universal/local bit flipped.
func linkLocal(mac string) string {
	hw, err := net.ParseMAC(mac)
	if err != nil || len(hw) != 6 {
		return ""
	}
	var a [16]byte
	a[0], a[1] = 0xfe, 0x80
	a[8], a[9], a[10] = hw[0]^0x02, hw[1], hw[2]
	a[11], a[12] = 0xff, 0xfe
	a[13], a[14], a[15] = hw[3], hw[4], hw[5]
	return netip.AddrFrom16(a).String()
}

// regenerateCloudInit is cloudinit_update (qemu-server
// src/PVE/API2/Qemu.pm): under the config lock, check_lock, then
// vmconfig_update_cloudinit_drive, which does nothing without a cloud-init
// drive and otherwise regenerates the drive's image from the current
// config (apply_cloudinit_config; a running VM gets the new medium). The
// simulator keeps no image content, so the regeneration has no other
// visible effect. Answers null.
func regenerateCloudInit(c *call) (any, error) {
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLock(); err != nil {
		return nil, err
	}
	return nil, nil
}
