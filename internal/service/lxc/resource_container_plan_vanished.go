package lxc

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkVanishedMounts warns when the plan makes a new, empty mount point
// in a slot whose volume was removed outside Terraform. Re-attaching one
// needs its path in the container: the planned one, when known.
func (r *containerResource) checkVanishedMounts(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, node string, state, plan *containerModel) {
	vmid := state.vmid()
	reattach := func(slot, volid string) string {
		guestPath := "PATH"
		if mp, ok := plan.MountPoints[slot]; ok && guestops.Known(mp.Path) {
			guestPath = mp.Path.ValueString()
		}
		return fmt.Sprintf("pct set %d --%s %s,mp=%s on node %s", vmid, slot, volid, guestPath, node)
	}
	pathOf := func(slot string) path.Path { return mountPath(slot, "") }
	added := guestops.AddedVolumes(state.MountPoints, plan.MountPoints, mountPointModel.volume)
	r.api.WarnVanished(ctx, req.Private, node, vmid, guestops.MountPointNoun, added, pathOf, reattach, &resp.Diagnostics)
}
