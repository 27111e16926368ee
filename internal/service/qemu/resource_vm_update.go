package qemu

import (
	"context"
	"fmt"
	"maps"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// configUpdate is the one config request of an update.
type configUpdate struct {
	delta *wire.ConfigDelta
	// allocates is set when delta writes a create form (a new disk): PVE
	// allocates storage then, which the asynchronous form runs as a task.
	allocates bool
	// detached maps each removed disk's slot to its volume id. PVE keeps the
	// volume as unusedN (W24); with purge_removed_disks it is destroyed
	// after the config request.
	detached map[string]string
}

// toUpdate computes the config request that turns the VM's live config into
// plan. Keys are compared with the live config, so only what differs is
// sent; set and delete are disjoint (W16). Disks declared in an empty slot
// are written in create form; disks that exist are rewritten in live form
// with their volume id and the options the provider does not model (W21);
// disks, CD-ROMs and NICs that state had and plan drops are deleted
// (a disk is detached, W24). Size and storage changes are not config
// changes: see diskFollowUps.
func toUpdate(state, plan *vmModel, live pveapi.GuestConfig) (*configUpdate, error) {
	u := &configUpdate{delta: &wire.ConfigDelta{}, detached: map[string]string{}}

	wanted := map[string]*string{
		keyName:        guestops.WantedString(plan.Name),
		keyDescription: guestops.WantedString(plan.Description),
		keyBIOS:        guestops.WantedString(plan.BIOS),
		keyMachine:     guestops.WantedString(plan.Machine),
		keyOSType:      guestops.WantedString(plan.OSType),
		keySCSIHW:      guestops.WantedString(plan.SCSIHardware),
		keyOnBoot:      guestops.WantedBool(plan.OnBoot),
		keyProtection:  guestops.WantedBool(plan.Protection),
		keyTags:        nil,
	}
	tags, err := guestops.WantedTags(plan.Tags)
	if err != nil {
		return nil, err
	}
	wanted[keyTags] = tags
	maps.Copy(wanted, plan.scalarKeys(live))
	guestops.DiffKeys(u.delta, wanted, live, sameConfigValue)

	if err := u.disks(state, plan, live); err != nil {
		return nil, err
	}
	if _, err := cdromSlots.Reconcile(u.delta, plan.CDROMs, state.CDROMs, live); err != nil {
		return nil, err
	}
	if _, err := nicSlots.Reconcile(u.delta, plan.Network, state.Network, live); err != nil {
		return nil, err
	}
	if err := u.hardware(state, plan, live); err != nil {
		return nil, err
	}
	if err := u.cloudInit(plan, live); err != nil {
		return nil, err
	}

	// boot_order is Computed: left out of configuration it is PVE's, never
	// deleted. When declared, it goes into this request only when no device
	// comes or goes: PVE edits the order itself then (a removed device
	// leaves it, a new CD-ROM joins it, W28), so bootOrderFix writes it
	// afterwards.
	if want, ok := bootOrderFix(plan, live); ok && !u.touchesDevices() {
		u.delta.Set(keyBoot, want)
	}
	return u, nil
}

// disks writes the disks. A disk written into an empty slot is in create
// form: PVE allocates it.
func (u *configUpdate) disks(state, plan *vmModel, live pveapi.GuestConfig) error {
	changes, err := diskSlots.Reconcile(u.delta, plan.Disks, state.Disks, live)
	if err != nil {
		return err
	}
	if len(changes.Created) > 0 {
		u.allocates = true
	}
	maps.Copy(u.detached, changes.Detached)
	return nil
}

// bootOrderFix returns the boot value to write when the planned boot order
// differs from the live one.
func bootOrderFix(plan *vmModel, live pveapi.GuestConfig) (string, bool) {
	order := listStrings(plan.BootOrder)
	if len(order) == 0 {
		return "", false
	}
	want := bootValue(order)
	if have, ok := live[keyBoot]; ok && sameConfigValue(keyBoot, want, have) {
		return "", false
	}
	return want, true
}

// touchesDevices reports whether the request adds or removes a drive or NIC.
func (u *configUpdate) touchesDevices() bool {
	for _, key := range append(u.delta.SetKeys(), u.delta.Deleted()...) {
		if wire.IsDataDiskSlot(key) || wire.IsNetSlot(key) {
			return true
		}
	}
	return false
}

// sameConfigValue compares a wanted config value with the live one the way
// PVE means them: memory in MiB (W43), tags as a normalised set (W19),
// property strings as key sets, booleans and numbers by value.
func sameConfigValue(key, want, have string) bool {
	if same, ok := guestops.SameValue(key, want, have); ok {
		return same
	}
	switch key {
	case keyMemory:
		a, errA := wire.ParseMemoryMiB(want)
		b, errB := wire.ParseMemoryMiB(have)
		return errA == nil && errB == nil && a == b
	case keyCPU:
		return guestops.SamePropertyString(want, have, cpuTypeKey)
	case keyAgent:
		return guestops.SamePropertyString(want, have, agentOnKey)
	case keyBoot:
		return guestops.SamePropertyString(want, have, bootLegacyKey)
	case keyCPULimit:
		return guestops.SameFloat(want, have)
	case keyNUMA:
		return guestops.SameBool(want, have)
	}
	return want == have
}

// diskFollowUps lists the tasks that finish the disks after the config
// request (see guestops.FollowUps): grow, including a disk imported at its
// image's size (W25), and move. A slot that no longer holds a data disk is
// an error.
func diskFollowUps(plan *vmModel, live pveapi.GuestConfig) ([]guestops.Resize, []guestops.Move, error) {
	planned := make(map[string]guestops.Volume, len(plan.Disks))
	drives := map[string]wire.Drive{}
	for slot, disk := range plan.Disks {
		planned[slot] = disk.volume()
		value, present := live[slot]
		if !present {
			continue
		}
		drive, err := parseDriveSlot(value)
		if err != nil || drive.kind != driveData {
			return nil, nil, fmt.Errorf("disks.%s: PVE reports %q, not a data disk", slot, value)
		}
		drives[slot] = drive.Drive
	}
	return guestops.FollowUps(guestops.DiskNoun, planned, drives)
}

// ApplyUpdate writes the config request, purges the disks it detached when
// asked to, syncs cloud-init, then fixes the boot order and runs the disk
// tasks against the config as it is now.
func (r *vmResource) ApplyUpdate(ctx context.Context, config tfsdk.Config, node string, vmid int, state, plan *vmModel, diags *diag.Diagnostics) (guestops.ConfigChange, bool) {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return guestops.ConfigChange{}, false
	}
	update, err := r.updateFor(ctx, state, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan VM Update", err.Error())
		return guestops.ConfigChange{}, false
	}
	if !r.stopForCloudInitMove(ctx, node, vmid, state, plan, diags) {
		return guestops.ConfigChange{}, false
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return guestops.ConfigChange{}, false
	}
	if len(update.detached) > 0 && plan.PurgeRemovedDisks.ValueBool() {
		if _, ok := r.api.PurgeDetached(ctx, node, vmid, update.detached, diags); !ok {
			return guestops.ConfigChange{}, false
		}
	}
	if !r.applyCloudInit(ctx, config, node, vmid, state, plan, &configWritten, diags) {
		return guestops.ConfigChange{}, false
	}
	if configWritten {
		if live, err = r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid); err != nil {
			fwutil.AddAPIError(diags, "Unable To Read VM", err)
			return guestops.ConfigChange{}, false
		}
	}
	if !r.finishConfig(ctx, node, vmid, plan, live, diags) {
		return guestops.ConfigChange{}, false
	}
	return guestops.ConfigChange{Written: configWritten}, true
}

// finishConfig ends a configuration against live, the config after the
// config request: the boot order, which may name disks that request
// added, then the disk tasks.
func (r *vmResource) finishConfig(ctx context.Context, node string, vmid int, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) bool {
	if boot, needed := bootOrderFix(plan, live); needed {
		if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{keyBoot: {boot}}); err != nil {
			fwutil.AddAttributeAPIError(diags, path.Root("boot_order"), "Unable To Set Boot Order", err)
			return false
		}
	}
	return r.finishDisks(ctx, node, vmid, plan, live, diags)
}

// writeConfig sends the one config request of an update. A request that
// allocates new disks goes the asynchronous way and is waited for (W9).
func (r *vmResource) writeConfig(ctx context.Context, node string, vmid int, u *configUpdate, digest string, diags *diag.Diagnostics) bool {
	params := u.delta.Values()
	if digest != "" {
		params.Set("digest", digest)
	}
	if !u.allocates {
		if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, params); err != nil {
			fwutil.AddAPIError(diags, "Unable To Update VM", err)
			return false
		}
		return true
	}
	upid, err := r.api.Client.UpdateQemuConfigAsync(ctx, node, vmid, params)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Update VM", err)
		return false
	}
	return fwutil.SettleTask(ctx, r.api.Client, upid, fmt.Sprintf("updating VM %d", vmid), "Unable To Update VM", diags)
}

// finishDisks runs the disk tasks that follow a create or a config
// request: grow (W22), then move to another storage with the data (W23).
func (r *vmResource) finishDisks(ctx context.Context, node string, vmid int, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) bool {
	resizes, moves, err := diskFollowUps(plan, live)
	if err != nil {
		diags.AddError("Unable To Update VM Disks", err.Error())
		return false
	}
	if !r.api.RunFollowUps(ctx, node, vmid, resizes, moves, diskPath, diags) {
		return false
	}
	return r.finishFirmware(ctx, node, vmid, plan, live, diags)
}

// updateFor is the config request of an update, computed between views
// that hold the live values of what the configuration never declared, so
// those are left as they are: inherited from a clone source or an archive,
// or set in PVE by anyone. What state declared and plan drops is removed.
func (r *vmResource) updateFor(ctx context.Context, state, plan *vmModel, live pveapi.GuestConfig) (*configUpdate, error) {
	from := plan.origin()
	vmid := state.vmid()
	stateView, err := r.inheritedView(ctx, vmid, nil, state, live, from)
	if err != nil {
		return nil, err
	}
	planView, err := r.inheritedView(ctx, vmid, state, plan, live, from)
	if err != nil {
		return nil, err
	}
	return toUpdate(stateView, planView, live)
}
