package qemu

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/seediso"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// A VM's seed ISO (W32) is named after its VMID, so a clone never writes
// its source's: its own seed gets its own name. What a clone inherits is
// the source's cdrom pointing at the source's seed. That cdrom is the
// template's identity (user-data, hostname): a clone that declares
// cloud_init drops it for its own (W15); a clone that declares none keeps
// it as inherited and never reports it. PVE deletes no ISO when it
// destroys a VM, and lets anyone delete an ISO a VM still uses (the VM then
// fails to start), so the provider deletes a seed only when no other VM
// has it attached.

// seedOwner tells whose seed ISO a drive holds, if it holds one.
func seedOwner(value string) (int, bool) {
	drive, err := parseDriveSlot(value)
	if err != nil || drive.kind != driveCDROM {
		return 0, false
	}
	name, isISO := strings.CutPrefix(drive.Volume, pveapi.ContentISO+"/")
	if !isISO {
		return 0, false
	}
	digits, ok := strings.CutSuffix(strings.TrimPrefix(name, "pve-seed-"), ".iso")
	if !ok || len(digits) == len(name) {
		return 0, false
	}
	owner, err := strconv.Atoi(digits)
	if err != nil || (seediso.Seed{}).FileName(owner) != name {
		return 0, false
	}
	return owner, true
}

// inheritedSeedSlots lists the slots of a VM's config that hold another
// VM's seed ISO and that plan does not declare as a cdrom.
func inheritedSeedSlots(config pveapi.GuestConfig, vmid int, plan *vmModel) []string {
	var slots []string
	for _, slot := range slices.Sorted(maps.Keys(config)) {
		if !wire.IsCDROMSlot(slot) {
			continue
		}
		if _, declared := plan.CDROMs[slot]; declared {
			continue
		}
		if owner, ok := seedOwner(config[slot]); ok && owner != vmid {
			slots = append(slots, slot)
		}
	}
	return slots
}

// dropInheritedSeed detaches from a clone that declares cloud_init the
// seed ISO cdrom it inherited (W15). It runs before a migration too: a
// seed on node-local storage would stop PVE from migrating the clone. The
// ISO stays where it is: it is the source's.
func (r *vmResource) dropInheritedSeed(ctx context.Context, node string, vmid int, plan *vmModel, diags *diag.Diagnostics) bool {
	if plan.CloudInit == nil {
		return true
	}
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Cloning It", err)
		return false
	}
	slots := inheritedSeedSlots(live, vmid, plan)
	if len(slots) == 0 {
		return true
	}
	if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{"delete": {strings.Join(slots, ",")}}); err != nil {
		fwutil.AddAttributeAPIError(diags, cloudInitPath("user_data"), "Unable To Detach The Inherited Seed ISO", err)
		return false
	}
	return true
}

// seedUsers lists the other VMs, templates included, that have VM vmid's
// seed ISO on storage attached: on a node-local storage only VMs of node
// can.
func (r *vmResource) seedUsers(ctx context.Context, node, storage string, vmid int) ([]int, error) {
	storages, err := r.api.Client.Storages(ctx, node, pveapi.StorageFilter{})
	if err != nil {
		return nil, err
	}
	shared := false
	for _, s := range storages {
		if s.Storage == storage {
			shared = bool(s.Shared)
		}
	}
	guests, err := r.api.Client.ClusterResources(ctx, "vm")
	if err != nil {
		return nil, err
	}
	var users []int
	for _, g := range guests {
		other := g.VMID.Int()
		if g.Type != pveapi.GuestTypeQemu || other == vmid || !shared && g.Node != node {
			continue
		}
		config, err := r.api.Client.GuestConfig(ctx, g.Node, pveapi.GuestTypeQemu, other)
		if pveapi.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for slot, value := range config {
			if !wire.IsCDROMSlot(slot) {
				continue
			}
			if drive, err := parseDriveSlot(value); err == nil && drive.Storage == storage {
				if owner, ok := seedOwner(value); ok && owner == vmid {
					users = append(users, other)
					break
				}
			}
		}
	}
	slices.Sort(users)
	return users, nil
}

// seedStillUsed reports whether VM vmid's seed ISO on storage must stay
// because other VMs (its clones) have it attached, and warns so. When that
// cannot be told, the seed stays too.
func (r *vmResource) seedStillUsed(ctx context.Context, node, storage string, vmid int, diags *diag.Diagnostics) bool {
	volid := seedVolumeID(storage, vmid)
	users, err := r.seedUsers(ctx, node, storage, vmid)
	if err != nil {
		diags.AddWarning("Seed ISO Kept", fmt.Sprintf(
			"The seed ISO %s was not deleted: looking for VMs that still have it attached failed (%v). "+
				"Delete it on node %s once no VM uses it.", volid, err, node))
		return true
	}
	if len(users) == 0 {
		return false
	}
	diags.AddWarning("Seed ISO Kept", fmt.Sprintf(
		"The seed ISO %s of VM %d was not deleted: %s still attached (a clone inherits its source's seed cdrom), "+
			"and without it they would fail to start. Delete it on node %s once no VM uses it, or give the clones a cloud_init of their own.",
		volid, vmid, vmsHaveIt(users), node))
	return true
}

// checkCloneCanMove refuses, before anything is cloned, a clone that has
// to be made on its source's node and migrated while the source holds an
// ISO on storage that is not shared: PVE does not migrate a VM with a
// local cdrom image, so the clone would be stranded on the source's node.
// An inherited seed the clone drops (it declares cloud_init) does not
// count.
func (r *vmResource) checkCloneCanMove(ctx context.Context, source guestops.CloneSource, plan *vmModel, diags *diag.Diagnostics) bool {
	target := plan.Node.ValueString()
	if source.Shared || source.Node == target {
		return true
	}
	storages, err := r.api.Client.Storages(ctx, source.Node, pveapi.StorageFilter{})
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List Storages", err)
		return false
	}
	shared := map[string]bool{}
	for _, s := range storages {
		shared[s.Storage] = bool(s.Shared)
	}
	for _, slot := range slices.Sorted(maps.Keys(source.Config)) {
		if !wire.IsCDROMSlot(slot) {
			continue
		}
		drive, err := parseDriveSlot(source.Config[slot])
		if err != nil || drive.kind != driveCDROM || drive.Storage == "" || shared[drive.Storage] {
			continue
		}
		if owner, isSeed := seedOwner(source.Config[slot]); isSeed && owner == source.VMID && plan.CloudInit != nil {
			continue
		}
		diags.AddAttributeError(path.Root("clone"), "Clone Cannot Move To Its Node", fmt.Sprintf(
			"VM %d has %s in %s, on storage %s, which is not shared. A clone of it is made on node %s and then migrated to %s, "+
				"and PVE does not migrate a VM with a local cdrom image. Clone onto node %s, or move the ISO to shared storage first%s.",
			source.VMID, drive.VolumeID(), slot, drive.Storage, source.Node, target, source.Node, seedHint(source.Config[slot])))
		return false
	}
	return true
}

func seedHint(value string) string {
	if _, isSeed := seedOwner(value); isSeed {
		return " (this is its seed ISO: a clone that declares cloud_init gets a seed of its own instead)"
	}
	return ""
}

// warnSeedRewrite warns, before VM vmid's seed ISO on storage is uploaded
// again in place, when other VMs (clones that kept it) have it attached:
// they read the new user-data at their next boot, as a new cloud-init
// instance.
func (r *vmResource) warnSeedRewrite(ctx context.Context, node, storage string, vmid int, diags *diag.Diagnostics) {
	users, err := r.seedUsers(ctx, node, storage, vmid)
	if err != nil || len(users) == 0 {
		return
	}
	diags.AddWarning("Seed ISO Shared With Clones", fmt.Sprintf(
		"The seed ISO %s of VM %d is rewritten, and %s attached (clones that kept it): "+
			"they read the new user-data at their next boot, as a new cloud-init instance. "+
			"Give them a cloud_init of their own to keep them apart.",
		seedVolumeID(storage, vmid), vmid, vmsHaveIt(users)))
}

// vmsHaveIt is "VM 101 has it" or "VMs 101, 102 have it".
func vmsHaveIt(vmids []int) string {
	ids := make([]string, len(vmids))
	for i, id := range vmids {
		ids[i] = strconv.Itoa(id)
	}
	if len(ids) == 1 {
		return "VM " + ids[0] + " has it"
	}
	return "VMs " + strings.Join(ids, ", ") + " have it"
}
