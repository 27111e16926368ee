package guestops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Replacement is a planned change PVE cannot make in place: the guest is
// destroyed and created again.
type Replacement struct {
	Attribute string
	From, To  string
}

// VMIDReplacement is the replacement a changed vmid plans, if it does:
// PVE has no way to renumber a guest.
func VMIDReplacement(state, plan types.Int64) []Replacement {
	if !Known(state) || !Known(plan) || state.Equal(plan) {
		return nil
	}
	return []Replacement{{Attribute: "vmid", From: fmt.Sprint(state.ValueInt64()), To: fmt.Sprint(plan.ValueInt64())}}
}

// LiveVolume is a volume of a guest as PVE reports it.
type LiveVolume struct {
	Slot, VolumeID, Size string
}

func (v LiveVolume) String() string {
	return fmt.Sprintf("%s %s (%s)", v.Slot, v.VolumeID, v.Size)
}

// ownedVolume is the volume config's key holds that destroying the guest
// deletes, if any: disks, EFI and TPM state, root disk and volume mount
// points, and unusedN. CD-ROMs, the cloud-init drive PVE regenerates, bind
// mounts and host devices are not the guest's data.
func ownedVolume(key, value string) (LiveVolume, bool) {
	unused := wire.IsUnusedSlot(key)
	_, isMount := wire.SlotIndex(key, "mp")
	if !unused && !isMount && key != "rootfs" && !slices.Contains(wire.DiskSlotKeys(), key) {
		return LiveVolume{}, false
	}
	drive, err := wire.ParseDrive(value)
	if err != nil || drive.VolumeID() == "" || wire.IsCDROM(drive) || drive.IsCloudInit() {
		return LiveVolume{}, false
	}
	v := LiveVolume{Slot: key, VolumeID: drive.VolumeID(), Size: "size unknown"}
	if bytes, err := wire.ParseSize(drive.Options["size"]); err == nil && bytes > 0 {
		v.Size = wire.FormatSize(bytes)
	}
	return v, true
}

// LiveVolumes lists, by slot, the volumes of the guest vmid on node that
// destroying it deletes. unusedN entries carry no size in the config: it
// is read from their storage. A guest that cannot be read has none listed.
func (a API) LiveVolumes(ctx context.Context, node string, vmid int) []LiveVolume {
	config, err := a.Config(ctx, node, vmid)
	if err != nil {
		return nil
	}
	var out []LiveVolume
	for key, value := range config {
		v, ok := ownedVolume(key, value)
		if !ok {
			continue
		}
		if wire.IsUnusedSlot(key) {
			storage, _, _ := strings.Cut(v.VolumeID, ":")
			if info, err := a.Client.VolumeInfo(ctx, node, storage, v.VolumeID); err == nil && info.Size > 0 {
				v.Size = wire.FormatSize(int64(info.Size))
			}
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(x, y LiveVolume) int { return strings.Compare(x.Slot, y.Slot) })
	return out
}

func joinVolumes(vols []LiveVolume) string {
	parts := make([]string, len(vols))
	for i, v := range vols {
		parts[i] = v.String()
	}
	return strings.Join(parts, ", ")
}

// keepDetached says how to keep a detached volume when its guest goes.
func (k Kind) keepDetached(vmid int) string {
	return fmt.Sprintf(k.keepDetachedHint, vmid)
}

// WarnReplacement warns that the plan replaces the guest vmid on node,
// naming why and every volume that is destroyed with it.
func (a API) WarnReplacement(ctx context.Context, node string, vmid int, why []Replacement, diags *diag.Diagnostics) {
	if len(why) == 0 || a.Client == nil {
		return
	}
	k := a.Kind
	var changes, undo []string
	for _, r := range why {
		changes = append(changes, fmt.Sprintf("%s changes from %s to %s", r.Attribute, r.From, r.To))
		undo = append(undo, fmt.Sprintf("%s back to %s", r.Attribute, r.From))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: PVE cannot change that in place, so %s %d on node %s is destroyed and a new %s is created. ",
		strings.Join(changes, "; "), k.Noun, vmid, node, k.Noun)
	if vols := a.LiveVolumes(ctx, node, vmid); len(vols) > 0 {
		fmt.Fprintf(&b, "Destroying it deletes these volumes with all their data: %s. ", joinVolumes(vols))
	}
	fmt.Fprintf(&b, "Back up what you need first, or set %s to keep the %s.", strings.Join(undo, " and "), k.Noun)
	diags.AddAttributeWarning(path.Root(why[0].Attribute), k.Title+" Will Be Replaced", b.String())
}

// WarnDestroyDetached warns, on a destroy plan, about the guest's detached
// volumes (unusedN): no attribute shows them, and destroying the guest
// deletes them.
func (a API) WarnDestroyDetached(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) {
	var detached []LiveVolume
	for _, v := range a.LiveVolumes(ctx, node, vmid) {
		if wire.IsUnusedSlot(v.Slot) {
			detached = append(detached, v)
		}
	}
	if len(detached) == 0 {
		return
	}
	diags.AddWarning("Destroy Deletes Detached Volumes",
		fmt.Sprintf("Destroying %s %d on node %s also deletes the volumes detached from it, which PVE keeps as unusedN and no attribute shows: %s. %s",
			a.Kind.Noun, vmid, node, joinVolumes(detached), a.Kind.keepDetached(vmid)))
}

// WarnDestroyPlan is WarnDestroyDetached for the guest in state, on the
// destroy plan (the plan is null): ModifyPlan's way to say what a destroy
// deletes beyond what state shows.
func (a API) WarnDestroyPlan(ctx context.Context, state tfsdk.State, private PrivateGetter, diags *diag.Diagnostics) {
	if a.Client == nil || state.Raw.IsNull() {
		return
	}
	var node types.String
	var vmid types.Int64
	if state.GetAttribute(ctx, path.Root("node"), &node).HasError() || state.GetAttribute(ctx, path.Root("vmid"), &vmid).HasError() ||
		!Known(node) || !Known(vmid) {
		return
	}
	a.WarnDestroyDetached(ctx, a.NodeOf(ctx, private, node.ValueString()), int(vmid.ValueInt64()), diags)
}

// ReplacesSection is the part of a guest resource's description that lists
// the changes replacing the guest (fixed, each with why PVE needs it) and
// what the plan says before one.
func ReplacesSection(kind Kind, fixed ...string) string {
	return fmt.Sprintf("\n\n**Changes that replace the %s:** %s. Nothing else does: %s only say how the %s is created, and changing them is only recorded. "+
		"Before a replacement the plan warns `%s Will Be Replaced`, naming every volume destroyed with its size, detached `unusedN` volumes included. "+
		"A destroy deletes the detached volumes too, and its plan warns `Destroy Deletes Detached Volumes`, listing them.",
		kind.Noun, strings.Join(fixed, "; "), kind.createSources, kind.Noun, kind.Title)
}

// VMIDFixed is the entry of ReplacesSection for vmid.
const VMIDFixed = "`vmid` (PVE cannot renumber a guest)"
