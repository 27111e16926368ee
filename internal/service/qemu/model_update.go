package qemu

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
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
		keyName:        strPtr(plan.Name),
		keyDescription: strPtr(plan.Description),
		keyBIOS:        strPtr(plan.BIOS),
		keyMachine:     strPtr(plan.Machine),
		keyOSType:      strPtr(plan.OSType),
		keySCSIHW:      strPtr(plan.SCSIHardware),
		keyOnBoot:      boolPtr(plan.OnBoot),
		keyProtection:  boolPtr(plan.Protection),
		keyTags:        nil,
	}
	tags, err := plan.Tags.Normalized()
	if err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	if len(tags) > 0 {
		s := wire.FormatTags(tags)
		wanted[keyTags] = &s
	}
	maps.Copy(wanted, plan.scalarKeys(live))
	for _, key := range slices.Sorted(maps.Keys(wanted)) {
		want := wanted[key]
		have, present := live[key]
		switch {
		case want != nil && (!present || !sameConfigValue(key, *want, have)):
			u.delta.Set(key, *want)
		case want == nil && present:
			u.delta.Delete(key)
		}
	}

	if err := u.disks(state, plan, live); err != nil {
		return nil, err
	}
	if err := u.cdroms(state, plan, live); err != nil {
		return nil, err
	}
	if err := u.network(state, plan, live); err != nil {
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

func (u *configUpdate) disks(state, plan *vmModel, live pveapi.GuestConfig) error {
	for _, slot := range slices.Sorted(maps.Keys(plan.Disks)) {
		want := plan.Disks[slot]
		liveValue, present := live[slot]
		if !present {
			value, err := want.createForm()
			if err != nil {
				return fmt.Errorf("disks.%s: %w", slot, err)
			}
			u.delta.Set(slot, value)
			u.allocates = true
			continue
		}
		drive, kind, err := classifyDrive(liveValue)
		if err != nil {
			return fmt.Errorf("disks.%s: PVE reports %q: %w", slot, liveValue, err)
		}
		if kind != driveData {
			return fmt.Errorf("disks.%s: the slot holds a %s in PVE (%s); declare the disk in a free slot", slot, kind, liveValue)
		}
		value, err := want.liveForm(drive)
		if err != nil {
			return fmt.Errorf("disks.%s: %w", slot, err)
		}
		if !sameDrive(value, liveValue) {
			u.delta.Set(slot, value)
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(state.Disks)) {
		if _, kept := plan.Disks[slot]; kept {
			continue
		}
		liveValue, present := live[slot]
		if !present {
			continue
		}
		if drive, kind, err := classifyDrive(liveValue); err == nil && kind == driveData {
			u.delta.Delete(slot)
			u.detached[slot] = drive.VolumeID()
		}
	}
	return nil
}

func (u *configUpdate) cdroms(state, plan *vmModel, live pveapi.GuestConfig) error {
	for _, slot := range slices.Sorted(maps.Keys(plan.CDROMs)) {
		liveValue, present := live[slot]
		var liveDrive *wire.Drive
		if present {
			drive, kind, err := classifyDrive(liveValue)
			if err != nil {
				return fmt.Errorf("cdroms.%s: PVE reports %q: %w", slot, liveValue, err)
			}
			if kind != driveCDROM {
				return fmt.Errorf("cdroms.%s: the slot holds a %s in PVE (%s); declare the CD-ROM in a free slot", slot, kind, liveValue)
			}
			liveDrive = &drive
		}
		value, err := plan.CDROMs[slot].value(liveDrive)
		if err != nil {
			return fmt.Errorf("cdroms.%s: %w", slot, err)
		}
		if !present || !sameDrive(value, liveValue) {
			u.delta.Set(slot, value)
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(state.CDROMs)) {
		if _, kept := plan.CDROMs[slot]; kept {
			continue
		}
		if liveValue, present := live[slot]; present {
			if _, kind, err := classifyDrive(liveValue); err == nil && kind == driveCDROM {
				u.delta.Delete(slot)
			}
		}
	}
	return nil
}

func (u *configUpdate) network(state, plan *vmModel, live pveapi.GuestConfig) error {
	for _, slot := range slices.Sorted(maps.Keys(plan.Network)) {
		liveValue, present := live[slot]
		var liveNIC *parsedNIC
		if present {
			p, err := parseNIC(liveValue)
			if err != nil {
				return fmt.Errorf("network.%s: PVE reports %q: %w", slot, liveValue, err)
			}
			liveNIC = &p
		}
		value, err := plan.Network[slot].value(liveNIC)
		if err != nil {
			return fmt.Errorf("network.%s: %w", slot, err)
		}
		if !present || !sameNIC(value, liveValue) {
			u.delta.Set(slot, value)
		}
	}
	for _, slot := range slices.Sorted(maps.Keys(state.Network)) {
		if _, kept := plan.Network[slot]; kept {
			continue
		}
		if _, present := live[slot]; present {
			u.delta.Delete(slot)
		}
	}
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
		if diskSlotPattern.MatchString(key) || netSlotPattern.MatchString(key) {
			return true
		}
	}
	return false
}

// sameConfigValue compares a wanted config value with the live one the way
// PVE means them: memory in MiB (W43), tags as a normalised set (W19),
// property strings as key sets, booleans and numbers by value.
func sameConfigValue(key, want, have string) bool {
	switch key {
	case keyMemory:
		a, errA := wire.ParseMemoryMiB(want)
		b, errB := wire.ParseMemoryMiB(have)
		return errA == nil && errB == nil && a == b
	case keyTags:
		a, errA := wire.ParseTags(want)
		b, errB := wire.ParseTags(have)
		return errA == nil && errB == nil && slices.Equal(a, b)
	case keyCPU:
		return samePropertyString(want, have, cpuTypeKey)
	case keyAgent:
		return samePropertyString(want, have, agentOnKey)
	case keyBoot:
		return samePropertyString(want, have, bootLegacyKey)
	case keyDescription:
		return strings.TrimRight(want, " \t\r\n") == strings.TrimRight(have, " \t\r\n")
	case keyCPULimit:
		a, errA := strconv.ParseFloat(want, 64)
		b, errB := strconv.ParseFloat(have, 64)
		return errA == nil && errB == nil && a == b
	case keyOnBoot, keyProtection, keyNUMA:
		a, okA := pveapi.ParseBool(want)
		b, okB := pveapi.ParseBool(have)
		return okA && okB && a == b
	}
	return want == have
}

func samePropertyString(a, b, defaultKey string) bool {
	pa, errA := wire.ParsePropertyString(a, defaultKey)
	pb, errB := wire.ParsePropertyString(b, defaultKey)
	if errA != nil || errB != nil {
		return a == b
	}
	return maps.Equal(pa, pb)
}

// diskResize grows one disk (W22); size is absolute, in PVE's disk-size
// format.
type diskResize struct {
	slot string
	size string
}

// diskMove moves one disk to another storage, keeping its data (W23).
type diskMove struct {
	slot    string
	storage string
}

// diskFollowUps lists the tasks that finish the disks after the config
// request, read against the live config written by it: grow every disk
// smaller than planned (an imported image too, W25), move every disk whose
// storage differs. A disk larger than planned is an error: PVE cannot
// shrink (W22), and the plan guard should have refused it already.
func diskFollowUps(plan *vmModel, live pveapi.GuestConfig) ([]diskResize, []diskMove, error) {
	var resizes []diskResize
	var moves []diskMove
	for _, slot := range slices.Sorted(maps.Keys(plan.Disks)) {
		want := plan.Disks[slot]
		liveValue, present := live[slot]
		if !present {
			return nil, nil, fmt.Errorf("disks.%s: PVE did not keep the disk: the slot is empty after the update", slot)
		}
		drive, kind, err := classifyDrive(liveValue)
		if err != nil || kind != driveData {
			return nil, nil, fmt.Errorf("disks.%s: PVE reports %q, not a data disk", slot, liveValue)
		}
		if wantBytes, ok := want.Size.Bytes(); ok {
			haveBytes, known := driveSizeBytes(drive)
			switch {
			case !known || wantBytes > haveBytes:
				resizes = append(resizes, diskResize{slot: slot, size: wire.FormatSize(wantBytes)})
			case wantBytes < haveBytes:
				return nil, nil, fmt.Errorf("disks.%s: the disk is %s in PVE, larger than the planned %s; PVE cannot shrink a disk (W22)",
					slot, fwutil.FormatSizeAttribute(haveBytes), want.Size.ValueString())
			}
		}
		if known(want.Storage) && want.Storage.ValueString() != drive.Storage {
			moves = append(moves, diskMove{slot: slot, storage: want.Storage.ValueString()})
		}
	}
	return resizes, moves, nil
}

// unusedSlotsHolding finds the unusedN keys that hold the given volume ids
// after a detach (W24).
func unusedSlotsHolding(config pveapi.GuestConfig, volids map[string]string) []string {
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

// pendingKeys lists the keys whose change waits for a reboot.
func pendingKeys(entries []pveapi.PendingEntry) []string {
	var keys []string
	for _, e := range entries {
		if e.HasPending || e.DeletePending() {
			keys = append(keys, e.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// localDisks reports whether any data disk of config is on a storage that
// is not shared, which an online migration must copy (with-local-disks).
func localDisks(config pveapi.GuestConfig, shared map[string]bool) bool {
	for slot, value := range config {
		if !diskSlotPattern.MatchString(slot) && !wire.IsUnusedSlot(slot) && slot != "efidisk0" && slot != "tpmstate0" {
			continue
		}
		drive, err := wire.ParseDrive(value)
		if err != nil || drive.Storage == "" || wire.IsCDROM(drive) {
			continue
		}
		if !shared[drive.Storage] {
			return true
		}
	}
	return false
}

func strPtr(v types.String) *string {
	if !known(v) {
		return nil
	}
	s := v.ValueString()
	return &s
}

// describeKeys joins config keys for messages.
func describeKeys(keys []string) string {
	return strings.Join(keys, ", ")
}
