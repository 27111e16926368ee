package lxc

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

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
