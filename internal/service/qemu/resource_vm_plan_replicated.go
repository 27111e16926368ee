package qemu

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkReplicatedDisks refuses a new disk PVE cannot replicate on a VM
// with replication jobs (see guestops.CheckReplicatedAdds).
func (r *vmResource) checkReplicatedDisks(ctx context.Context, node string, state, plan *vmModel, diags *diag.Diagnostics) {
	var added []guestops.AddedVolume
	for slot, d := range plan.Disks {
		if _, had := state.Disks[slot]; had || !guestops.Known(d.Storage) {
			continue
		}
		added = append(added, guestops.AddedVolume{
			Path: diskPath(slot, "storage"), Slot: slot, Storage: d.Storage.ValueString(),
			Replicate: d.Replicate.IsNull() || d.Replicate.IsUnknown() || d.Replicate.ValueBool(),
		})
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Slot < added[j].Slot })
	r.api.CheckReplicatedAdds(ctx, node, state.vmid(), added, diags)
}
