package qemu

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

// recognize tells whether a VM found on the VMID after a lost create
// answer is the one form describes (W13): it carries the planned name, or
// without a name every device slot sent.
func (m *vmModel) recognize(config pveapi.GuestConfig, form url.Values) bool {
	if guestops.Known(m.Name) {
		return config[keyName] == m.Name.ValueString()
	}
	if _, named := config[keyName]; named {
		return false
	}
	for key := range form {
		if wire.IsDataDiskSlot(key) || wire.IsNetSlot(key) {
			if _, ok := config[key]; !ok {
				return false
			}
		}
	}
	return true
}

// writeConfig sends the one config request of an update. A request that
// allocates new disks goes the asynchronous way and is waited for (W9).
func (r *vmResource) writeConfig(ctx context.Context, node string, vmid int, u *configUpdate, digest string, diags *diag.Diagnostics) bool {
	params := u.delta.Values()
	if digest != "" {
		params.Set("digest", digest)
	}
	if !u.allocates {
		if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, params); err != nil {
			fwutil.AddAPIError(diags, "Unable To Update VM", err)
			return false
		}
		return true
	}
	upid, err := r.api.Client.UpdateQemuConfigAsync(ctx, node, vmid, params)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Update VM", err)
		return false
	}
	return fwutil.SettleTask(ctx, r.api.Client, upid, fmt.Sprintf("updating VM %d", vmid), "Unable To Update VM", diags)
}

// finishDisks runs the disk tasks that follow a create or a config
// request: grow (W22), then move to another storage with the data (W23).
func (r *vmResource) finishDisks(ctx context.Context, node string, vmid int, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) bool {
	resizes, moves, err := diskFollowUps(plan, live)
	if err != nil {
		diags.AddError("Unable To Update VM Disks", err.Error())
		return false
	}
	if !r.api.RunFollowUps(ctx, node, vmid, resizes, moves, diskPath, diags) {
		return false
	}
	return r.finishFirmware(ctx, node, vmid, plan, live, diags)
}

// ReconfigureAdopted turns a guest adopted from an interrupted apply,
// created from that apply's plan, into this plan. Its creation marker
// stays until the guest is complete (W13).
func (r *vmResource) ReconfigureAdopted(ctx context.Context, node string, vmid int, plan *vmModel, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Adopting It", err)
		return false
	}
	view := *plan
	marker := guestops.MarkerLine(live, guestops.CreateMarker(r.api.Kind, plan.Name.ValueString()))
	view.Description = types.StringValue(guestops.WithCloneMarker(plan.Description.ValueString(), marker))
	update, err := toUpdate(&view, &view, live)
	if err != nil {
		diags.AddError("Unable To Plan VM Configuration", err.Error())
		return false
	}
	return update.delta.IsEmpty() || r.writeConfig(ctx, node, vmid, update, live.Digest(), diags)
}
