package guestops

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
)

// A declared disk or mount point that PVE no longer has (detached or
// deleted outside Terraform) drops out of state at refresh, and the plan
// then makes a new, empty volume in its slot, which reads like adding a
// disk. The refresh remembers such slots in private state with their
// volume ids, so the plan can say what happens and where the old volume
// went (PVE parks a detached volume as unusedN, W24).

// vanishedKey is the private state entry: slot -> volume id of the
// volumes that left the guest outside Terraform.
const vanishedKey = "vanished_volumes"

// Vanished reads the slots a refresh found gone.
func Vanished(ctx context.Context, private PrivateGetter) map[string]string {
	if private == nil {
		return nil
	}
	raw, diags := private.GetKey(ctx, vanishedKey)
	if diags.HasError() || len(raw) == 0 {
		return nil
	}
	var out map[string]string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil
	}
	return out
}

// volumeIDs is slot -> volume id of the map attribute attr of a state
// ("disks", "mount_points"); nil when the state is empty or attr cannot be
// read. A slot without a volume (a bind mount) maps to "".
func volumeIDs(ctx context.Context, state tfsdk.State, attr string) map[string]string {
	if state.Raw.IsNull() {
		return nil
	}
	var slots types.Map
	if state.GetAttribute(ctx, path.Root(attr), &slots).HasError() {
		return nil
	}
	out := make(map[string]string, len(slots.Elements()))
	for slot, v := range slots.Elements() {
		out[slot] = ""
		if obj, ok := v.(types.Object); ok {
			if id, ok := obj.Attributes()["volume"].(types.String); ok {
				out[slot] = id.ValueString()
			}
		}
	}
	return out
}

// NoteVanishedVolumes runs after a resource's Read: it remembers the slots
// of the map attribute attr that the refresh found gone.
func NoteVanishedVolumes(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, attr string) {
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() {
		return
	}
	NoteVanished(ctx, req.Private, resp.Private, volumeIDs(ctx, req.State, attr), volumeIDs(ctx, resp.State, attr), &resp.Diagnostics)
}

// NoteVanished records, after a refresh, the volumes of prior (slot ->
// volume id, from state before the refresh) that now is without, together
// with those noted earlier whose slot is still empty.
func NoteVanished(ctx context.Context, earlier PrivateGetter, private PrivateSetter, prior, now map[string]string, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	gone := Vanished(ctx, earlier)
	if gone == nil {
		gone = map[string]string{}
	}
	for slot, volid := range prior {
		if volid != "" {
			gone[slot] = volid
		}
	}
	for slot := range now {
		delete(gone, slot)
	}
	var value []byte
	if len(gone) > 0 {
		var err error
		if value, err = json.Marshal(gone); err != nil {
			return
		}
	}
	diags.Append(private.SetKey(ctx, vanishedKey, value)...)
}

// WarnVanished adds VanishedIssues to a plan's diagnostics, when a refresh
// noted vanished volumes in private (see NoteVanished); without a client
// (a plan before the provider is configured) there is nothing to say.
func (a API) WarnVanished(ctx context.Context, private PrivateGetter, node string, vmid int, noun VolumeNoun, added map[string]Volume,
	pathOf func(slot string) path.Path, reattach func(slot, volid string) string, diags *diag.Diagnostics) {
	vanished := Vanished(ctx, private)
	if len(vanished) == 0 || a.Client == nil {
		return
	}
	AddIssues(diags, a.VanishedIssues(ctx, node, vmid, noun, added, vanished, pathOf, reattach, diags))
}

// AddedVolumes are the slots plan declares and state does not, with their
// planned volumes: the slots a plan makes new volumes in.
func AddedVolumes[V any](state, plan map[string]V, volume func(V) Volume) map[string]Volume {
	added := map[string]Volume{}
	for slot, v := range plan {
		if _, had := state[slot]; !had {
			added[slot] = volume(v)
		}
	}
	return added
}

// VanishedIssues warns about each slot in added (planned slots state does
// not have, with their planned volume) that a refresh found gone: a new
// empty volume will be made there. It reads the guest's config once, only
// then, to name the unusedN entry PVE kept, and says how to re-attach it.
// reattach spells the command that puts a volume back into a slot.
func (a API) VanishedIssues(ctx context.Context, node string, vmid int, noun VolumeNoun, added map[string]Volume, vanished map[string]string,
	pathOf func(slot string) path.Path, reattach func(slot, volid string) string, diags *diag.Diagnostics) []Issue {
	var slots []string
	for _, slot := range slices.Sorted(maps.Keys(added)) {
		if vanished[slot] != "" {
			slots = append(slots, slot)
		}
	}
	if len(slots) == 0 {
		return nil
	}
	config, err := a.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+a.Kind.Title, err)
		return nil
	}
	var issues []Issue
	for _, slot := range slots {
		volid := vanished[slot]
		detail := fmt.Sprintf("%s %s is declared, but %s %d in PVE no longer has it: its volume %s was removed outside Terraform. "+
			"This plan makes a NEW, EMPTY %s volume in %s. ",
			fwutil.Capitalize(noun.Noun), slot, a.Kind.Noun, vmid, volid, HumanSize(added[slot].Size), slot)
		if unused := UnusedSlotsHolding(config, map[string]string{slot: volid}); len(unused) > 0 {
			detail += fmt.Sprintf("PVE kept the old volume with its data as %s. To get it back instead, re-attach it before applying: %s "+
				"(PVE attaches an unused volume when the slot is set to its volume id). The next plan then keeps it.", unused[0], reattach(slot, volid))
		} else {
			detail += "PVE kept no unused volume for it: its data is gone unless a backup holds it. " +
				"Apply to get an empty volume, or remove the slot from the configuration."
		}
		issues = append(issues, Issue{Path: pathOf(slot), Summary: noun.Title + " Removed Outside Terraform", Detail: detail, Warning: true})
	}
	return issues
}
