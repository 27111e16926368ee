package qemu

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkVanishedDisks warns when the plan makes a new, empty disk in a
// slot whose disk was removed outside Terraform.
func (r *vmResource) checkVanishedDisks(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, state, plan *vmModel) {
	vanished := guestops.Vanished(ctx, req.Private)
	if len(vanished) == 0 || r.api.Client == nil {
		return
	}
	added := map[string]guestops.Volume{}
	for slot, disk := range plan.Disks {
		if _, had := state.Disks[slot]; !had {
			added[slot] = disk.volume()
		}
	}
	node, vmid := state.Node.ValueString(), int(state.VMID.ValueInt64())
	reattach := func(slot, volid string) string {
		return fmt.Sprintf("qm set %d --%s %s on node %s", vmid, slot, volid, node)
	}
	pathOf := func(slot string) path.Path { return diskPath(slot, "") }
	guestops.AddIssues(&resp.Diagnostics, r.api.VanishedIssues(ctx, node, vmid, guestops.DiskNoun, added, vanished, pathOf, reattach, &resp.Diagnostics))
}
