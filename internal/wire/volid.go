package wire

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Content types a volume name can imply. PVE calls them vtypes; they are the
// storage content types of the same names (a container's volume on a block
// storage is "images" too: pve-storage src/PVE/Storage.pm
// check_volume_access accepts images where rootdir is asked for).
const (
	ContentImages   = "images"
	ContentISO      = "iso"
	ContentVZTmpl   = "vztmpl"
	ContentBackup   = "backup"
	ContentSnippets = "snippets"
	ContentImport   = "import"
)

// VolumeID is a parsed PVE volume id, "STORAGE:NAME".
//
// Storage and Name come from PVE's volume-id grammar alone. The other fields
// are what the name's shape says under the storage types PVE ships (the
// parse_volname of each pve-storage plugin): which content it is, the guest
// that owns it, its format, and for a linked clone the base volume it was
// cloned from. They are zero when the name has none of those shapes: a
// storage type from elsewhere, or a name no built-in type would accept, is
// not an error, only unknown.
type VolumeID struct {
	// Storage is the storage id before the first ":".
	Storage string
	// Name is everything after the first ":" (PVE's volname):
	// "iso/debian-13.iso", "vm-100-disk-0", "100/vm-100-disk-0.qcow2".
	Name string
	// Content is the content type the name's shape implies (ContentImages,
	// ContentISO, ...), or "" when the shape is unknown.
	Content string
	// File is the volume's own name without its content directory, owner
	// directory or base volume: "debian-13.iso", "vm-100-disk-0.qcow2",
	// "vm/100/2025-01-31T10:00:00Z" for a backup on a Proxmox Backup Server.
	File string
	// VMID is the guest that owns the volume, or 0 when it has none (an
	// ISO, a template, a backup without a guest number).
	VMID int64
	// Format is the volume's format as PVE reports it: raw, qcow2, vmdk,
	// subvol, ova+qcow2 (a disk inside an OVA), pbs-vm, ... or "".
	Format string
	// IsBase is true for a template's base volume (base-ID-..., basevol-...).
	IsBase bool
	// BaseName and BaseVMID name the base volume of a linked clone
	// ("base-100-disk-0"), or are empty.
	BaseName string
	BaseVMID int64
}

// String is the volume id as PVE writes it: "STORAGE:NAME".
func (v VolumeID) String() string { return v.Storage + ":" + v.Name }

// Volume-name shapes of the storage types PVE ships, tried in order; the
// first one that matches decides. Each cites the pve-storage function it
// follows. Go's regexp has no look-ahead, so PVE's "tar(?!\.)" before the
// end anchor is written as "tar" before "$", which matches the same names.
var (
	// Directory layout (src/PVE/Storage/Plugin.pm parse_volname, used by
	// dir, nfs, cifs, cephfs and btrfs): a linked clone
	// BASEVMID/BASEFILE/VMID/FILE, then an image VMID/FILE.
	volDirLinkedClone = lazyPattern(`^(\d+)/(\S+)/(\d+)/(\S+)$`)
	volDirImage       = lazyPattern(`^(\d+)/(\S+)$`)
	// Image file names (src/PVE/Storage/Plugin.pm parse_name_dir): an
	// owner-named file, a snapshot file (which is not a volume), then any
	// other file with an image extension.
	volFileOwned    = lazyPattern(`^(?:vm-|base-|subvol-)\d+-[^/\s]+\.(raw|qcow2|vmdk|subvol)$`)
	volFileSnapshot = lazyPattern(`^snap-.*\.qcow2$`)
	volFileOther    = lazyPattern(`^[^/\s]+\.(raw|qcow2|vmdk|subvol)$`)
	// Content directories (src/PVE/Storage/Plugin.pm parse_volname with
	// src/PVE/Storage.pm ISO_EXT_RE_0, VZTMPL_EXT_RE_1, BACKUP_EXT_RE_2,
	// IMPORT_EXT_RE_1, OVA_CONTENT_RE_1, SAFE_CHAR_WITH_WHITESPACE_CLASS_RE
	// and Plugin.pm KNOWN_COMPRESSION_FORMATS).
	volISO         = lazyPattern(`^iso/([^/]+\.(?i:iso|img))$`)
	volVZTmpl      = lazyPattern(`^vztmpl/([^/]+\.(?i:tar|tar\.(?:gz|xz|zst|bz2)))$`)
	volBackupFile  = lazyPattern(`^backup/([^/]+\.(?:tgz|(?:tar|vma)(?:\.(?:gz|lzo|zst|bz2))?))$`)
	volBackupOwner = lazyPattern(`^vzdump-(?:openvz|lxc|qemu)-(\d+)-.+`)
	volSnippets    = lazyPattern(`^snippets/([^/]+)$`)
	volImportOVA   = lazyPattern(`^import/([ a-zA-Z0-9\-.+=_]+\.ova/[ a-zA-Z0-9\-.+=_]+\.(qcow2|raw|vmdk))$`)
	volImport      = lazyPattern(`^import/([ a-zA-Z0-9\-.+=_]+\.(ova|ovf|qcow2|raw|vmdk))$`)
	// A Proxmox Backup Server snapshot (src/PVE/Storage/PBSPlugin.pm
	// parse_volname): backup/TYPE/ID/TIME.
	volPBSBackup = lazyPattern(`^backup/([^\s_]+)/([^\s_]+)/([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)$`)
	// Block storages: an optional base volume and "/", then an owner-named
	// volume (src/PVE/Storage/ZFSPoolPlugin.pm parse_volname, whose names
	// cover those of RBDPlugin.pm, LvmThinPlugin.pm and LVMPlugin.pm
	// parse_volname). LVMPlugin.pm reports a name ending in ".qcow2" as
	// qcow2; ZFS reports subvol and basevol as subvol; all else is raw.
	volBlock = lazyPattern(`^(?:((?:base|basevol)-(\d+)-\S+)/)?((base|basevol|vm|subvol)-(\d+)-\S+)$`)
	// iSCSI LUNs (src/PVE/Storage/ISCSIPlugin.pm and ISCSIDirectPlugin.pm
	// parse_volname).
	volISCSI       = lazyPattern(`^\d+\.\d+\.\d+\.([^/\s]+)$`)
	volISCSIDirect = lazyPattern(`^lun(\d+)$`)
)

// ParseVolumeID parses a PVE volume id "STORAGE:NAME" (pve-storage
// src/PVE/Storage/Plugin.pm parse_volume_id: a storage id, a ":", and at
// least one character), then reads what the name's shape implies (see
// VolumeID). The text of a malformed id is PVE's: "unable to parse volume ID
// 'S'". A name with a line break is refused too: PVE's pattern does not read
// across one.
func ParseVolumeID(s string) (VolumeID, error) {
	storage, name, ok := strings.Cut(s, ":")
	if !ok || !IsStorageID(storage) || name == "" || strings.ContainsAny(name, "\r\n") {
		return VolumeID{}, fmt.Errorf("unable to parse volume ID '%s'", s)
	}
	v := VolumeID{Storage: storage, Name: name}
	classifyVolumeName(&v)
	return v, nil
}

func classifyVolumeName(v *VolumeID) {
	name := v.Name
	if m := volDirLinkedClone().FindStringSubmatch(name); m != nil {
		baseVMID, okBase := parseOwner(m[1])
		vmid, okOwner := parseOwner(m[3])
		_, _, baseOK := parseImageFile(m[2])
		format, isBase, fileOK := parseImageFile(m[4])
		if okBase && okOwner && baseOK && fileOK {
			*v = VolumeID{Storage: v.Storage, Name: name, Content: ContentImages, File: m[4], VMID: vmid,
				Format: format, IsBase: isBase, BaseName: m[2], BaseVMID: baseVMID}
		}
		// PVE's directory plugin stops at the first shape that matches the
		// layout, so a name that fails here has no other reading there.
		return
	}
	if m := volDirImage().FindStringSubmatch(name); m != nil {
		vmid, okOwner := parseOwner(m[1])
		format, isBase, fileOK := parseImageFile(m[2])
		if okOwner && fileOK {
			v.Content, v.File, v.VMID, v.Format, v.IsBase = ContentImages, m[2], vmid, format, isBase
		}
		return
	}
	if classifyContentDir(v) {
		return
	}
	if m := volBlock().FindStringSubmatch(name); m != nil {
		classifyBlock(v, m)
		return
	}
	if m := volISCSI().FindStringSubmatch(name); m != nil {
		v.Content, v.File, v.Format = ContentImages, m[1], "raw"
		return
	}
	if m := volISCSIDirect().FindStringSubmatch(name); m != nil {
		v.Content, v.File, v.Format = ContentImages, m[1], "raw"
	}
}

// classifyContentDir reads the content-directory shapes (iso/, vztmpl/,
// backup/, snippets/, import/) and reports whether one matched.
func classifyContentDir(v *VolumeID) bool {
	name := v.Name
	switch {
	case matchInto(volISO(), name, &v.File):
		v.Content, v.Format = ContentISO, "raw"
	case matchInto(volVZTmpl(), name, &v.File):
		v.Content, v.Format = ContentVZTmpl, "raw"
	case matchInto(volBackupFile(), name, &v.File):
		v.Content, v.Format = ContentBackup, "raw"
		if m := volBackupOwner().FindStringSubmatch(v.File); m != nil {
			v.VMID, _ = parseOwner(m[1])
		}
	case matchInto(volSnippets(), name, &v.File):
		v.Content, v.Format = ContentSnippets, "raw"
	default:
		if m := volPBSBackup().FindStringSubmatch(name); m != nil {
			v.Content, v.File, v.Format = ContentBackup, m[1]+"/"+m[2]+"/"+m[3], "pbs-"+m[1]
			if isDigits(m[2]) {
				v.VMID, _ = parseOwner(m[2])
			}
			return true
		}
		if m := volImportOVA().FindStringSubmatch(name); m != nil {
			v.Content, v.File, v.Format = ContentImport, m[1], "ova+"+m[2]
			return true
		}
		if m := volImport().FindStringSubmatch(name); m != nil {
			v.Content, v.File, v.Format = ContentImport, m[1], m[2]
			return true
		}
		return false
	}
	return true
}

// classifyBlock fills v from a match of volBlock.
func classifyBlock(v *VolumeID, m []string) {
	vmid, okOwner := parseOwner(m[5])
	if !okOwner {
		return
	}
	if m[1] != "" {
		baseVMID, okBase := parseOwner(m[2])
		if !okBase {
			return
		}
		v.BaseName, v.BaseVMID = m[1], baseVMID
	}
	v.Content, v.File, v.VMID = ContentImages, m[3], vmid
	v.IsBase = m[4] == "base" || m[4] == "basevol"
	switch {
	case m[4] == "subvol" || m[4] == "basevol":
		v.Format = "subvol"
	case strings.HasSuffix(m[3], ".qcow2"):
		v.Format = "qcow2"
	default:
		v.Format = "raw"
	}
}

// parseImageFile reads an image file name of the directory layout (pve-storage
// src/PVE/Storage/Plugin.pm parse_name_dir): its format and whether it is a
// template's base image. A qcow2 snapshot file ("snap-...") is not a volume.
func parseImageFile(name string) (format string, isBase, ok bool) {
	if m := volFileOwned().FindStringSubmatch(name); m != nil {
		return m[1], strings.HasPrefix(name, "base-"), true
	}
	if volFileSnapshot().MatchString(name) {
		return "", false, false
	}
	if m := volFileOther().FindStringSubmatch(name); m != nil {
		return m[1], strings.HasPrefix(name, "base-"), true
	}
	return "", false, false
}

// parseOwner reads a guest number from a name. A number past int64 is not
// a guest PVE could have, so the shape does not count.
func parseOwner(digits string) (int64, bool) {
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// matchInto stores the first group of re's match of s in into and reports
// whether re matched.
func matchInto(re *regexp.Regexp, s string, into *string) bool {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	*into = m[1]
	return true
}
