package lxc

import (
	"context"
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// recognize tells whether a container found on the VMID after a lost
// create answer is the one form describes (W13): it carries the planned
// hostname, or without one every mount point and NIC slot sent.
func (m *containerModel) recognize(config pveapi.GuestConfig, form url.Values) bool {
	if hostname := form.Get(keyHostname); hostname != "" {
		return config[keyHostname] == hostname
	}
	for key := range form {
		if wire.IsMountPointSlot(key) || wire.IsNetSlot(key) {
			if _, ok := config[key]; !ok {
				return false
			}
		}
	}
	_, hasRoot := config[keyRootFS]
	return hasRoot
}

// finishVolumes runs the volume tasks that follow a create or a config
// request: grow (W22), then move to another storage with the data (W23).
// PVE moves a container's volumes only while it is stopped: a running
// container is shut down first, and the power settling that follows starts
// it again.
func (r *containerResource) finishVolumes(ctx context.Context, node string, vmid int, plan *containerModel, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container", err)
		return false
	}
	resizes, moves, err := mountFollowUps(plan, live)
	if err != nil {
		diags.AddError("Unable To Update Container Volumes", err.Error())
		return false
	}
	if len(moves) > 0 {
		status, err := r.api.Status(ctx, node, vmid)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To Read Container Status", err)
			return false
		}
		if status.Status == pveapi.PowerRunning && !r.api.PowerOff(ctx, node, vmid, diags) {
			return false
		}
	}
	return r.api.RunFollowUps(ctx, node, vmid, resizes, moves, mountPath, diags)
}

// addUpdateError reports a refused config update. A root-only refusal
// (W33, W36) says what to do: no privilege fixes it, only a password login
// as root@pam.
func (r *containerResource) addUpdateError(diags *diag.Diagnostics, err error) {
	if reason, ok := pveapi.IsRootOnly(err); ok {
		diags.AddError("Option Needs root@pam", fmt.Sprintf(
			"PVE refused the change: %s. The provider authenticates as %s; no role or privilege lifts this rule, "+
				"only a password login as root@pam (API tokens are refused, even root@pam's own). "+
				"Configure the provider with username = \"root@pam\" and its password, or leave the option as it is in PVE.\n\n%v",
			reason, r.api.Client.Principal(), err))
		return
	}
	fwutil.AddAPIError(diags, "Unable To Update Container", err)
}

// ReconfigureAdopted turns a container adopted from an interrupted apply,
// created from that apply's plan, into this plan. Its creation marker
// stays until the container is complete (W13).
func (r *containerResource) ReconfigureAdopted(ctx context.Context, node string, vmid int, plan *containerModel, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container After Adopting It", err)
		return false
	}
	view := *plan
	marker := guestops.MarkerLine(live, guestops.CreateMarker(r.api.Kind, plan.Hostname.ValueString()))
	view.Description = types.StringValue(guestops.WithCloneMarker(plan.Description.ValueString(), marker))
	update, err := toUpdate(&view, &view, live)
	if err != nil {
		diags.AddError("Unable To Plan Container Configuration", err.Error())
		return false
	}
	return update.delta.IsEmpty() || r.writeConfig(ctx, node, vmid, update, live.Digest(), diags)
}
