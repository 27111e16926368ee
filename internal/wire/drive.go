package wire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Drive is one parsed drive value: a qemu disk slot (scsiN, virtioN, sataN,
// ideN, efidisk0, tpmstate0, unusedN) or an LXC rootfs/mpN. Exactly one of
// these shapes holds:
//
//   - create form (W21): Storage set, Volume empty, SizeGiB the size token,
//     as in "local-lvm:32" or "local-lvm:0,import-from=..." (W25);
//   - cloud-init allocation (W27): Storage set, Volume "cloudinit", as in
//     "local-lvm:cloudinit". Writing it also allocates, so it counts as a
//     create form;
//   - live form: Storage and Volume set, as in "local-lvm:vm-100-disk-0";
//   - a file that is not a storage volume: File set to "none", "cdrom" or an
//     absolute path (a host device or an LXC bind mount).
type Drive struct {
	// Storage is the storage ID of a volume or of a create form.
	Storage string
	// Volume is the volume name inside Storage: "vm-100-disk-0",
	// "iso/debian-13-netinst.iso", "100/vm-100-disk-1.qcow2", or "cloudinit"
	// for the cloud-init allocation. Empty in the create form.
	Volume string
	// File is set only for files that are not storage volumes: "none",
	// "cdrom" or an absolute path.
	File string
	// SizeGiB is the size token of the create form, in GiB; PVE accepts
	// decimals ("0.5"). Zero together with import-from seeds the disk from an
	// image (W25).
	SizeGiB float64
	// Options holds every other key verbatim, including size=, media= and
	// import-from=.
	Options map[string]string
}

// Keys of the drive formats that name the file. qemu calls it "file" with the
// alias "volume"; LXC mount points call it "volume". Both accept "volume=".
const (
	driveFileKey   = "file"
	driveVolumeKey = "volume"
)

// cloudInitVolname is the volume name that asks PVE to allocate a cloud-init
// drive (W27).
const cloudInitVolname = "cloudinit"

var (
	// createSizePattern is the size part of PVE's NEW_DISK_RE.
	createSizePattern = lazyPattern(`^\d+(?:\.\d+)?$`)
	// cloudInitVolnamePattern follows qemu-server's drive_is_cloudinit, which
	// matches vm-ID-cloudinit and the bare allocation name; base-ID-cloudinit
	// is accepted too so a template's cloud-init volume is never mistaken
	// for a data disk.
	cloudInitVolnamePattern = lazyPattern(
		`(?:^|/)(?:(?:vm|base)-\d+-)?cloudinit(?:\.(?:raw|cow|qcow|qcow2|qed|vmdk|cloop))?$`)
)

// ErrImportFromSyntax is PVE's text when import-from is used with anything
// but a size-0 create form (W25).
var ErrImportFromSyntax = errors.New(
	"'import-from' requires special syntax - use <storage ID>:0,import-from=<source>")

// ParseDrive parses a drive value. The file is the part without "=" or the
// value of file= or volume=. "STORAGE:NUMBER" is the create form (NUMBER in
// GiB, integer or decimal); "STORAGE:cloudinit" is the cloud-init
// allocation; any other "STORAGE:VOLNAME" is the live form; "none", "cdrom"
// and absolute paths are kept in File. Every other key stays in Options.
func ParseDrive(s string) (Drive, error) {
	props, err := ParsePropertyString(s, driveFileKey)
	if err != nil {
		return Drive{}, err
	}
	if volume, ok := props[driveVolumeKey]; ok {
		if _, dup := props[driveFileKey]; dup {
			return Drive{}, errors.New(msgDuplicateKey + driveFileKey)
		}
		props[driveFileKey] = volume
		delete(props, driveVolumeKey)
	}
	file, ok := props[driveFileKey]
	if !ok {
		return Drive{}, errors.New("file: property is missing and it is not optional")
	}
	delete(props, driveFileKey)
	drive, err := parseDriveFile(file)
	if err != nil {
		return Drive{}, err
	}
	drive.Options = props
	return drive, nil
}

func parseDriveFile(file string) (Drive, error) {
	if file == "none" || file == "cdrom" || strings.HasPrefix(file, "/") {
		return Drive{File: file}, nil
	}
	storage, volname, ok := strings.Cut(file, ":")
	if !ok || !IsStorageID(storage) || volname == "" || strings.Contains(volname, "\n") {
		return Drive{}, fmt.Errorf("unable to parse volume ID '%s'", file)
	}
	if createSizePattern().MatchString(volname) {
		size, err := strconv.ParseFloat(volname, 64)
		if err != nil {
			return Drive{}, fmt.Errorf("size of %q is out of range", file)
		}
		return Drive{Storage: storage, SizeGiB: size}, nil
	}
	return Drive{Storage: storage, Volume: volname}, nil
}

// IsCreateForm reports whether writing this drive makes PVE allocate a new
// volume: the "STORAGE:SIZE" form and the "STORAGE:cloudinit" allocation
// (W21, W27).
func (d Drive) IsCreateForm() bool {
	return d.Storage != "" && (d.Volume == "" || d.Volume == cloudInitVolname)
}

// VolumeID is the "storage:volname" of an existing volume, or "" for a
// create form and for files that are not storage volumes.
func (d Drive) VolumeID() string {
	if d.Storage == "" || d.IsCreateForm() {
		return ""
	}
	return d.Storage + ":" + d.Volume
}

// IsCloudInit reports whether the drive is a cloud-init drive, allocated or
// to be allocated (W27). Such a slot belongs to PVE, not to the disk list.
func (d Drive) IsCloudInit() bool {
	return d.Storage != "" && IsCloudInitVolume(d.Volume)
}

// IsCloudInitVolume reports whether volname (the part after "storage:") names
// a cloud-init volume: "vm-ID-cloudinit" or "base-ID-cloudinit", optionally
// under a directory and with an image extension ("100/vm-100-cloudinit.qcow2"),
// or the allocation name "cloudinit" itself (W27).
func IsCloudInitVolume(volname string) bool {
	return cloudInitVolnamePattern().MatchString(volname)
}

// IsCDROM reports whether d is a CD-ROM drive: media=cdrom, or a "none" or
// "cdrom" file without a media option, which PVE turns into media=cdrom when
// it stores the drive.
func IsCDROM(d Drive) bool {
	media, hasMedia := d.Options["media"]
	if hasMedia {
		return media == "cdrom"
	}
	return d.File == "none" || d.File == "cdrom"
}

// FileValue is the drive's file as written on the wire: the volume ID, the
// create-form "STORAGE:SIZE", "STORAGE:cloudinit", or File.
func (d Drive) FileValue() string {
	switch {
	case d.File != "":
		return d.File
	case d.Storage == "":
		return ""
	case d.Volume != "":
		return d.Storage + ":" + d.Volume
	default:
		return d.Storage + ":" + strconv.FormatFloat(d.SizeGiB, 'f', -1, 64)
	}
}

// CheckImportFrom applies PVE's rule for import-from (W25): it is allowed only
// on a create form whose size token is 0.
func (d Drive) CheckImportFrom() error {
	if _, ok := d.Options["import-from"]; !ok {
		return nil
	}
	if d.Storage == "" || d.Volume != "" || d.File != "" || d.SizeGiB != 0 {
		return ErrImportFromSyntax
	}
	return nil
}

// CreateForm prints the drive as a create form ("local-lvm:32,discard=on"),
// file first, then options sorted. It refuses a drive that already has a
// volume: the create form is written only into an empty slot, because PVE
// allocates a new volume for it (W21).
func (d Drive) CreateForm() (string, error) {
	if d.File != "" || d.Storage == "" {
		return "", fmt.Errorf("drive %q is not on a storage and has no create form", d.FileValue())
	}
	if !d.IsCreateForm() {
		return "", fmt.Errorf("drive already has volume %s: the create form would allocate a new volume; "+
			"use the live form to change it", d.VolumeID())
	}
	if err := checkSizeGiB(d.SizeGiB); err != nil {
		return "", err
	}
	if err := d.CheckImportFrom(); err != nil {
		return "", err
	}
	return d.format()
}

// LiveForm prints the drive as it refers to an existing volume
// ("local-lvm:vm-100-disk-0,discard=on,size=32G"), file first, then options
// sorted. It refuses a create form, which would allocate instead (W21, W27).
// Files that are not storage volumes ("none", "cdrom", paths) have a live
// form too.
func (d Drive) LiveForm() (string, error) {
	if d.File == "" && d.Storage == "" {
		return "", errors.New("drive has no file")
	}
	if d.File == "" && d.IsCreateForm() {
		return "", fmt.Errorf("drive %q has no volume yet: its live form would allocate one", d.FileValue())
	}
	if err := d.CheckImportFrom(); err != nil {
		return "", err
	}
	return d.format()
}

func (d Drive) format() (string, error) {
	if d.File != "" && d.Storage != "" {
		return "", fmt.Errorf("drive sets both file %q and storage %q", d.File, d.Storage)
	}
	if d.Storage != "" && !IsStorageID(d.Storage) {
		return "", fmt.Errorf("invalid storage ID %q", d.Storage)
	}
	if _, ok := d.Options[driveFileKey]; ok {
		return "", fmt.Errorf("option %q duplicates the drive's file", driveFileKey)
	}
	if _, ok := d.Options[driveVolumeKey]; ok {
		return "", fmt.Errorf("option %q duplicates the drive's file", driveVolumeKey)
	}
	props := make(map[string]string, len(d.Options)+1)
	for k, v := range d.Options {
		props[k] = v
	}
	// "volume=" is the one explicit spelling both qemu drives and LXC mount
	// points accept, used when the file itself holds "=".
	props[driveVolumeKey] = d.FileValue()
	return EncodePropertyString(props, driveVolumeKey)
}

func checkSizeGiB(size float64) error {
	if size < 0 || math.IsNaN(size) || math.IsInf(size, 0) {
		return fmt.Errorf("invalid create-form size %v GiB", size)
	}
	return nil
}
