package guestops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// AddedVolume is a disk or mount point a plan adds to a guest.
type AddedVolume struct {
	// Path is the attribute the volume is declared at.
	Path path.Path
	// Slot is the volume's config key (scsi1, mp0).
	Slot string
	// Storage is the storage of a new volume; "" for a host path.
	Storage string
	// Replicate is false when the volume opts out of replication.
	Replicate bool
}

// CheckReplicatedAdds refuses, at plan time, a volume added to a guest
// that has replication jobs when PVE cannot replicate it: PVE refuses
// such a config change with "cannot add non-replicatable volume to a
// replicated VM" (qemu-server src/PVE/API2/Qemu.pm update_vm_api
// $check_replication, pve-container src/PVE/API2/LXC/Config.pm
// update_vm). A volume passes when it opts out (replicate=0), is on a
// shared storage, or on one whose volumes have the replicate feature
// (zfspool); a container's bind mount never passes. The replication jobs
// are asked for only when a volume could be refused, the storages only
// when the guest has a job.
func (a API) CheckReplicatedAdds(ctx context.Context, node string, vmid int, added []AddedVolume, diags *diag.Diagnostics) {
	var candidates []AddedVolume
	for _, v := range added {
		if v.Replicate {
			candidates = append(candidates, v)
		}
	}
	if len(candidates) == 0 {
		return
	}
	jobs, err := a.Client.ReplicationJobs(ctx)
	if err != nil {
		// The plan goes on without this check: PVE makes it at apply.
		return
	}
	var ids []string
	for _, j := range jobs {
		if int(j.Guest) == vmid && j.RemoveJob == "" {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Strings(ids)
	storages, err := a.Client.Storages(ctx, node, pveapi.StorageFilter{})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return
	}
	known := make(map[string]wire.ReplicationStorage, len(storages))
	for _, st := range storages {
		known[st.Storage] = wire.ReplicationStorage{Type: st.Type, Shared: bool(st.Shared)}
	}
	jobsText := strings.Join(ids, ", ")
	for _, v := range candidates {
		var why string
		if v.Storage == "" {
			why = fmt.Sprintf("%s is a host path, which PVE cannot replicate", v.Slot)
		} else {
			st, ok := known[v.Storage]
			if !ok || st.Shared || wire.StorageCanReplicate(st.Type) {
				continue
			}
			why = fmt.Sprintf("%s goes on storage %q of type %s, which cannot replicate (PVE replicates volumes on ZFS, zfspool, storages)",
				v.Slot, v.Storage, st.Type)
		}
		diags.AddAttributeError(v.Path, "Volume Cannot Join A Replicated "+a.Kind.Title, fmt.Sprintf(
			"%s %d has replication jobs (%s) and PVE refuses a volume it cannot replicate on a replicated guest: %s. "+
				"Put it on a ZFS or shared storage, or set replicate = false on it to leave it out of replication.",
			a.Kind.Title, vmid, jobsText, why))
	}
}
