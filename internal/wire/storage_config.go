package wire

import (
	"sort"
	"strings"
)

// Storage definitions (/storage, the datacenter's storage.cfg): one table of
// the 14 storage types with exactly the options each type takes.
//
// Sources: pve-storage src/PVE/Storage/*Plugin.pm options() (which keys a
// type takes; "fixed" keys cannot change after creation, keys without
// "optional" are required), plugindata() (content types, sensitive
// properties), src/PVE/Storage/Plugin.pm sensitive_properties (fallback
// list), src/PVE/API2/Storage/Config.pm create/update (sensitive values are
// kept out of storage.cfg and never returned by GET), and the API schemas of
// POST /storage for PVE 9.x and 8.4 (which keys each release has).

// StorageOptionKind is how an option is typed on the wire.
type StorageOptionKind int

const (
	// StorageString is a plain string.
	StorageString StorageOptionKind = iota
	// StorageBool is a boolean (1/0 on the wire).
	StorageBool
	// StorageInt is an integer.
	StorageInt
	// StorageList is a comma-separated list (content, nodes).
	StorageList
	// StoragePropertyString is a property string sent as written
	// (bwlimit, content-dirs).
	StoragePropertyString
	// StoragePrune is prune-backups (see prune.go).
	StoragePrune
)

// StorageOption is one storage.cfg key as PVE's schema defines it.
type StorageOption struct {
	// Key is PVE's key.
	Key string
	// Kind is its wire type.
	Kind StorageOptionKind
	// Sensitive options are write-only: PVE keeps them out of storage.cfg
	// and GET never returns them.
	Sensitive bool
	// Enum lists the accepted values of an enumerated string or integer.
	Enum []string
	// Min and Max bound an integer (HasMin/HasMax tell whether they apply).
	Min, Max       int64
	HasMin, HasMax bool
	// Since9 options exist only from PVE 9.0 on (not in 8.4's schema).
	Since9 bool
	// FilledByPVE options are written into storage.cfg by PVE at creation
	// when not given (a plugin's on_add_hook).
	FilledByPVE bool
	// Description says what the option does (user-facing).
	Description string
}

// StorageTypeOption is an option as one type takes it.
type StorageTypeOption struct {
	StorageOption
	// Fixed options are set at creation only (PUT refuses them).
	Fixed bool
	// Required options must be given at creation.
	Required bool
}

// StorageType is one storage type: its name and its options in PVE's
// order.
type StorageType struct {
	// Name is PVE's type (dir, nfs, ...).
	Name string
	// Title names the type for people ("NFS", "ZFS over iSCSI").
	Title string
	// Content are the content types the type accepts.
	Content []string
	// DefaultContent is what PVE reports for a storage of the type without
	// content (plugindata content->[1], applied by Plugin.pm parse_config).
	DefaultContent []string
	// Formats are the image formats the type offers (plugindata format),
	// nil when the table does not restrict format.
	Formats []string
	// Options are the keys the type takes (not type and storage).
	Options []StorageTypeOption
}

// Option returns the type's option key.
func (t StorageType) Option(key string) (StorageTypeOption, bool) {
	for _, o := range t.Options {
		if o.Key == key {
			return o, true
		}
	}
	return StorageTypeOption{}, false
}

// SensitiveKeys are the type's sensitive options, sorted.
func (t StorageType) SensitiveKeys() []string {
	var out []string
	for _, o := range t.Options {
		if o.Sensitive {
			out = append(out, o.Key)
		}
	}
	sort.Strings(out)
	return out
}

// StorageTypeByName returns the table entry of type name.
func StorageTypeByName(name string) (StorageType, bool) {
	for _, t := range StorageTypes {
		if t.Name == name {
			return t, true
		}
	}
	return StorageType{}, false
}

// StorageAttributeName is the Terraform attribute name of a key: '-' turned
// to '_' (prune-backups is the nested retention).
func StorageAttributeName(key string) string {
	if key == StorageKeyPrune {
		return "retention"
	}
	return strings.ReplaceAll(key, "-", "_")
}

// Keys with special handling.
const (
	StorageKeyContent = "content"
	StorageKeyNodes   = "nodes"
	StorageKeyPrune   = "prune-backups"
)

// The options, each defined once (pve-storage src/PVE/Storage/Plugin.pm and
// the plugins' properties()).
var (
	soPath        = StorageOption{Key: "path", Description: "The file system path of the storage."}
	soContentDirs = StorageOption{Key: "content-dirs", Kind: StoragePropertyString,
		Description: "Overrides of the default directories per content type, as `TYPE=DIR` items separated by commas (for example `iso=isos,backup=dump`)."}
	soNodes   = StorageOption{Key: StorageKeyNodes, Kind: StorageList, Description: "The nodes the storage is available on; all nodes when not set."}
	soShared  = StorageOption{Key: "shared", Kind: StorageBool, Description: "Whether the storage holds the same content on every node (PVE does not share it: it is a promise about the backing storage)."}
	soDisable = StorageOption{Key: "disable", Kind: StorageBool, Description: "Whether the storage is disabled."}
	soPrune   = StorageOption{Key: StorageKeyPrune, Kind: StoragePrune, Description: "Which backups to keep on the storage (PVE's prune-backups)."}
	soMaxProt = StorageOption{Key: "max-protected-backups", Kind: StorageInt, Min: -1, HasMin: true,
		Description: "How many protected backups per guest the storage keeps at most; -1 for unlimited (PVE's default: unlimited for users with Datastore.Allocate on the storage, 5 for others)."}
	soContent = StorageOption{Key: StorageKeyContent, Kind: StorageList, Description: "The content types the storage holds (PVE's default depends on the type)."}
	soFormat  = StorageOption{Key: "format", Enum: []string{"raw", "qcow2", "subvol", "vmdk"}, Description: "The default image format of new disks."}
	soMkdir   = StorageOption{Key: "mkdir", Kind: StorageBool, Description: "Deprecated by PVE in favour of `create_base_path` and `create_subdirs`: create the directories when they are missing (PVE's default: true)."}
	soBase    = StorageOption{Key: "create-base-path", Kind: StorageBool, Description: "Create the base directory when it is missing (PVE's default: true)."}
	soSubdirs = StorageOption{Key: "create-subdirs", Kind: StorageBool, Description: "Populate the directory with the default structure (PVE's default: true)."}
	soMountpt = StorageOption{Key: "is_mountpoint", Description: "Whether the path is an externally managed mount point: `yes`, `no`, or the mount point's path (PVE's default: `no`)."}
	soBwlimit = StorageOption{Key: "bwlimit", Kind: StoragePropertyString,
		Description: "I/O bandwidth limits in KiB/s, as a property string: `[default=N][,clone=N][,migration=N][,move=N][,restore=N]`."}
	soPrealloc = StorageOption{Key: "preallocation", Enum: []string{"off", "metadata", "falloc", "full"},
		Description: "Preallocation of new raw and qcow2 images: `off`, `metadata`, `falloc` or `full` (PVE's default: `metadata`)."}
	soChain = StorageOption{Key: "snapshot-as-volume-chain", Kind: StorageBool, Since9: true,
		Description: "PVE 9 and later: snapshots as a chain of qcow2 volumes (PVE's default: false)."}
	soServer    = StorageOption{Key: "server", Description: "The server's address (IP or DNS name)."}
	soExport    = StorageOption{Key: "export", Description: "The NFS export path."}
	soOptions   = StorageOption{Key: "options", Description: "Mount options."}
	soShare     = StorageOption{Key: "share", Description: "The CIFS share."}
	soSubdir    = StorageOption{Key: "subdir", Description: "The subdirectory to mount."}
	soUsername  = StorageOption{Key: "username", Description: "The user name."}
	soPassword  = StorageOption{Key: "password", Sensitive: true, Description: "The password."}
	soDomain    = StorageOption{Key: "domain", Description: "The CIFS domain."}
	soSMBVer    = StorageOption{Key: "smbversion", Enum: []string{"default", "2.0", "2.1", "3", "3.0", "3.11"}, Description: "The SMB protocol version (PVE's default: `default`, the highest both sides support)."}
	soVGName    = StorageOption{Key: "vgname", Description: "The LVM volume group."}
	soLVMBase   = StorageOption{Key: "base", Description: "The base volume the volume group is built on (a volume id of an iSCSI storage's LUN)."}
	soSafeRm    = StorageOption{Key: "saferemove", Kind: StorageBool, Description: "Zero out data when removing logical volumes."}
	soSafeStep  = StorageOption{Key: "saferemove-stepsize", Kind: StorageInt, Enum: []string{"1", "2", "4", "8", "16", "32"}, Since9: true, Description: "PVE 9 and later: the zeroing step size in MiB when `saferemove` is on (PVE's default: 32)."}
	soSafeTput  = StorageOption{Key: "saferemove_throughput", Description: "The wipe throughput limit when `saferemove` is on (cstream -t)."}
	soTagged    = StorageOption{Key: "tagged_only", Kind: StorageBool, Description: "Use only logical volumes tagged with `pve-vm-ID`."}
	soThinpool  = StorageOption{Key: "thinpool", Description: "The LVM thin pool."}
	soPool      = StorageOption{Key: "pool", Description: "The pool."}
	soBlocksize = StorageOption{Key: "blocksize", Description: "The block size."}
	soSparse    = StorageOption{Key: "sparse", Kind: StorageBool, Description: "Use thin provisioning (sparse volumes)."}
	soMountpnt  = StorageOption{Key: "mountpoint", Description: "The mount point of the pool."}
	soPortal    = StorageOption{Key: "portal", Description: "The iSCSI portal (IP or DNS name, optional port)."}
	soTarget    = StorageOption{Key: "target", Description: "The iSCSI target."}
	soProvider  = StorageOption{Key: "iscsiprovider", Description: "The iSCSI target implementation (`comstar`, `istgt`, `iet` or `LIO`)."}
	soNoWCache  = StorageOption{Key: "nowritecache", Kind: StorageBool, Description: "Disable the write cache on the target."}
	soComHG     = StorageOption{Key: "comstar_hg", Description: "The host group of a COMSTAR view."}
	soComTG     = StorageOption{Key: "comstar_tg", Description: "The target group of a COMSTAR view."}
	soLIOTPG    = StorageOption{Key: "lio_tpg", Description: "The target portal group of a Linux LIO target."}
	soZFSBase   = StorageOption{Key: "zfs-base-path", FilledByPVE: true,
		Description: "The base path of ZFS block devices on the target. When not set, PVE probes the target over SSH at creation and stores what it finds (`/dev/zvol` or `/dev`); state then shows it."}
	soMonhost   = StorageOption{Key: "monhost", Description: "The Ceph monitors (IP addresses), separated by spaces, commas or semicolons; not set for the local hyper-converged cluster."}
	soDataPool  = StorageOption{Key: "data-pool", Description: "The pool for the data of erasure-coded images."}
	soNamespace = StorageOption{Key: "namespace", Description: "The namespace."}
	soKRBD      = StorageOption{Key: "krbd", Kind: StorageBool, Description: "Access images through the kernel RBD module (PVE's default: false)."}
	soKeyring   = StorageOption{Key: "keyring", Sensitive: true, Description: "The client keyring's contents."}
	soFuse      = StorageOption{Key: "fuse", Kind: StorageBool, Description: "Mount CephFS with FUSE."}
	soFSName    = StorageOption{Key: "fs-name", Description: "The Ceph file system's name."}
	soNoCow     = StorageOption{Key: "nocow", Kind: StorageBool, Description: "Set the NOCOW flag on files (PVE's default: false)."}
	soDatastore = StorageOption{Key: "datastore", Description: "The Proxmox Backup Server datastore."}
	soPort      = StorageOption{Key: "port", Kind: StorageInt, Min: 1, Max: 65535, HasMin: true, HasMax: true, Description: "The server's port."}
	soEncKey    = StorageOption{Key: "encryption-key", Sensitive: true, Description: "The client-side encryption key (JSON), or `autogen` for PVE to generate one."}
	soMasterKey = StorageOption{Key: "master-pubkey", Sensitive: true, Description: "The base64-encoded PEM RSA public key that encrypts a copy of the encryption key with each backup."}
	soFprint    = StorageOption{Key: "fingerprint", Description: "The server certificate's SHA-256 fingerprint (`XX:XX:...`, 32 bytes)."}
	soSkipCert  = StorageOption{Key: "skip-cert-verification", Kind: StorageBool, Description: "Do not verify the server's TLS certificate (PVE's default: false)."}
)

func fixed(o StorageOption) StorageTypeOption {
	return StorageTypeOption{StorageOption: o, Fixed: true, Required: true}
}
func fixedOpt(o StorageOption) StorageTypeOption {
	return StorageTypeOption{StorageOption: o, Fixed: true}
}
func required(o StorageOption) StorageTypeOption {
	return StorageTypeOption{StorageOption: o, Required: true}
}
func opt(o StorageOption) StorageTypeOption { return StorageTypeOption{StorageOption: o} }

func opts(os ...StorageOption) []StorageTypeOption {
	out := make([]StorageTypeOption, len(os))
	for i, o := range os {
		out[i] = opt(o)
	}
	return out
}

func join(parts ...[]StorageTypeOption) []StorageTypeOption {
	var out []StorageTypeOption
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var fileContent = []string{"images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import"}

// StorageTypes is the table of the 14 storage types, each from its plugin's
// options() in pve-storage src/PVE/Storage/<Type>Plugin.pm.
var StorageTypes = []StorageType{
	{Name: "dir", Formats: []string{"raw", "qcow2", "vmdk", "subvol"}, DefaultContent: []string{"images", "rootdir"}, Title: "directory", Content: append([]string{"none"}, fileContent...), Options: join(
		[]StorageTypeOption{fixed(soPath)},
		opts(soContentDirs, soNodes, soShared, soDisable, soPrune, soMaxProt, soContent, soFormat, soMkdir, soBase, soSubdirs, soMountpt, soBwlimit, soPrealloc),
		[]StorageTypeOption{fixedOpt(soChain)},
	)},
	{Name: "nfs", Formats: []string{"raw", "qcow2", "vmdk"}, DefaultContent: []string{"images"}, Title: "NFS", Content: fileContent, Options: join(
		[]StorageTypeOption{fixed(soPath)}, opts(soContentDirs),
		[]StorageTypeOption{fixed(soServer), fixed(soExport)},
		opts(soNodes, soDisable, soPrune, soMaxProt, soOptions, soContent, soFormat, soMkdir, soBase, soSubdirs, soBwlimit, soPrealloc),
		[]StorageTypeOption{fixedOpt(soChain)},
	)},
	{Name: "cifs", Formats: []string{"raw", "qcow2", "vmdk"}, DefaultContent: []string{"images"}, Title: "CIFS/SMB", Content: fileContent, Options: join(
		[]StorageTypeOption{fixed(soPath)}, opts(soContentDirs),
		[]StorageTypeOption{fixed(soServer), fixed(soShare)},
		opts(soSubdir, soNodes, soDisable, soPrune, soMaxProt, soContent, soFormat, soUsername, soPassword, soDomain, soSMBVer,
			soMkdir, soBase, soSubdirs, soBwlimit, soPrealloc, soOptions),
		[]StorageTypeOption{fixedOpt(soChain)},
	)},
	{Name: "lvm", DefaultContent: []string{"images"}, Title: "LVM", Content: []string{"images", "rootdir"}, Options: join(
		[]StorageTypeOption{fixed(soVGName)},
		opts(soNodes, soShared, soDisable, soSafeRm, soSafeStep, soSafeTput, soContent),
		[]StorageTypeOption{fixedOpt(soLVMBase)},
		opts(soTagged, soBwlimit, soChain),
	)},
	{Name: "lvmthin", DefaultContent: []string{"images", "rootdir"}, Title: "LVM-thin", Content: []string{"images", "rootdir"}, Options: join(
		[]StorageTypeOption{fixed(soThinpool), fixed(soVGName)},
		opts(soNodes, soDisable, soContent, soBwlimit),
	)},
	{Name: "zfspool", DefaultContent: []string{"images", "rootdir"}, Title: "ZFS pool", Content: []string{"images", "rootdir"}, Options: join(
		[]StorageTypeOption{fixed(soPool)},
		opts(soBlocksize, soSparse, soNodes, soDisable, soContent, soBwlimit, soMountpnt),
	)},
	{Name: "zfs", DefaultContent: []string{"images"}, Title: "ZFS over iSCSI", Content: []string{"images"}, Options: join(
		opts(soNodes, soDisable),
		[]StorageTypeOption{fixed(soPortal), fixed(soTarget), fixed(soPool), fixed(soBlocksize), fixed(soProvider)},
		opts(soNoWCache, soSparse, soComHG, soComTG, soLIOTPG, soContent, soBwlimit, soZFSBase),
	)},
	{Name: "iscsi", DefaultContent: []string{"images"}, Title: "iSCSI", Content: []string{"images", "none"}, Options: join(
		[]StorageTypeOption{fixed(soPortal), fixed(soTarget)},
		opts(soNodes, soDisable, soContent, soBwlimit),
	)},
	{Name: "iscsidirect", DefaultContent: []string{"images"}, Title: "iSCSI (user mode)", Content: []string{"images", "none"}, Options: join(
		[]StorageTypeOption{fixed(soPortal), fixed(soTarget)},
		opts(soNodes, soDisable, soContent, soBwlimit),
	)},
	{Name: "rbd", DefaultContent: []string{"images"}, Title: "Ceph RBD", Content: []string{"images", "rootdir"}, Options: opts(
		soNodes, soDisable, soMonhost, soPool, soDataPool, soNamespace, soUsername, soContent, soKRBD, soKeyring, soBwlimit,
	)},
	{Name: "cephfs", DefaultContent: []string{"backup"}, Title: "CephFS", Content: []string{"vztmpl", "iso", "backup", "snippets", "import"}, Options: join(
		[]StorageTypeOption{fixed(soPath)},
		opts(soContentDirs, soMonhost, soNodes, soSubdir, soDisable, soOptions, soUsername, soContent, soFormat, soMkdir, soBase,
			soSubdirs, soFuse, soBwlimit, soKeyring, soPrune, soMaxProt, soFSName),
	)},
	{Name: "pbs", DefaultContent: []string{"backup"}, Title: "Proxmox Backup Server", Content: []string{"backup", "none"}, Options: join(
		[]StorageTypeOption{fixed(soServer), fixed(soDatastore)},
		opts(soNamespace, soPort, soNodes, soDisable, soContent, soUsername, soPassword, soEncKey, soMasterKey, soPrune, soMaxProt, soFprint),
	)},
	{Name: "btrfs", Formats: []string{"raw", "subvol"}, DefaultContent: []string{"images", "rootdir"}, Title: "BTRFS", Content: append([]string{"none"}, fileContent...), Options: join(
		[]StorageTypeOption{fixed(soPath)},
		opts(soNodes, soShared, soDisable, soPrune, soMaxProt, soContent, soFormat, soMountpt, soNoCow, soMkdir, soBase, soSubdirs, soPrealloc),
	)},
	{Name: "esxi", DefaultContent: []string{"import"}, Title: "ESXi", Content: []string{"import"}, Options: join(
		opts(soNodes, soShared, soDisable, soContent),
		[]StorageTypeOption{required(soServer), required(soUsername)},
		opts(soPassword, soSkipCert, soPort),
	)},
}

// StorageOptionsFromAPI turns GET /storage/{id}'s answer into the options
// as a write sends them: storage, type and digest left out, numbers and
// booleans as text (W5), prune-backups normalized (PVE may answer it as an
// object).
func StorageOptionsFromAPI(raw map[string]any) map[string]string {
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		switch k {
		case "storage", "type", "digest":
			continue
		}
		if obj, ok := v.(map[string]any); ok {
			m := make(map[string]string, len(obj))
			for pk, pv := range obj {
				m[pk] = scalarText(pv)
			}
			if k == StorageKeyPrune {
				if p, err := PruneBackupsFromMap(m); err == nil {
					out[k] = p.String()
					continue
				}
			}
			out[k] = FormatPropertyString(m, "")
			continue
		}
		out[k] = scalarText(v)
	}
	if s, ok := out[StorageKeyPrune]; ok {
		if p, err := ParsePruneBackups(s); err == nil {
			out[StorageKeyPrune] = p.String()
		}
	}
	return out
}

// SplitStorageList splits a content or nodes list as PVE's split_list does
// (commas, semicolons, spaces, NUL); empty items dropped.
func SplitStorageList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == 0
	})
}
