package qemu

import (
	"net/netip"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// defaultAgentTimeout bounds the wait for the agent's addresses when the
// configuration sets no timeout.
const (
	defaultAgentTimeout     = 5 * time.Minute
	defaultAgentTimeoutText = "5m"
)

// keepProviderOptions copies wait_for_ip and timeout, which live only in
// Terraform, from prior (state or plan) into a freshly read agent; an
// imported agent gets the defaults.
func (a *agentModel) keepProviderOptions(prior *agentModel) {
	if a == nil {
		return
	}
	a.WaitForIP = types.BoolValue(false)
	a.Timeout = types.StringValue(defaultAgentTimeoutText)
	if prior == nil {
		return
	}
	if guestops.Known(prior.WaitForIP) {
		a.WaitForIP = prior.WaitForIP
	}
	if guestops.Known(prior.Timeout) {
		a.Timeout = prior.Timeout
	}
}

// agentEnabled reports whether the configuration turns the agent on.
func (m *vmModel) agentEnabled() bool {
	return m.Agent != nil && m.Agent.Enabled.ValueBool()
}

// waitForIP reports whether the configuration asks to wait for addresses,
// and how long.
func (m *vmModel) waitForIP() (time.Duration, bool) {
	if !m.agentEnabled() || !m.Agent.WaitForIP.ValueBool() {
		return 0, false
	}
	limit := defaultAgentTimeout
	if guestops.Known(m.Agent.Timeout) {
		if d, err := time.ParseDuration(m.Agent.Timeout.ValueString()); err == nil {
			limit = d
		}
	}
	return limit, true
}

// guestAddresses splits the agent's addresses into IPv4 and IPv6, sorted and
// without duplicates. Loopback, link-local and unspecified addresses say
// nothing about how to reach the guest and are left out.
func guestAddresses(ifaces []pveapi.AgentInterface) (v4, v6 []string) {
	for _, iface := range ifaces {
		for _, ip := range iface.IPAddresses {
			addr, err := netip.ParseAddr(ip.Address)
			if err != nil || addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsUnspecified() {
				continue
			}
			addr = addr.WithZone("")
			if addr.Is4() || addr.Is4In6() {
				v4 = append(v4, addr.Unmap().String())
			} else {
				v6 = append(v6, addr.String())
			}
		}
	}
	slices.Sort(v4)
	slices.Sort(v6)
	return slices.Compact(v4), slices.Compact(v6)
}

// setAddresses stores the addresses; nil means none known.
func (m *vmModel) setAddresses(v4, v6 []string) {
	m.IPv4Addresses = addressList(v4)
	m.IPv6Addresses = addressList(v6)
}

// keepAddresses makes sure the address lists are known: after an apply
// that did not ask the agent they stay as they were, or empty.
func (m *vmModel) keepAddresses(prior *vmModel) {
	if !guestops.Known(m.IPv4Addresses) {
		m.IPv4Addresses = addressList(nil)
		if prior != nil && guestops.Known(prior.IPv4Addresses) {
			m.IPv4Addresses = prior.IPv4Addresses
		}
	}
	if !guestops.Known(m.IPv6Addresses) {
		m.IPv6Addresses = addressList(nil)
		if prior != nil && guestops.Known(prior.IPv6Addresses) {
			m.IPv6Addresses = prior.IPv6Addresses
		}
	}
}

// addressesNotNull gives a model never filled by the agent (an import)
// empty lists; unknown lists stay unknown for refreshAddresses.
func (m *vmModel) addressesNotNull() {
	if m.IPv4Addresses.IsNull() {
		m.IPv4Addresses = addressList(nil)
	}
	if m.IPv6Addresses.IsNull() {
		m.IPv6Addresses = addressList(nil)
	}
}

func addressList(addrs []string) types.List {
	elems := make([]attr.Value, 0, len(addrs))
	for _, a := range addrs {
		elems = append(elems, types.StringValue(a))
	}
	return types.ListValueMust(types.StringType, elems)
}
