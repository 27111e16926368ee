package lxc

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// rootDiskModel is the container's root file system (rootfs).
type rootDiskModel struct {
	Storage types.String     `tfsdk:"storage"`
	Size    fwutil.SizeValue `tfsdk:"size"`
	Volume  types.String     `tfsdk:"volume"`
}

// mountPointModel is one mount point of `mount_points`, keyed by its slot
// (mpN): a volume on a storage (W37), or a bind mount of a host path (W36).
type mountPointModel struct {
	Storage   types.String     `tfsdk:"storage"`
	Size      fwutil.SizeValue `tfsdk:"size"`
	HostPath  types.String     `tfsdk:"host_path"`
	Path      types.String     `tfsdk:"path"`
	Backup    types.Bool       `tfsdk:"backup"`
	ReadOnly  types.Bool       `tfsdk:"read_only"`
	ACL       types.Bool       `tfsdk:"acl"`
	Quota     types.Bool       `tfsdk:"quota"`
	Replicate types.Bool       `tfsdk:"replicate"`
	Shared    types.Bool       `tfsdk:"shared"`
	Volume    types.String     `tfsdk:"volume"`
}

// Mount point option keys the attributes manage. Every other option of a
// live mount point (size, mountoptions, idmap, keepattrs, ...) belongs to
// PVE or to whoever set it, and is kept on rewrites.
const (
	optPath      = "mp"
	optSize      = "size"
	optBackup    = "backup"
	optReadOnly  = "ro"
	optACL       = "acl"
	optQuota     = "quota"
	optReplicate = "replicate"
	optShared    = "shared"
)

// isBind reports whether the mount point is a bind mount of a host path.
func (mp mountPointModel) isBind() bool { return guestops.Known(mp.HostPath) }

// volume is what the data-loss guard looks at.
func (mp mountPointModel) volume() guestops.Volume {
	return guestops.Volume{Storage: mp.Storage, Size: mp.Size, ID: mp.Volume}
}

func (d rootDiskModel) volume() guestops.Volume {
	return guestops.Volume{Storage: d.Storage, Size: d.Size, ID: d.Volume}
}

// mountKind tells what a live mount point value holds.
type mountKind int

const (
	mountVolume mountKind = iota + 1 // a volume on a storage
	mountBind                        // a host path (or device)
)

func (k mountKind) String() string {
	if k == mountBind {
		return "bind mount"
	}
	return "volume mount point"
}

// mountSlot is a live rootfs or mpN slot: the drive, and what it is.
type mountSlot struct {
	wire.Drive
	kind mountKind
}

// parseMountSlot parses a live rootfs or mpN value and tells what it is. A
// create form ("STORAGE:8") is refused: PVE never reports one, and treating
// it as a volume would rewrite a slot that allocates.
func parseMountSlot(value string) (mountSlot, error) {
	drive, err := wire.ParseDrive(value)
	if err != nil {
		return mountSlot{}, err
	}
	switch {
	case drive.File != "" && strings.HasPrefix(drive.File, "/"):
		return mountSlot{drive, mountBind}, nil
	case drive.Storage != "" && !drive.IsCreateForm():
		return mountSlot{drive, mountVolume}, nil
	}
	return mountSlot{}, fmt.Errorf("not a volume or a host path")
}

// mountPointSlots reconciles mount_points: a volume mount point in an empty
// slot is written in create form, which allocates it; a live one is
// rewritten in live form. A mount point the plan drops is deleted, and a
// volume one is detached (W24).
var mountPointSlots = guestops.SlotFamily[mountPointModel, mountSlot]{
	Attr:  "mount_points",
	Parse: parseMountSlot,
	Value: mountPointModel.value,
	Same:  sameMountValue,
	Remove: func(value string) (bool, string) {
		if live, err := parseMountSlot(value); err == nil && live.kind == mountVolume {
			return true, live.VolumeID()
		}
		return true, ""
	},
}

func rootDiskFromAPI(config pveapi.GuestConfig) (*rootDiskModel, error) {
	value, ok := config[keyRootFS]
	if !ok {
		return nil, nil
	}
	drive, err := parseMountSlot(value)
	if err != nil {
		return nil, fmt.Errorf("rootfs %q: %w", value, err)
	}
	if drive.kind != mountVolume {
		return nil, fmt.Errorf("rootfs %q: the root file system is a host path, which the provider does not manage", value)
	}
	size, err := sizeFromDrive(drive.Drive)
	if err != nil {
		return nil, fmt.Errorf("rootfs %q: %w", value, err)
	}
	return &rootDiskModel{Storage: types.StringValue(drive.Storage), Size: size, Volume: types.StringValue(drive.VolumeID())}, nil
}

func sizeFromDrive(drive wire.Drive) (fwutil.SizeValue, error) {
	raw, ok := drive.Options[optSize]
	if !ok {
		return fwutil.SizeNull(), nil
	}
	bytes, err := wire.ParseSize(raw)
	if err != nil {
		return fwutil.SizeNull(), err
	}
	return fwutil.SizeFromBytes(bytes), nil
}

// mountPointsFromAPI reads the mpN keys in their live form (W37): volume
// mounts with their volume id and size, bind mounts with their host path.
func mountPointsFromAPI(config pveapi.GuestConfig) (map[string]mountPointModel, error) {
	var mounts map[string]mountPointModel
	for slot, value := range config {
		if !wire.IsMountPointSlot(slot) {
			continue
		}
		drive, err := parseMountSlot(value)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", slot, value, err)
		}
		opts := drive.Options
		mp := mountPointModel{
			Storage:  types.StringNull(),
			Size:     fwutil.SizeNull(),
			HostPath: types.StringNull(),
			Volume:   types.StringNull(),
			Path:     guestops.PropString(opts, optPath),
		}
		if drive.kind == mountBind {
			mp.HostPath = types.StringValue(drive.File)
		} else {
			mp.Storage = types.StringValue(drive.Storage)
			mp.Volume = types.StringValue(drive.VolumeID())
			if mp.Size, err = sizeFromDrive(drive.Drive); err != nil {
				return nil, fmt.Errorf("%s %q: %w", slot, value, err)
			}
		}
		for _, b := range []struct {
			key    string
			target *types.Bool
		}{
			{optBackup, &mp.Backup}, {optReadOnly, &mp.ReadOnly}, {optACL, &mp.ACL},
			{optQuota, &mp.Quota}, {optReplicate, &mp.Replicate}, {optShared, &mp.Shared},
		} {
			if *b.target, err = guestops.PropBool(opts, b.key); err != nil {
				return nil, fmt.Errorf("%s %q: %w", slot, value, err)
			}
		}
		if mounts == nil {
			mounts = map[string]mountPointModel{}
		}
		mounts[slot] = mp
	}
	return mounts, nil
}

// applyOptions writes the options mp declares into opts and removes the
// ones it leaves out, so that removing an attribute returns it to PVE's
// default.
func (mp mountPointModel) applyOptions(opts map[string]string) {
	guestops.SetPropString(opts, optPath, mp.Path)
	guestops.SetPropBool(opts, optBackup, mp.Backup)
	guestops.SetPropBool(opts, optReadOnly, mp.ReadOnly)
	guestops.SetPropBool(opts, optACL, mp.ACL)
	guestops.SetPropBool(opts, optQuota, mp.Quota)
	guestops.SetPropBool(opts, optReplicate, mp.Replicate)
	guestops.SetPropBool(opts, optShared, mp.Shared)
}

// value is the mount point's config value: for an empty slot its create
// form, for a live one its live form over the volume or host path the slot
// holds, which must be the same kind of mount point, and for a bind mount
// the same host path.
func (mp mountPointModel) value(live *guestops.LiveSlot[mountSlot]) (string, error) {
	if live == nil {
		return mp.createForm()
	}
	wantKind := mountVolume
	if mp.isBind() {
		wantKind = mountBind
	}
	drive := live.Parsed
	if drive.kind != wantKind {
		return "", fmt.Errorf("the slot holds a %s in PVE (%s); declare the %s in a free slot", drive.kind, live.Value, wantKind)
	}
	if drive.kind == mountBind && drive.File != mp.HostPath.ValueString() {
		return "", fmt.Errorf("the bind mount shows host path %s in PVE; a live bind mount is never re-pointed", drive.File)
	}
	return mp.liveForm(drive.Drive)
}

// createForm is the value for an empty slot: a volume mount in create form,
// "STORAGE:SIZE_GIB,mp=PATH,..." (W21, W37), which allocates a new volume,
// or a bind mount "/HOST/PATH,mp=PATH,..." (W36).
func (mp mountPointModel) createForm() (string, error) {
	drive := wire.Drive{Options: map[string]string{}}
	if mp.isBind() {
		drive.File = mp.HostPath.ValueString()
		mp.applyOptions(drive.Options)
		return drive.LiveForm()
	}
	drive.Storage = mp.Storage.ValueString()
	bytes, ok := mp.Size.Bytes()
	if !ok {
		return "", fmt.Errorf("a new volume mount point needs a size")
	}
	drive.SizeGiB = float64(bytes) / float64(wire.GiB)
	mp.applyOptions(drive.Options)
	return drive.CreateForm()
}

// liveForm rewrites an existing mount point with mp's options and path:
// same volume or host path, the options PVE or others set kept (W21, W37).
// It never allocates.
func (mp mountPointModel) liveForm(live wire.Drive) (string, error) {
	drive := live
	drive.Options = maps.Clone(live.Options)
	if drive.Options == nil {
		drive.Options = map[string]string{}
	}
	mp.applyOptions(drive.Options)
	return drive.LiveForm()
}

// createForm is the root disk's value at create: "STORAGE:SIZE_GIB".
func (d rootDiskModel) createForm() (string, error) {
	bytes, ok := d.Size.Bytes()
	if !ok {
		return "", fmt.Errorf("the root disk needs a size")
	}
	drive := wire.Drive{Storage: d.Storage.ValueString(), SizeGiB: float64(bytes) / float64(wire.GiB)}
	return drive.CreateForm()
}

// sameMountValue reports whether two mount point values say the same: same
// volume or path, same options.
func sameMountValue(a, b string) bool {
	da, errA := wire.ParseDrive(a)
	db, errB := wire.ParseDrive(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return da.FileValue() == db.FileValue() && maps.EqualFunc(da.Options, db.Options, sameOption)
}

// sameOption compares option values; booleans PVE may spell 1 or on.
func sameOption(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := wire.ParsePropertyBool(a)
	y, errB := wire.ParsePropertyBool(b)
	return errA == nil && errB == nil && x == y
}
