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
func (r *vmResource) checkVanishedDisks(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, node string, state, plan *vmModel) {
	vmid := state.vmid()
	reattach := func(slot, volid string) string {
		return fmt.Sprintf("qm set %d --%s %s on node %s", vmid, slot, volid, node)
	}
	pathOf := func(slot string) path.Path { return diskPath(slot, "") }
	added := guestops.AddedVolumes(state.Disks, plan.Disks, diskModel.volume)
	r.api.WarnVanished(ctx, req.Private, node, vmid, guestops.DiskNoun, added, pathOf, reattach, &resp.Diagnostics)
}
