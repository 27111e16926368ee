package qemu

import (
	"fmt"
	"maps"

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
