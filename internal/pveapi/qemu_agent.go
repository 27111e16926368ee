package pveapi

import (
	"context"
	"regexp"
	"strings"
)

// AgentInterface is one network interface the guest agent reports
// (guest-network-get-interfaces).
type AgentInterface struct {
	Name            string           `json:"name"`
	HardwareAddress string           `json:"hardware-address"`
	IPAddresses     []AgentIPAddress `json:"ip-addresses"`
}

// AgentIPAddress is one address of an AgentInterface. Type is "ipv4" or
// "ipv6".
type AgentIPAddress struct {
	Address string `json:"ip-address"`
	Type    string `json:"ip-address-type"`
	Prefix  int    `json:"prefix"`
}

// QemuAgentInterfaces asks the guest agent for the VM's network interfaces
// (GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces). PVE answers
// synchronously; when the agent cannot answer the error is one of
// IsAgentNotConfigured, IsAgentVMNotRunning or IsAgentNotRunning, none of
// which is IsNotFound.
func (c *Client) QemuAgentInterfaces(ctx context.Context, node string, vmid int) ([]AgentInterface, error) {
	var out struct {
		Result []AgentInterface `json:"result"`
	}
	if err := c.Get(ctx, guestPath(node, GuestTypeQemu, vmid, "/agent/network-get-interfaces"), nil, &out); err != nil {
		return nil, err
	}
	return out.Result, nil
}

// The three refusals of every agent endpoint (qemu-server Agent.pm
// assert_agent_available), in the order PVE checks them.
var (
	agentNotConfiguredPattern = regexp.MustCompile(`^No QEMU guest agent configured$`)
	agentVMNotRunningPattern  = regexp.MustCompile(`^VM \d+ is not running$`)
	agentNotRunningPattern    = regexp.MustCompile(`^QEMU guest agent is not running$`)
)

// IsAgentNotConfigured reports "No QEMU guest agent configured": the VM's
// config has no agent key at all.
func IsAgentNotConfigured(err error) bool { return isAgentError(err, agentNotConfiguredPattern) }

// IsAgentVMNotRunning reports "VM N is not running": an agent request to a
// stopped VM.
func IsAgentVMNotRunning(err error) bool { return isAgentError(err, agentVMNotRunningPattern) }

// IsAgentNotRunning reports "QEMU guest agent is not running": the VM runs
// but its agent does not answer (not installed, or still booting).
func IsAgentNotRunning(err error) bool { return isAgentError(err, agentNotRunningPattern) }

// IsAgentUnavailable reports any of the three: the agent has nothing to say
// now.
func IsAgentUnavailable(err error) bool {
	return IsAgentNotConfigured(err) || IsAgentVMNotRunning(err) || IsAgentNotRunning(err)
}

func isAgentError(err error, pattern *regexp.Regexp) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && pattern.MatchString(strings.TrimSpace(firstLine(apiErr.Message)))
}
