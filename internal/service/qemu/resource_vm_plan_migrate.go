package qemu

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// What PVE refuses to migrate, from qemu-server: PVE/API2/Qemu.pm
// migrate_vm checks that every storage a drive uses is available on the
// target (QemuServer.pm check_storage_availability), then the migration
// task (PVE/QemuMigrate.pm scan_local_volumes) aborts on a CD-ROM that is
// the host's drive ("can't migrate local cdrom drive") or an ISO on
// storage that is not shared ("local cdrom image"). The update migrates
// before it writes any other change, so the plan refuses these while the
// live VM has them, with the fix to apply first.

// migrationIssues lists what would make PVE refuse to move the VM from
// node to target, read from its live config: three requests, made only
// when the plan changes node.
func (r *vmResource) migrationIssues(ctx context.Context, node, target string, vmid int, plan *vmModel, diags *diag.Diagnostics) []guestops.Issue {
	config, err := r.api.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return nil
	}
	onSource, err := r.api.Client.Storages(ctx, node, pveapi.StorageFilter{})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return nil
	}
	onTarget, err := r.api.Client.Storages(ctx, target, pveapi.StorageFilter{Enabled: true})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return nil
	}
	shared, available := map[string]bool{}, map[string]bool{}
	for _, s := range onSource {
		shared[s.Storage] = bool(s.Shared)
	}
	for _, s := range onTarget {
		available[s.Storage] = true
	}
	return migrationBlockers(config, shared, available, node, target, vmid, plan)
}

// migrationBlockers is migrationIssues without the requests.
func migrationBlockers(config pveapi.GuestConfig, shared, available map[string]bool, node, target string, vmid int, plan *vmModel) []guestops.Issue {
	var issues []guestops.Issue
	for _, slot := range slices.Sorted(maps.Keys(config)) {
		if !wire.IsDiskSlot(slot) && !wire.IsUnusedSlot(slot) {
			continue
		}
		drive, err := wire.ParseDrive(config[slot])
		if err != nil {
			continue
		}
		at := path.Root("node")
		if _, declared := plan.CDROMs[slot]; declared {
			at = path.Root("cdroms").AtMapKey(slot)
		} else if _, declared := plan.Disks[slot]; declared {
			at = diskPath(slot, "")
		}
		first := fmt.Sprintf("VM %d cannot move from %s to %s: ", vmid, node, target)
		then := fmt.Sprintf(" The move runs before any other change of this apply, so keep node = %q, apply that change first, then change node.", node)
		switch {
		case wire.IsCDROM(drive) && drive.File == "cdrom":
			issues = append(issues, guestops.Issue{Path: at, Summary: "VM With Host CD-ROM Drive Cannot Migrate",
				Detail: first + fmt.Sprintf("%s is the host's CD-ROM drive, which PVE does not migrate. Empty it (file = \"none\") or remove %s.", slot, slot) + then})
		case drive.Storage == "" || drive.IsCloudInit():
			// A file outside storage is reported by PVE itself; the
			// cloud-init drive is generated again on the target.
		case !available[drive.Storage]:
			issues = append(issues, guestops.Issue{Path: at, Summary: "Storage Not Available On Target Node",
				Detail: first + fmt.Sprintf("%s uses %s on storage %s, which is not available on node %s. "+
					"Move it to a storage both nodes have (a disk's storage attribute moves it with its data), or pick a target node that has %s.",
					slot, drive.VolumeID(), drive.Storage, target, drive.Storage) + then})
		case wire.IsCDROM(drive) && !shared[drive.Storage]:
			issues = append(issues, guestops.Issue{Path: at, Summary: "VM With Local ISO Cannot Migrate",
				Detail: first + fmt.Sprintf("the CD-ROM in %s holds %s, on storage %s, which is local to %s; PVE refuses to migrate a VM with a CD-ROM on node-local storage. "+
					"Empty it (file = \"none\"), remove %s, or use a copy of the ISO on shared storage.", slot, drive.VolumeID(), drive.Storage, node, slot) + then})
		}
	}
	return issues
}

// checkMigration adds the migration blockers when the plan changes node
// and the VM is elsewhere than the new node (from: HA may have put it
// there already).
func (r *vmResource) checkMigration(ctx context.Context, from string, state, plan *vmModel, diags *diag.Diagnostics) {
	if state == nil || plan == nil || !guestops.Known(plan.Node) || plan.Node.Equal(state.Node) || plan.Node.ValueString() == from || r.api.Client == nil {
		return
	}
	guestops.AddIssues(diags, r.migrationIssues(ctx, from, plan.Node.ValueString(), int(state.VMID.ValueInt64()), plan, diags))
}
