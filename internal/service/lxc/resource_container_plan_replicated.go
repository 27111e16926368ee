package lxc

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkReplicatedMounts refuses a new mount point PVE cannot replicate on
// a container with replication jobs: a volume on a storage that cannot
// replicate, or a bind mount (see guestops.CheckReplicatedAdds).
func (r *containerResource) checkReplicatedMounts(ctx context.Context, node string, state, plan *containerModel, diags *diag.Diagnostics) {
	var added []guestops.AddedVolume
	for slot, m := range plan.MountPoints {
		if _, had := state.MountPoints[slot]; had {
			continue
		}
		v := guestops.AddedVolume{
			Path: mountPath(slot, "storage"), Slot: slot,
			Replicate: m.Replicate.IsNull() || m.Replicate.IsUnknown() || m.Replicate.ValueBool(),
		}
		switch {
		case guestops.Known(m.HostPath):
			v.Path = mountPath(slot, "host_path")
		case guestops.Known(m.Storage):
			v.Storage = m.Storage.ValueString()
		default:
			continue
		}
		added = append(added, v)
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Slot < added[j].Slot })
	r.api.CheckReplicatedAdds(ctx, node, state.vmid(), added, diags)
}
