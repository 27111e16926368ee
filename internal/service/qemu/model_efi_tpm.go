package qemu

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// efiDiskModel maps to efidisk0: the UEFI variable store. Secure Boot is
// the pre-enrolled-keys token (W41).
type efiDiskModel struct {
	Storage         types.String `tfsdk:"storage"`
	Type            types.String `tfsdk:"type"`
	PreEnrolledKeys types.Bool   `tfsdk:"pre_enrolled_keys"`
	Volume          types.String `tfsdk:"volume"`
}

// tpmStateModel maps to tpmstate0.
type tpmStateModel struct {
	Storage types.String `tfsdk:"storage"`
	Version types.String `tfsdk:"version"`
	Volume  types.String `tfsdk:"volume"`
}

const (
	keyEFIDisk  = "efidisk0"
	keyTPMState = "tpmstate0"

	optEFIType     = "efitype"
	optPreEnrolled = "pre-enrolled-keys"
	// optMSCert is PVE's record of which Microsoft certificates it enrolled
	// (W41): never written, never compared, kept verbatim.
	optMSCert     = "ms-cert"
	optTPMVersion = "version"

	// PVE reads an efidisk0 without efitype as the small 2m store; the
	// provider asks for 4m when the configuration does not say.
	efiTypeImplicit = "2m"
	efiTypeDefault  = "4m"
	// PVE reads a tpmstate0 without version as v1.2.
	tpmVersionImplicit = "v1.2"
)

// efiDiskFromAPI reads efidisk0; nil when the slot is empty.
func efiDiskFromAPI(config pveapi.GuestConfig) (*efiDiskModel, error) {
	drive, ok, err := firmwareDrive(config, keyEFIDisk)
	if !ok || err != nil {
		return nil, err
	}
	efi := &efiDiskModel{
		Storage: types.StringValue(drive.Storage),
		Type:    types.StringValue(efiTypeImplicit),
		Volume:  types.StringValue(drive.VolumeID()),
	}
	if t, ok := drive.Options[optEFIType]; ok {
		efi.Type = types.StringValue(t)
	}
	enrolled, err := guestops.PropBool(drive.Options, optPreEnrolled)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", keyEFIDisk, config[keyEFIDisk], err)
	}
	efi.PreEnrolledKeys = types.BoolValue(enrolled.ValueBool())
	return efi, nil
}

// tpmStateFromAPI reads tpmstate0; nil when the slot is empty.
func tpmStateFromAPI(config pveapi.GuestConfig) (*tpmStateModel, error) {
	drive, ok, err := firmwareDrive(config, keyTPMState)
	if !ok || err != nil {
		return nil, err
	}
	tpm := &tpmStateModel{
		Storage: types.StringValue(drive.Storage),
		Version: types.StringValue(tpmVersionImplicit),
		Volume:  types.StringValue(drive.VolumeID()),
	}
	if v, ok := drive.Options[optTPMVersion]; ok {
		tpm.Version = types.StringValue(v)
	}
	return tpm, nil
}

func firmwareDrive(config pveapi.GuestConfig, slot string) (wire.Drive, bool, error) {
	raw, ok := config[slot]
	if !ok {
		return wire.Drive{}, false, nil
	}
	drive, err := wire.ParseDrive(raw)
	if err != nil {
		return wire.Drive{}, false, fmt.Errorf("%s %q: %w", slot, raw, err)
	}
	if drive.Storage == "" || drive.IsCreateForm() {
		return wire.Drive{}, false, fmt.Errorf("%s %q: not a volume on a storage", slot, raw)
	}
	return drive, true, nil
}

// efiType is the efitype to ask for: the declared one, else 4m.
func (e *efiDiskModel) efiType() string {
	if guestops.Known(e.Type) {
		return e.Type.ValueString()
	}
	return efiTypeDefault
}

// createForm allocates the EFI vars store in the empty slot (W21):
// "STORAGE:1,efitype=4m,pre-enrolled-keys=1". PVE sizes the volume itself.
func (e *efiDiskModel) createForm() (string, error) {
	drive := wire.Drive{Storage: e.Storage.ValueString(), SizeGiB: 1, Options: map[string]string{optEFIType: e.efiType()}}
	drive.Options[optPreEnrolled] = wire.Bool(e.PreEnrolledKeys.ValueBool())
	return drive.CreateForm()
}

// liveForm rewrites the existing store with the wanted pre-enrolled-keys:
// same volume, every other option (size, ms-cert, ...) kept (W41).
func (e *efiDiskModel) liveForm(live wire.Drive) (string, error) {
	drive := live
	drive.Options = maps.Clone(live.Options)
	if drive.Options == nil {
		drive.Options = map[string]string{}
	}
	_, stated := drive.Options[optPreEnrolled]
	if stated || e.PreEnrolledKeys.ValueBool() {
		// Absent reads as 0: a store without the token stays without it.
		drive.Options[optPreEnrolled] = wire.Bool(e.PreEnrolledKeys.ValueBool())
	}
	return drive.LiveForm()
}

// createForm allocates the TPM state in the empty slot:
// "STORAGE:1,version=v2.0".
func (t *tpmStateModel) createForm() (string, error) {
	drive := wire.Drive{Storage: t.Storage.ValueString(), SizeGiB: 1, Options: map[string]string{}}
	guestops.SetPropString(drive.Options, optTPMVersion, t.Version)
	return drive.CreateForm()
}

// addFirmwareToCreate puts efidisk0 and tpmstate0 into the create form.
func (m *vmModel) addFirmwareToCreate(form map[string][]string) error {
	if m.EFIDisk != nil {
		value, err := m.EFIDisk.createForm()
		if err != nil {
			return fmt.Errorf("efi_disk: %w", err)
		}
		form[keyEFIDisk] = []string{value}
	}
	if m.TPMState != nil {
		value, err := m.TPMState.createForm()
		if err != nil {
			return fmt.Errorf("tpm_state: %w", err)
		}
		form[keyTPMState] = []string{value}
	}
	return nil
}

// hardware adds efidisk0, tpmstate0, hostpciN, usbN and virtiofsN to the
// update request.
func (u *configUpdate) hardware(state, plan *vmModel, live pveapi.GuestConfig) error {
	if err := u.efiDisk(state, plan, live); err != nil {
		return err
	}
	if err := u.tpmState(state, plan, live); err != nil {
		return err
	}
	if err := u.pciDevices(state, plan, live); err != nil {
		return err
	}
	return u.guestDevices(state, plan, live)
}

func (u *configUpdate) efiDisk(state, plan *vmModel, live pveapi.GuestConfig) error {
	liveValue, present := live[keyEFIDisk]
	if plan.EFIDisk == nil {
		if state.EFIDisk != nil && present {
			u.detach(keyEFIDisk, liveValue)
		}
		return nil
	}
	if !present {
		value, err := plan.EFIDisk.createForm()
		if err != nil {
			return fmt.Errorf("efi_disk: %w", err)
		}
		u.delta.Set(keyEFIDisk, value)
		u.allocates = true
		return nil
	}
	drive, err := wire.ParseDrive(liveValue)
	if err != nil {
		return fmt.Errorf("efi_disk: PVE reports %q: %w", liveValue, err)
	}
	value, err := plan.EFIDisk.liveForm(drive)
	if err != nil {
		return fmt.Errorf("efi_disk: %w", err)
	}
	if !sameFirmwareDrive(value, liveValue) {
		u.delta.Set(keyEFIDisk, value)
	}
	return nil
}

func (u *configUpdate) tpmState(state, plan *vmModel, live pveapi.GuestConfig) error {
	liveValue, present := live[keyTPMState]
	if plan.TPMState == nil {
		if state.TPMState != nil && present {
			u.detach(keyTPMState, liveValue)
		}
		return nil
	}
	if present {
		// The version cannot change on a live state (the plan refuses it);
		// a storage change is a move after the config request.
		return nil
	}
	value, err := plan.TPMState.createForm()
	if err != nil {
		return fmt.Errorf("tpm_state: %w", err)
	}
	u.delta.Set(keyTPMState, value)
	u.allocates = true
	return nil
}

// detach deletes a firmware volume from the config: PVE keeps it as
// unusedN with its data (W24), like a removed disk.
func (u *configUpdate) detach(slot, liveValue string) {
	u.delta.Delete(slot)
	if drive, err := wire.ParseDrive(liveValue); err == nil && drive.VolumeID() != "" {
		u.detached[slot] = drive.VolumeID()
	}
}

// sameFirmwareDrive compares two efidisk0 values without ms-cert, which is
// PVE's to set (W41).
func sameFirmwareDrive(a, b string) bool {
	da, errA := wire.ParseDrive(a)
	db, errB := wire.ParseDrive(b)
	if errA != nil || errB != nil {
		return a == b
	}
	delete(da.Options, optMSCert)
	delete(db.Options, optMSCert)
	return da.FileValue() == db.FileValue() && maps.Equal(da.Options, db.Options)
}

// firmwareMoves lists the storage moves of efidisk0 and tpmstate0 (W23):
// move_disk keeps the EFI variables and the TPM's secrets.
func firmwareMoves(plan *vmModel, live pveapi.GuestConfig) []guestops.Move {
	var moves []guestops.Move
	for _, v := range []struct {
		slot    string
		storage types.String
	}{
		{keyEFIDisk, efiStorage(plan.EFIDisk)},
		{keyTPMState, tpmStorage(plan.TPMState)},
	} {
		if !guestops.Known(v.storage) {
			continue
		}
		drive, present, err := firmwareDrive(live, v.slot)
		if err == nil && present && drive.Storage != v.storage.ValueString() {
			moves = append(moves, guestops.Move{Slot: v.slot, Storage: v.storage.ValueString()})
		}
	}
	return moves
}

func efiStorage(e *efiDiskModel) types.String {
	if e == nil {
		return types.StringNull()
	}
	return e.Storage
}

func tpmStorage(t *tpmStateModel) types.String {
	if t == nil {
		return types.StringNull()
	}
	return t.Storage
}

// firmwarePath names the attribute of a firmware slot in diagnostics.
func firmwarePath(slot, attr string) path.Path {
	root := "efi_disk"
	if slot == keyTPMState {
		root = "tpm_state"
	}
	p := path.Root(root)
	if attr != "" {
		p = p.AtName(attr)
	}
	return p
}

// checkFirmwarePlan refuses what would lose the EFI variables or the TPM's
// secrets and warns about a firmware volume that will be detached.
func checkFirmwarePlan(state, plan *vmModel) []guestops.Issue {
	var issues []guestops.Issue
	if had, want := state.EFIDisk, plan.EFIDisk; had != nil && want != nil &&
		guestops.Known(had.Type) && guestops.Known(want.Type) && had.Type.ValueString() != want.Type.ValueString() {
		issues = append(issues, guestops.Issue{
			Path:    firmwarePath(keyEFIDisk, "type"),
			Summary: "EFI Disk Type Cannot Change",
			Detail: fmt.Sprintf("The EFI disk %s is a %s store; a %s store needs a new volume, and the EFI variables (boot entries, enrolled keys) "+
				"in the current one would be lost. Keep type = %q, or remove efi_disk in one apply (the volume is detached and kept) and declare the new one in the next.",
				had.Volume.ValueString(), had.Type.ValueString(), want.Type.ValueString(), had.Type.ValueString()),
		})
	}
	if had, want := state.TPMState, plan.TPMState; had != nil && want != nil &&
		guestops.Known(had.Version) && guestops.Known(want.Version) && had.Version.ValueString() != want.Version.ValueString() {
		issues = append(issues, guestops.Issue{
			Path:    firmwarePath(keyTPMState, "version"),
			Summary: "TPM Version Cannot Change",
			Detail: fmt.Sprintf("The TPM state %s is a %s TPM. PVE cannot change the version of a live TPM state: it would need a new TPM volume, "+
				"and the TPM's secrets (BitLocker keys, measured-boot sealed data, keys of the guest's OS) would be lost. Keep version = %q. "+
				"To replace the TPM on purpose, remove tpm_state in one apply (the volume is detached and kept) and declare the new one in the next.",
				had.Volume.ValueString(), had.Version.ValueString(), had.Version.ValueString()),
		})
	}
	if state.EFIDisk != nil && plan.EFIDisk == nil {
		issues = append(issues, guestops.DetachIssue(firmwarePath(keyEFIDisk, ""), efiNoun, keyEFIDisk,
			guestops.Volume{Storage: state.EFIDisk.Storage, ID: state.EFIDisk.Volume}, plan.PurgeRemovedDisks))
	}
	if state.TPMState != nil && plan.TPMState == nil {
		issues = append(issues, guestops.DetachIssue(firmwarePath(keyTPMState, ""), tpmNoun, keyTPMState,
			guestops.Volume{Storage: state.TPMState.Storage, ID: state.TPMState.Volume}, plan.PurgeRemovedDisks))
	}
	return issues
}

var (
	efiNoun = guestops.VolumeNoun{Title: "EFI Disk", Noun: "EFI disk"}
	tpmNoun = guestops.VolumeNoun{Title: "TPM State", Noun: "TPM state"}
)
