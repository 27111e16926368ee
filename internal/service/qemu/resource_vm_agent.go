package qemu

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// agentPollInterval spaces the questions to an agent that is not up yet.
const agentPollInterval = 2 * time.Second

// refreshAddresses fills ipv4_addresses and ipv6_addresses after a create
// or an update, when the plan left them to be known after apply. The agent
// is asked only when it is enabled and the VM runs: once, or until it
// reports an address within agent.timeout when wait_for_ip is set. Read
// never calls it: a refresh never waits on an agent. prior is the state
// before the apply (nil at create); its lists are kept when the agent is
// not asked.
func (r *vmResource) refreshAddresses(ctx context.Context, node string, vmid int, m, prior *vmModel, diags *diag.Diagnostics) {
	if guestops.Known(m.IPv4Addresses) && guestops.Known(m.IPv6Addresses) {
		return
	}
	if !m.agentEnabled() || m.Status.ValueString() != pveapi.PowerRunning {
		m.keepAddresses(prior)
		return
	}
	limit, wait := m.waitForIP()
	var v4, v6 []string
	var err error
	if wait {
		v4, v6, err = r.awaitAddresses(ctx, node, vmid, limit)
	} else {
		v4, v6, err = r.askAddresses(ctx, node, vmid)
	}
	m.setAddresses(v4, v6)
	switch {
	case err != nil:
		diags.AddAttributeWarning(path.Root("ipv4_addresses"), "Guest Agent Did Not Report Addresses",
			fmt.Sprintf("VM %d: %v. The address lists stay empty until the next apply that starts or changes the VM. "+
				"Check that qemu-guest-agent is installed and running in the guest.", vmid, err))
	case wait && len(v4)+len(v6) == 0:
		diags.AddAttributeWarning(path.Root("ipv4_addresses"), "Guest Agent Reported No Address",
			fmt.Sprintf("VM %d: the guest agent reported no address other than loopback and link-local within agent.timeout (%s). "+
				"The address lists stay empty until the next apply that starts or changes the VM; raise agent.timeout if the guest boots slowly.", vmid, limit))
	}
}

// askAddresses asks the agent once. An agent that cannot answer (not
// configured, VM down, agent not up) is no error: nothing is known yet.
func (r *vmResource) askAddresses(ctx context.Context, node string, vmid int) ([]string, []string, error) {
	ifaces, err := r.api.Client.QemuAgentInterfaces(ctx, node, vmid)
	if pveapi.IsAgentUnavailable(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	v4, v6 := guestAddresses(ifaces)
	return v4, v6, nil
}

// awaitAddresses asks the agent until it reports an address or limit
// passes.
func (r *vmResource) awaitAddresses(ctx context.Context, node string, vmid int, limit time.Duration) ([]string, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	ticker := time.NewTicker(agentPollInterval)
	defer ticker.Stop()
	for {
		v4, v6, err := r.askAddresses(ctx, node, vmid)
		if ctx.Err() != nil {
			return nil, nil, nil
		}
		if err != nil || len(v4)+len(v6) > 0 {
			return v4, v6, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, nil
		case <-ticker.C:
		}
	}
}
