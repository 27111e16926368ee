package lxc

import (
	"fmt"
	"maps"
	"slices"

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
