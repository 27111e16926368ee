package lxc

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// configUpdate is the one config request of an update.
type configUpdate struct {
	delta *wire.ConfigDelta
	// detached maps each removed volume mount point's slot to its volume id.
	// PVE keeps the volume as unusedN (W24); with purge_removed_disks it is
	// destroyed after the config request.
	detached map[string]string
}

// toUpdate computes the config request that turns the container's live
// config into plan. Keys are compared with the live config, so only what
// differs is sent; set and delete are disjoint (W16); unprivileged is
// never sent (W34). Mount points declared in an empty slot are written in
// create form; mount points that exist are rewritten in live form with
// their volume or host path and the options the provider does not model
// (W21, W37); mount points and NICs that state had and plan drops are
// deleted (a volume mount point is detached, W24). Size and storage changes
// are not config changes: see mountFollowUps.
func toUpdate(state, plan *containerModel, live pveapi.GuestConfig) (*configUpdate, error) {
	u := &configUpdate{delta: &wire.ConfigDelta{}, detached: map[string]string{}}
	wanted := map[string]*string{
		guestops.KeyDescription: guestops.WantedString(plan.Description),
		guestops.KeyOnBoot:      guestops.WantedBool(plan.OnBoot),
		guestops.KeyProtection:  guestops.WantedBool(plan.Protection),
	}
	tags, err := guestops.WantedTags(plan.Tags)
	if err != nil {
		return nil, err
	}
	wanted[guestops.KeyTags] = tags
	scalars, err := plan.scalarKeys(live)
	if err != nil {
		return nil, err
	}
	maps.Copy(wanted, scalars)
	guestops.DiffKeys(u.delta, wanted, live, sameConfigValue)

	mounts, err := mountPointSlots.Reconcile(u.delta, plan.MountPoints, state.MountPoints, live)
	if err != nil {
		return nil, err
	}
	maps.Copy(u.detached, mounts.Detached)
	if _, err := nicSlots.Reconcile(u.delta, plan.Network, state.Network, live); err != nil {
		return nil, err
	}
	if _, err := deviceSlots.Reconcile(u.delta, plan.Devices, state.Devices, live); err != nil {
		return nil, err
	}
	return u, nil
}

// sameConfigValue compares a wanted config value with the live one the way
// PVE means them: the shared keys (tags W19, description W20, booleans),
// features flag by flag (W33), lists as lists, numbers by value.
func sameConfigValue(key, want, have string) bool {
	if same, ok := guestops.SameValue(key, want, have); ok {
		return same
	}
	switch key {
	case keyFeatures:
		return sameFeatures(want, have)
	case keyNameserver, keySearchDomain:
		return slices.Equal(wire.SplitList(want), wire.SplitList(have))
	case keyCPULimit:
		return guestops.SameFloat(want, have)
	case keyConsole:
		return guestops.SameBool(want, have)
	}
	return want == have
}

// mountFollowUps lists the tasks that finish the root disk and the volume
// mount points after the config request (see guestops.FollowUps): grow,
// and move to another storage. Bind mounts have neither.
func mountFollowUps(plan *containerModel, live pveapi.GuestConfig) ([]guestops.Resize, []guestops.Move, error) {
	planned := map[string]guestops.Volume{}
	drives := map[string]wire.Drive{}
	if plan.RootDisk != nil {
		planned[keyRootFS] = plan.RootDisk.volume()
	}
	for slot, mp := range plan.MountPoints {
		if !mp.isBind() {
			planned[slot] = mp.volume()
		}
	}
	for slot := range planned {
		value, present := live[slot]
		if !present {
			continue
		}
		drive, err := parseMountSlot(value)
		if err != nil || drive.kind != mountVolume {
			return nil, nil, fmt.Errorf("%s: PVE reports %q, not a volume", slot, value)
		}
		drives[slot] = drive.Drive
	}
	return guestops.FollowUps(guestops.GenericVolume, planned, drives)
}

// ApplyUpdate writes the config request and grows or moves the volumes.
// Volumes it detached are purged only after power is settled
// (FinishUpdate).
func (r *containerResource) ApplyUpdate(ctx context.Context, _ tfsdk.Config, node string, vmid int, state, plan *containerModel, diags *diag.Diagnostics) (guestops.ConfigChange, bool) {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container", err)
		return guestops.ConfigChange{}, false
	}
	update, err := r.updateFor(ctx, state, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan Container Update", err.Error())
		return guestops.ConfigChange{}, false
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return guestops.ConfigChange{}, false
	}
	if !r.finishVolumes(ctx, node, vmid, plan, diags) {
		return guestops.ConfigChange{}, false
	}
	return guestops.ConfigChange{Written: configWritten, Detached: update.detached}, true
}

// FinishUpdate purges the volumes the update detached. Purging comes
// last: a mount point removed from a running container is detached only
// when PVE applies the pending removal, at the next start.
func (r *containerResource) FinishUpdate(ctx context.Context, node string, vmid int, plan *containerModel, change guestops.ConfigChange, diags *diag.Diagnostics) bool {
	if len(change.Detached) == 0 || !plan.PurgeRemovedDisks.ValueBool() {
		return true
	}
	missing, ok := r.api.PurgeDetached(ctx, node, vmid, change.Detached, diags)
	if !ok {
		return false
	}
	if len(missing) > 0 {
		diags.AddWarning("Removed Volumes Not Destroyed Yet",
			fmt.Sprintf("Container %d still uses %v until it restarts: PVE removes a mount point from a running container at its next start, "+
				"and keeps the volume as unusedN then. Restart the container and delete the unusedN entry in PVE, "+
				"or set reboot_after_update = true so that updates restart it.", vmid, missing))
	}
	return true
}

// writeConfig sends the one config request of a change, bound to the
// digest of the config it was computed against.
func (r *containerResource) writeConfig(ctx context.Context, node string, vmid int, u *configUpdate, digest string, diags *diag.Diagnostics) bool {
	params := u.delta.Values()
	params.Set("digest", digest)
	if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid, params); err != nil {
		r.addUpdateError(diags, err)
		return false
	}
	return true
}

// finishVolumes runs the volume tasks that follow a create or a config
// request: grow (W22), then move to another storage with the data (W23).
// PVE moves a container's volumes only while it is stopped: a running
// container is shut down first, and the power settling that follows starts
// it again.
func (r *containerResource) finishVolumes(ctx context.Context, node string, vmid int, plan *containerModel, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container", err)
		return false
	}
	resizes, moves, err := mountFollowUps(plan, live)
	if err != nil {
		diags.AddError("Unable To Update Container Volumes", err.Error())
		return false
	}
	if len(moves) > 0 {
		status, err := r.api.Status(ctx, node, vmid)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To Read Container Status", err)
			return false
		}
		if status.Status == pveapi.PowerRunning && !r.api.PowerOff(ctx, node, vmid, diags) {
			return false
		}
	}
	return r.api.RunFollowUps(ctx, node, vmid, resizes, moves, mountPath, diags)
}

// addUpdateError reports a refused config update. A root-only refusal
// (W33, W36) says what to do: no privilege fixes it, only a password login
// as root@pam.
func (r *containerResource) addUpdateError(diags *diag.Diagnostics, err error) {
	if reason, ok := pveapi.IsRootOnly(err); ok {
		diags.AddError("Option Needs root@pam", fmt.Sprintf(
			"PVE refused the change: %s. The provider authenticates as %s; no role or privilege lifts this rule, "+
				"only a password login as root@pam (API tokens are refused, even root@pam's own). "+
				"Configure the provider with username = \"root@pam\" and its password, or leave the option as it is in PVE.\n\n%v",
			reason, r.api.Client.Principal(), err))
		return
	}
	fwutil.AddAPIError(diags, "Unable To Update Container", err)
}

// updateFor is the config request of an update, computed between views
// that hold the live values of what the configuration never declared, so
// those are left as they are: inherited from a clone source or an archive,
// or set in PVE by anyone. What state declared and plan drops is removed.
func (r *containerResource) updateFor(ctx context.Context, state, plan *containerModel, live pveapi.GuestConfig) (*configUpdate, error) {
	vmid := state.vmid()
	stateView, err := r.cloneView(ctx, vmid, nil, state, live)
	if err != nil {
		return nil, err
	}
	planView, err := r.cloneView(ctx, vmid, state, plan, live)
	if err != nil {
		return nil, err
	}
	return toUpdate(stateView, planView, live)
}
