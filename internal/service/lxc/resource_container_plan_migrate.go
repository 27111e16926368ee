package lxc

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// What PVE refuses to migrate, from pve-container PVE/LXC/Migrate.pm
// prepare: a bind or device mount point not marked shared ("cannot
// migrate local bind mount point"), and a volume whose storage is not
// enabled on the target node (storage_check_enabled). The update migrates
// before it writes any other change, so the plan refuses these while the
// live container has them, with the fix to apply first.

// checkMigration adds the migration blockers when the plan changes node:
// two requests, made only then.
func (r *containerResource) checkMigration(ctx context.Context, node string, state, plan *containerModel, diags *diag.Diagnostics) {
	if state == nil || plan == nil || !guestops.Known(plan.Node) || plan.Node.Equal(state.Node) || plan.Node.ValueString() == node || r.api.Client == nil {
		return
	}
	target, vmid := plan.Node.ValueString(), int(state.VMID.ValueInt64())
	config, err := r.api.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container", err)
		return
	}
	onTarget, err := r.api.Client.Storages(ctx, target, pveapi.StorageFilter{Enabled: true})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return
	}
	available := map[string]bool{}
	for _, s := range onTarget {
		available[s.Storage] = true
	}
	guestops.AddIssues(diags, containerMigrationBlockers(config, available, node, target, vmid, plan))
}

// containerMigrationBlockers is checkMigration without the requests.
func containerMigrationBlockers(config pveapi.GuestConfig, available map[string]bool, node, target string, vmid int, plan *containerModel) []guestops.Issue {
	var issues []guestops.Issue
	for _, slot := range slices.Sorted(maps.Keys(config)) {
		if slot != keyRootFS && !wire.IsMountPointSlot(slot) && !wire.IsUnusedSlot(slot) {
			continue
		}
		mount, err := wire.ParseDrive(config[slot])
		if err != nil {
			continue
		}
		at := path.Root("node")
		if _, declared := plan.MountPoints[slot]; declared || slot == keyRootFS {
			at = mountPath(slot, "")
		}
		first := fmt.Sprintf("Container %d cannot move from %s to %s: ", vmid, node, target)
		then := fmt.Sprintf(" The move runs before any other change of this apply, so keep node = %q, apply that change first, then change node.", node)
		switch {
		case strings.HasPrefix(mount.File, "/"):
			if mount.Options["shared"] == "1" {
				continue
			}
			issues = append(issues, guestops.Issue{Path: at, Summary: "Container With Local Mount Point Cannot Migrate",
				Detail: first + fmt.Sprintf("%s mounts the host path %s, which PVE does not migrate unless it is marked shared. "+
					"If the path holds the same data on %s, set shared = true on %s; otherwise remove %s.", slot, mount.File, target, slot, slot) + then})
		case mount.Storage != "" && !available[mount.Storage]:
			issues = append(issues, guestops.Issue{Path: at, Summary: "Storage Not Available On Target Node",
				Detail: first + fmt.Sprintf("%s uses %s on storage %s, which is not available on node %s. "+
					"Move it to a storage both nodes have (its storage attribute moves it with its data), or pick a target node that has %s.",
					slot, mount.VolumeID(), mount.Storage, target, mount.Storage) + then})
		}
	}
	return issues
}
