package qemu

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// diskModel is one data disk of `disks`, keyed by its slot.
type diskModel struct {
	Storage    types.String     `tfsdk:"storage"`
	Size       fwutil.SizeValue `tfsdk:"size"`
	Volume     types.String     `tfsdk:"volume"`
	Discard    types.Bool       `tfsdk:"discard"`
	SSD        types.Bool       `tfsdk:"ssd"`
	IOThread   types.Bool       `tfsdk:"iothread"`
	Backup     types.Bool       `tfsdk:"backup"`
	Replicate  types.Bool       `tfsdk:"replicate"`
	Cache      types.String     `tfsdk:"cache"`
	AIO        types.String     `tfsdk:"aio"`
	ImportFrom types.String     `tfsdk:"import_from"`
}

// volume is what the data-loss guard looks at.
func (d diskModel) volume() guestops.Volume {
	return guestops.Volume{Storage: d.Storage, Size: d.Size, ID: d.Volume}
}

// cdromModel is one CD-ROM drive of `cdroms`, keyed by its slot.
type cdromModel struct {
	File types.String `tfsdk:"file"`
}

// Drive option keys the disk attributes manage. Every other option of a
// live drive (size, format, iops limits, serial, ...) belongs to PVE or to
// whoever set it, and is kept on rewrites.
const (
	optDiscard    = "discard"
	optSSD        = "ssd"
	optIOThread   = "iothread"
	optBackup     = "backup"
	optReplicate  = "replicate"
	optCache      = "cache"
	optAIO        = "aio"
	optSize       = "size"
	optMedia      = "media"
	optImportFrom = "import-from"
)

// driveKind tells what a drive slot of the live config holds.
type driveKind int

const (
	driveData      driveKind = iota + 1 // a volume on a storage: a data disk
	driveCDROM                          // media=cdrom, not cloud-init
	driveCloudInit                      // PVE's cloud-init drive (W27), on any bus
	driveOther                          // a host device or path: not managed here
)

func (k driveKind) String() string {
	switch k {
	case driveData:
		return "data disk"
	case driveCDROM:
		return "CD-ROM drive"
	case driveCloudInit:
		return "cloud-init drive"
	}
	return "pass-through device"
}

// driveSlot is a live drive slot: the drive, and what it is.
type driveSlot struct {
	wire.Drive
	kind driveKind
}

// parseDriveSlot parses a live drive value and tells what it is. A
// cloud-init drive is checked first: PVE marks it media=cdrom too, and it
// belongs to PVE, never to disks or cdroms (W27).
func parseDriveSlot(value string) (driveSlot, error) {
	drive, err := wire.ParseDrive(value)
	if err != nil {
		return driveSlot{}, err
	}
	switch {
	case drive.IsCloudInit():
		return driveSlot{drive, driveCloudInit}, nil
	case wire.IsCDROM(drive):
		return driveSlot{drive, driveCDROM}, nil
	case drive.Storage == "" || drive.IsCreateForm():
		return driveSlot{drive, driveOther}, nil
	}
	return driveSlot{drive, driveData}, nil
}

// diskSlots reconciles disks: a disk in an empty slot is written in create
// form, which allocates it; a live one is rewritten in live form. A slot
// that holds anything but a data disk is refused. A disk the plan drops is
// detached (W24).
var diskSlots = guestops.SlotFamily[diskModel, driveSlot]{
	Attr:  "disks",
	Parse: parseDriveSlot,
	Value: diskModel.value,
	Same:  sameDriveValue,
	Remove: func(value string) (bool, string) {
		if live, err := parseDriveSlot(value); err == nil && live.kind == driveData {
			return true, live.VolumeID()
		}
		return false, ""
	},
}

// cdromSlots reconciles cdroms. A slot that holds anything but a CD-ROM
// drive is refused; a dropped slot is deleted only while it holds one.
var cdromSlots = guestops.SlotFamily[cdromModel, driveSlot]{
	Attr:  "cdroms",
	Parse: parseDriveSlot,
	Value: cdromModel.value,
	Same:  sameDriveValue,
	Remove: func(value string) (bool, string) {
		live, err := parseDriveSlot(value)
		return err == nil && live.kind == driveCDROM, ""
	},
}

// disksFromAPI reads the data disks of a config. CD-ROMs, cloud-init drives
// (W27), unusedN (W24), efidisk0/tpmstate0 and pass-through devices are not
// disks. import_from is not reported by PVE (W25): it is kept from prior.
func disksFromAPI(config pveapi.GuestConfig, prior map[string]diskModel) (map[string]diskModel, error) {
	var disks map[string]diskModel
	for slot, value := range config {
		if !wire.IsDataDiskSlot(slot) {
			continue
		}
		drive, err := parseDriveSlot(value)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		if drive.kind != driveData {
			continue
		}
		disk, err := diskFromDrive(drive.Drive)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		disk.ImportFrom = types.StringNull()
		if old, ok := prior[slot]; ok {
			disk.ImportFrom = old.ImportFrom
		}
		if disks == nil {
			disks = map[string]diskModel{}
		}
		disks[slot] = disk
	}
	return disks, nil
}

func diskFromDrive(drive wire.Drive) (diskModel, error) {
	opts := drive.Options
	disk := diskModel{
		Storage: types.StringValue(drive.Storage),
		Volume:  types.StringValue(drive.VolumeID()),
		Size:    fwutil.SizeNull(),
		Cache:   guestops.PropString(opts, optCache),
		AIO:     guestops.PropString(opts, optAIO),
		Discard: types.BoolNull(),
	}
	if raw, ok := opts[optSize]; ok {
		bytes, err := wire.ParseSize(raw)
		if err != nil {
			return diskModel{}, err
		}
		disk.Size = fwutil.SizeFromBytes(bytes)
	}
	if v, ok := opts[optDiscard]; ok {
		disk.Discard = types.BoolValue(v == "on")
	}
	var err error
	for _, b := range []struct {
		key    string
		target *types.Bool
	}{{optSSD, &disk.SSD}, {optIOThread, &disk.IOThread}, {optBackup, &disk.Backup}, {optReplicate, &disk.Replicate}} {
		if *b.target, err = guestops.PropBool(opts, b.key); err != nil {
			return diskModel{}, err
		}
	}
	return disk, nil
}

// applyOptions writes the options d declares into opts and removes the ones
// it leaves out, so that removing an attribute returns it to PVE's default.
func (d diskModel) applyOptions(opts map[string]string) {
	if guestops.Known(d.Discard) {
		opts[optDiscard] = "ignore"
		if d.Discard.ValueBool() {
			opts[optDiscard] = "on"
		}
	} else {
		delete(opts, optDiscard)
	}
	guestops.SetPropBool(opts, optSSD, d.SSD)
	guestops.SetPropBool(opts, optIOThread, d.IOThread)
	guestops.SetPropBool(opts, optBackup, d.Backup)
	guestops.SetPropBool(opts, optReplicate, d.Replicate)
	guestops.SetPropString(opts, optCache, d.Cache)
	guestops.SetPropString(opts, optAIO, d.AIO)
}

// value is the disk's config value: in create form for an empty slot, in
// live form over the data disk the slot holds.
func (d diskModel) value(live *guestops.LiveSlot[driveSlot]) (string, error) {
	if live == nil {
		return d.createForm()
	}
	if kind := live.Parsed.kind; kind != driveData {
		return "", fmt.Errorf("the slot holds a %s in PVE (%s); declare the disk in a free slot", kind, live.Value)
	}
	return d.liveForm(live.Parsed.Drive)
}

// createForm is the value that allocates this disk in an empty slot (W21):
// "STORAGE:SIZE_GIB,opts", or "STORAGE:0,import-from=SOURCE,opts" for a disk
// seeded from an image (W25), which is grown to size afterwards.
func (d diskModel) createForm() (string, error) {
	drive := wire.Drive{Storage: d.Storage.ValueString(), Options: map[string]string{}}
	if guestops.Known(d.ImportFrom) {
		drive.Options[optImportFrom] = d.ImportFrom.ValueString()
	} else {
		bytes, ok := d.Size.Bytes()
		if !ok {
			return "", fmt.Errorf("a new disk needs a size or import_from")
		}
		drive.SizeGiB = float64(bytes) / float64(wire.GiB)
	}
	d.applyOptions(drive.Options)
	return drive.CreateForm()
}

// liveForm rewrites an existing disk with d's options: same volume, the
// options PVE or others set kept (W21). It never allocates.
func (d diskModel) liveForm(live wire.Drive) (string, error) {
	drive := live
	drive.Options = maps.Clone(live.Options)
	if drive.Options == nil {
		drive.Options = map[string]string{}
	}
	delete(drive.Options, optImportFrom)
	d.applyOptions(drive.Options)
	return drive.LiveForm()
}

// cdromsFromAPI reads the CD-ROM drives of a config; the cloud-init drive
// is PVE's and is left out (W27).
func cdromsFromAPI(config pveapi.GuestConfig) (map[string]cdromModel, error) {
	var cdroms map[string]cdromModel
	for slot, value := range config {
		if !wire.IsCDROMSlot(slot) {
			continue
		}
		drive, err := parseDriveSlot(value)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		if drive.kind != driveCDROM {
			continue
		}
		if cdroms == nil {
			cdroms = map[string]cdromModel{}
		}
		cdroms[slot] = cdromModel{File: types.StringValue(drive.FileValue())}
	}
	return cdroms, nil
}

// value is the drive value "FILE,media=cdrom", keeping other options of the
// live drive when there is one. A slot that holds anything but a CD-ROM
// drive is refused.
func (c cdromModel) value(live *guestops.LiveSlot[driveSlot]) (string, error) {
	if live != nil && live.Parsed.kind != driveCDROM {
		return "", fmt.Errorf("the slot holds a %s in PVE (%s); declare the CD-ROM in a free slot", live.Parsed.kind, live.Value)
	}
	drive, err := wire.ParseDrive(c.File.ValueString())
	if err != nil {
		return "", err
	}
	drive.Options = map[string]string{}
	if live != nil {
		drive.Options = maps.Clone(live.Parsed.Options)
	}
	drive.Options[optMedia] = "cdrom"
	return drive.LiveForm()
}

// sameDriveValue reports whether two drive values say the same: same file
// and same options.
func sameDriveValue(a, b string) bool {
	da, errA := wire.ParseDrive(a)
	db, errB := wire.ParseDrive(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return da.FileValue() == db.FileValue() && maps.Equal(da.Options, db.Options)
}
