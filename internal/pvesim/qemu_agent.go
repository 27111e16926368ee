package pvesim

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// The guest agent as qemu-server's API2/Qemu/Agent.pm answers it: every
// command first runs assert_agent_available (agent configured, VM running,
// agent answering guest-ping), whose three refusals are 500s.

func (s *Sim) registerQemuAgentRoutes() {
	// qemu-server src/PVE/API2/Qemu/Agent.pm register_command: PVE 9's
	// per-command privilege or VM.GuestAgent.Unrestricted (b92a40ce); PVE
	// 8's default VM.Monitor for every command without its own.
	perm := permission{path: "/vms/{vmid}", privs: []string{"VM.Monitor"}}
	if s.pve.guestAgentPrivileges {
		perm = permission{path: "/vms/{vmid}", any: true, privs: []string{"VM.GuestAgent.Audit", "VM.GuestAgent.Unrestricted"}}
	}
	s.handle(http.MethodGet, "/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces", route{perm: perm, handle: s.agentNetworkInterfaces})
}

// assertAgentAvailable is assert_agent_available. A config with "agent: 0"
// passes the first check, as on PVE, and then has no agent to answer.
// qemu-server src/PVE/QemuServer/Agent.pm assert_agent_available
func (s *Sim) assertAgentAvailable(c *call) (*Guest, error) {
	g, err := loadQemu(c)
	if err != nil {
		return nil, err
	}
	raw, configured := g.Config["agent"]
	if !configured {
		return nil, errorf("No QEMU guest agent configured")
	}
	if g.Status != "running" {
		return nil, errorf("VM %d is not running", g.VMID)
	}
	props, msg := c.cluster.conf.qemu.PropertyString("agent", raw)
	enabled := msg == "" && (props["enabled"] == "1" || props["enabled"] == "on" || props["enabled"] == "yes" || props["enabled"] == "true")
	booted := g.Started.IsZero() || !s.now().Before(g.Started.Add(s.opts.AgentBootDelay))
	if !enabled || g.Paused || !booted {
		return nil, errorf("QEMU guest agent is not running")
	}
	return g, nil
}

type agentIP struct {
	Address string `json:"ip-address"`
	Type    string `json:"ip-address-type"`
	Prefix  int    `json:"prefix"`
}

type agentInterface struct {
	Name            string    `json:"name"`
	HardwareAddress string    `json:"hardware-address"`
	IPAddresses     []agentIP `json:"ip-addresses"`
}

// agentNetworkInterfaces answers guest-network-get-interfaces: lo, then one
// interface per netN with its MAC, the address its ipconfigN gives (or one
// from the simulated DHCP pool) and a link-local IPv6 address.
func (s *Sim) agentNetworkInterfaces(c *call) (any, error) {
	g, err := s.assertAgentAvailable(c)
	if err != nil {
		return nil, err
	}
	ifaces := []agentInterface{{
		Name: "lo", HardwareAddress: "00:00:00:00:00:00",
		IPAddresses: []agentIP{{"127.0.0.1", "ipv4", 8}, {"::1", "ipv6", 128}},
	}}
	for i := 0; i <= 31; i++ {
		key := fmt.Sprintf("net%d", i)
		raw, ok := g.Config[key]
		if !ok {
			continue
		}
		nic, _ := c.cluster.conf.qemu.PropertyString(key, raw)
		mac := strings.ToLower(nic["macaddr"])
		iface := agentInterface{Name: fmt.Sprintf("eth%d", i), HardwareAddress: mac}
		ipconfig, _ := c.cluster.conf.qemu.PropertyString(fmt.Sprintf("ipconfig%d", i), g.Config[fmt.Sprintf("ipconfig%d", i)])
		iface.IPAddresses = append(iface.IPAddresses, guestIPv4(ipconfig["ip"], g.VMID, i)...)
		iface.IPAddresses = append(iface.IPAddresses, guestIPv6(ipconfig["ip6"], g.VMID, i)...)
		iface.IPAddresses = append(iface.IPAddresses, agentIP{fmt.Sprintf("fe80::%x:%x", g.VMID, i), "ipv6", 64})
		ifaces = append(ifaces, iface)
	}
	return map[string]any{"result": ifaces}, nil
}

// guestIPv4 is the address a static ip= gives, or the DHCP pool's lease
// for vmid's interface i (10.99.0.0/16) when the guest asks DHCP or has no
// ipconfig.
func guestIPv4(ip string, vmid, i int) []agentIP {
	if prefix, err := netip.ParsePrefix(ip); err == nil && prefix.Addr().Is4() {
		return []agentIP{{prefix.Addr().String(), "ipv4", prefix.Bits()}}
	}
	host := (vmid*32 + i) % 65024
	return []agentIP{{fmt.Sprintf("10.99.%d.%d", host/254, host%254+1), "ipv4", 16}}
}

// guestIPv6 is the address a static ip6= gives, one from the simulated
// router's prefix for auto or dhcp, none otherwise.
func guestIPv6(ip6 string, vmid, i int) []agentIP {
	if prefix, err := netip.ParsePrefix(ip6); err == nil && prefix.Addr().Is6() {
		return []agentIP{{prefix.Addr().String(), "ipv6", prefix.Bits()}}
	}
	if ip6 == "auto" || ip6 == "dhcp" {
		return []agentIP{{fmt.Sprintf("2001:db8:99::%x:%x", vmid, i), "ipv6", 64}}
	}
	return nil
}
