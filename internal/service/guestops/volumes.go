package guestops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The data-loss guard (W21-W24), for a VM's disks and a container's root
// disk and mount points alike: a volume keeps its id for life, grows but
// never shrinks, moves to another storage with its data, and leaves the
// configuration by being detached to unusedN, destroyed only on request.

// Volume is what the guard knows of one disk or mount point.
type Volume struct {
	Storage types.String
	Size    fwutil.SizeValue
	// ID is the volume id in state ("local-lvm:vm-120-disk-0").
	ID types.String
}

// VolumeNoun names a kind of volume in messages: Title in summaries
// ("Disk", "Mount Point"), Noun in sentences ("disk", "mount point").
type VolumeNoun struct {
	Title, Noun string
}

// Volume nouns.
var (
	DiskNoun       = VolumeNoun{Title: "Disk", Noun: "disk"}
	MountPointNoun = VolumeNoun{Title: "Mount Point", Noun: "mount point"}
	GenericVolume  = VolumeNoun{Title: "Volume", Noun: "volume"}
)

// ShrinkIssue refuses a planned size below the size in state (W22). State
// holds the live size after a refresh, so the usual cause is a volume grown
// outside Terraform: the detail names both sizes and both ways out, a size
// that matches PVE or ignore_changes on the attribute.
func ShrinkIssue(p path.Path, noun VolumeNoun, slot string, had, want fwutil.SizeValue) (Issue, bool) {
	wantBytes, okWant := want.Bytes()
	hadBytes, okHad := had.Bytes()
	if !okWant || !okHad || wantBytes >= hadBytes {
		return Issue{}, false
	}
	return Issue{
		Path:    p,
		Summary: noun.Title + " Cannot Shrink",
		Detail: fmt.Sprintf("%s %s is %s in PVE; the configuration asks for %s. PVE can only grow a %s, and a new, smaller volume would lose the data. "+
			"If the %s was grown outside Terraform (in the PVE web interface, or with qm resize or pct resize), either "+
			"set size = %s in the configuration to match it, or add lifecycle { ignore_changes = [%s] } to leave its size to PVE. "+
			"To really start over with a smaller %s, add it in a new slot, copy the data, then remove the old one.",
			fwutil.Capitalize(noun.Noun), slot, HumanSize(had), HumanSize(want), noun.Noun,
			noun.Noun, sizeLiteral(hadBytes), p.String(), noun.Noun),
	}, true
}

// sizeLiteral spells a size the way a configuration writes it: a bare
// number of GiB, else a quoted string with a unit.
func sizeLiteral(bytes int64) string {
	text := fwutil.FormatSizeAttribute(bytes)
	if bytes%wire.GiB == 0 {
		return text
	}
	return strconv.Quote(text)
}

// Lookalike finds, among volumes added in the plan, one with the storage
// and size of a removed one: the shape of a volume moved to another slot,
// which PVE cannot do (it would detach the old one and allocate an empty
// new one).
func Lookalike(removed Volume, added map[string]Volume) (string, bool) {
	removedBytes, ok := removed.Size.Bytes()
	if !ok {
		return "", false
	}
	for _, slot := range slices.Sorted(maps.Keys(added)) {
		v := added[slot]
		bytes, ok := v.Size.Bytes()
		if ok && bytes == removedBytes && v.Storage.Equal(removed.Storage) {
			return slot, true
		}
	}
	return "", false
}

// MovedSlotIssue refuses a volume that leaves slot from while a lookalike
// appears in slot to.
func MovedSlotIssue(p path.Path, noun VolumeNoun, from, to string, had Volume) Issue {
	return Issue{
		Path:    p,
		Summary: noun.Title + " Cannot Move Between Slots",
		Detail: fmt.Sprintf("%s %s (%s on %s) disappears from the configuration while a %s of the same storage and size appears in %s. "+
			"PVE cannot move a live %s to another slot: the plan would detach %s and allocate a new, empty volume in %s. "+
			"Keep the %s in %s. If a new empty %s is really wanted, add it first, apply, then remove %s.",
			fwutil.Capitalize(noun.Noun), from, HumanSize(had.Size), had.Storage.ValueString(), noun.Noun, to,
			noun.Noun, from, to, noun.Noun, from, noun.Noun, from),
	}
}

// DetachIssue is the warning a removed volume gets: where its data goes
// (W24), and whether purge destroys it.
func DetachIssue(p path.Path, noun VolumeNoun, slot string, had Volume, purge types.Bool) Issue {
	detail := fmt.Sprintf("%s %s (volume %s) is no longer declared. It will be detached and kept by PVE as an unusedN entry with its data; "+
		"nothing is deleted now. The volume still belongs to the guest, and destroying the guest (terraform destroy, or a replacement) deletes it too: "+
		"to keep it, move it to another guest first (move_disk or move_volume with target-vmid, see the safe disk changes guide). "+
		"Set purge_removed_disks = true to destroy detached volumes at once instead.", fwutil.Capitalize(noun.Noun), slot, had.ID.ValueString())
	if Known(purge) && purge.ValueBool() {
		detail = fmt.Sprintf("%s %s (volume %s) is no longer declared and purge_removed_disks = true: it will be detached and its volume DESTROYED with all its data.",
			fwutil.Capitalize(noun.Noun), slot, had.ID.ValueString())
	}
	return Issue{Path: p, Summary: noun.Title + " Will Be Detached", Detail: detail, Warning: true}
}

// HumanSize renders a size for messages: "32 GiB", "2252M".
func HumanSize(v fwutil.SizeValue) string {
	bytes, ok := v.Bytes()
	if !ok {
		return v.ValueString()
	}
	if bytes%wire.GiB == 0 {
		return fmt.Sprintf("%d GiB", bytes/wire.GiB)
	}
	return wire.FormatSize(bytes)
}

// Resize grows one volume (W22); Size is absolute, in PVE's disk-size
// format.
type Resize struct {
	Slot string
	Size string
}

// Move moves one volume to another storage with its data (W23).
type Move struct {
	Slot    string
	Storage string
}

// FollowUps lists the tasks that finish the volumes after a create or a
// config request, read against the live volumes that request left: grow
// every volume smaller than planned, move every volume whose storage
// differs. A volume larger than planned is an error: PVE cannot shrink
// (W22), and the plan guard should have refused it already. noun names the
// volumes in messages.
func FollowUps(noun VolumeNoun, planned map[string]Volume, live map[string]wire.Drive) ([]Resize, []Move, error) {
	var resizes []Resize
	var moves []Move
	for _, slot := range slices.Sorted(maps.Keys(planned)) {
		want := planned[slot]
		drive, present := live[slot]
		if !present {
			return nil, nil, fmt.Errorf("%s %s: PVE did not keep the volume: the slot is empty or holds something else after the update", noun.Noun, slot)
		}
		if wantBytes, ok := want.Size.Bytes(); ok {
			haveBytes, known := DriveSizeBytes(drive)
			switch {
			case !known || wantBytes > haveBytes:
				resizes = append(resizes, Resize{Slot: slot, Size: wire.FormatSize(wantBytes)})
			case wantBytes < haveBytes:
				return nil, nil, fmt.Errorf("%s %s: the volume is %s in PVE, larger than the planned %s; PVE cannot shrink a volume",
					noun.Noun, slot, fwutil.FormatSizeAttribute(haveBytes), want.Size.ValueString())
			}
		}
		if Known(want.Storage) && want.Storage.ValueString() != drive.Storage {
			moves = append(moves, Move{Slot: slot, Storage: want.Storage.ValueString()})
		}
	}
	return resizes, moves, nil
}

// DriveSizeBytes is the size= option of a live drive or mount point.
func DriveSizeBytes(drive wire.Drive) (int64, bool) {
	raw, ok := drive.Options["size"]
	if !ok {
		return 0, false
	}
	bytes, err := wire.ParseSize(raw)
	return bytes, err == nil
}

// RunFollowUps runs the resize tasks (W22), then the move tasks, which
// remove the source volume once its data is copied (W23). pathOf points a
// failure at the volume's attribute.
func (a API) RunFollowUps(ctx context.Context, node string, vmid int, resizes []Resize, moves []Move, pathOf func(slot, attr string) path.Path, diags *diag.Diagnostics) bool {
	for _, resize := range resizes {
		upid, err := a.Client.ResizeGuestDisk(ctx, node, a.Kind.Type, vmid, resize.Slot, resize.Size)
		if err != nil {
			fwutil.AddAttributeAPIError(diags, pathOf(resize.Slot, "size"), "Unable To Resize Disk", err)
			return false
		}
		what := fmt.Sprintf("resizing %s of %s %d", resize.Slot, a.Kind.Noun, vmid)
		if !fwutil.SettleTask(ctx, a.Client, upid, what, "Unable To Resize Disk", diags) {
			return false
		}
	}
	for _, move := range moves {
		upid, err := a.Client.MoveGuestVolume(ctx, node, a.Kind.Type, vmid, move.Slot, move.Storage, true)
		if err != nil {
			fwutil.AddAttributeAPIError(diags, pathOf(move.Slot, "storage"), "Unable To Move Disk", err)
			return false
		}
		what := fmt.Sprintf("moving %s of %s %d to %s", move.Slot, a.Kind.Noun, vmid, move.Storage)
		if !fwutil.SettleTask(ctx, a.Client, upid, what, "Unable To Move Disk", diags) {
			return false
		}
	}
	return true
}

// UnusedSlotsHolding finds the unusedN keys that hold the given volume ids
// after a detach (W24).
func UnusedSlotsHolding(config pveapi.GuestConfig, volids map[string]string) []string {
	wanted := map[string]bool{}
	for _, v := range volids {
		if v != "" {
			wanted[v] = true
		}
	}
	var out []string
	for key, value := range config {
		if !wire.IsUnusedSlot(key) {
			continue
		}
		drive, err := wire.ParseDrive(value)
		if err == nil && wanted[drive.VolumeID()] {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// PurgeDetached destroys the volumes of removed disks or mount points:
// PVE parked each as unusedN (W24), and deleting an unusedN key destroys
// its volume. It returns the volume ids it did not find parked (a removal
// PVE keeps pending until the guest restarts).
func (a API) PurgeDetached(ctx context.Context, node string, vmid int, detached map[string]string, diags *diag.Diagnostics) ([]string, bool) {
	config, err := a.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title, err)
		return nil, false
	}
	unused := UnusedSlotsHolding(config, detached)
	parked := map[string]bool{}
	for _, key := range unused {
		if drive, err := wire.ParseDrive(config[key]); err == nil {
			parked[drive.VolumeID()] = true
		}
	}
	var missing []string
	for _, volid := range detached {
		if volid != "" && !parked[volid] {
			missing = append(missing, volid)
		}
	}
	slices.Sort(missing)
	if len(unused) == 0 {
		return missing, true
	}
	if err := a.UpdateConfig(ctx, node, vmid, map[string][]string{"delete": {strings.Join(unused, ",")}}); err != nil {
		fwutil.AddAPIError(diags, "Unable To Destroy Removed Disks", err)
		return nil, false
	}
	return missing, true
}
