package lxc

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// mountVolumes is slot -> volume id of a state's volume mount points; nil
// when the state is empty or its mount points cannot be read. Bind mounts
// have no volume and cannot vanish into unusedN.
func mountVolumes(ctx context.Context, state tfsdk.State) map[string]string {
	if state.Raw.IsNull() {
		return nil
	}
	var mounts map[string]mountPointModel
	if state.GetAttribute(ctx, path.Root("mount_points"), &mounts).HasError() {
		return nil
	}
	out := make(map[string]string, len(mounts))
	for slot, mp := range mounts {
		out[slot] = mp.Volume.ValueString()
	}
	return out
}

// noteVanishedMounts remembers, after a refresh, the declared mount points
// PVE no longer has, for the plan's warning.
func noteVanishedMounts(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() {
		return
	}
	guestops.NoteVanished(ctx, req.Private, resp.Private, mountVolumes(ctx, req.State), mountVolumes(ctx, resp.State), &resp.Diagnostics)
}

// checkVanishedMounts warns when the plan makes a new, empty mount point
// in a slot whose volume was removed outside Terraform.
func (r *containerResource) checkVanishedMounts(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, state, plan *containerModel) {
	vanished := guestops.Vanished(ctx, req.Private)
	if len(vanished) == 0 || r.api.Client == nil {
		return
	}
	added := map[string]guestops.Volume{}
	for slot, mp := range plan.MountPoints {
		if _, had := state.MountPoints[slot]; !had {
			added[slot] = mp.volume()
		}
	}
	node, vmid := state.Node.ValueString(), int(state.VMID.ValueInt64())
	reattach := func(slot, volid string) string {
		guestPath := "PATH"
		if mp, ok := plan.MountPoints[slot]; ok && guestops.Known(mp.Path) {
			guestPath = mp.Path.ValueString()
		}
		return fmt.Sprintf("pct set %d --%s %s,mp=%s on node %s", vmid, slot, volid, guestPath, node)
	}
	pathOf := func(slot string) path.Path { return mountPath(slot, "") }
	guestops.AddIssues(&resp.Diagnostics, r.api.VanishedIssues(ctx, node, vmid, guestops.MountPointNoun, added, vanished, pathOf, reattach, &resp.Diagnostics))
}
