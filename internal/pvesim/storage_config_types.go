package pvesim

// The storage types of storage.cfg: per type, the options it takes (with
// PVE's "fixed" and "optional" flags), the content types it can hold and
// its default content, the image formats it offers and the properties it
// keeps out of storage.cfg (sensitive, under /etc/pve/priv).
//
// Sources, per type, pve-storage src/PVE/Storage/<Type>Plugin.pm plugindata
// and options: DirPlugin, NFSPlugin, CIFSPlugin, LVMPlugin, LvmThinPlugin,
// ZFSPoolPlugin, ZFSPlugin, ISCSIPlugin, ISCSIDirectPlugin, RBDPlugin,
// CephFSPlugin, PBSPlugin, BTRFSPlugin, ESXiPlugin (pve-storage 9.1.7).

// storageOpt is one entry of a plugin's options(): fixed options cannot
// change after creation, options that are not optional are required.
type storageOpt struct {
	fixed, optional bool
}

var (
	optional      = storageOpt{optional: true}
	fixedRequired = storageOpt{fixed: true}
	fixedOptional = storageOpt{fixed: true, optional: true}
	required      = storageOpt{}
)

// storageType is one plugin's data.
type storageType struct {
	options map[string]storageOpt
	// content is the content types the type can hold; defContent what a
	// storage without a content option gets (plugindata content, [0] and
	// [1]).
	content, defContent []string
	// formats are the image formats of plugindata's format, nil when the
	// type has none.
	formats []string
	// sensitive are plugindata's sensitive-properties
	// (pve-storage src/PVE/Storage/Plugin.pm sensitive_properties).
	sensitive []string
	// shared: the type is in @SHARED_STORAGE, always shared
	// (pve-storage src/PVE/Storage/Plugin.pm parse_config).
	shared bool
	// mountPath: a created storage without path gets /mnt/pve/<id>
	// (NFSPlugin.pm, CIFSPlugin.pm, CephFSPlugin.pm check_config).
	mountPath bool
	// dirPath: a created storage's path is checked and made canonical
	// (DirPlugin.pm check_config, which BTRFSPlugin.pm check_config calls).
	dirPath bool
}

// storageKeyKinds are the types of the properties that are not strings
// (pve-storage src/PVE/Storage/Plugin.pm $defaultData and each plugin's
// properties): they are numbers in the API's answers (SectionConfig
// check_value returns $value + 0 for them).
var storageKeyKinds = map[string]string{
	"disable": "boolean", "shared": "boolean", "mkdir": "boolean", "create-base-path": "boolean",
	"create-subdirs": "boolean", "saferemove": "boolean", "tagged_only": "boolean", "krbd": "boolean",
	"sparse": "boolean", "nowritecache": "boolean", "fuse": "boolean", "nocow": "boolean",
	"skip-cert-verification": "boolean", "snapshot-as-volume-chain": "boolean",
	"max-protected-backups": "integer", "port": "integer", "saferemove-stepsize": "integer",
	"maxfiles": "integer",
}

var allContent = []string{"images", "rootdir", "vztmpl", "iso", "backup", "snippets", "none", "import"}

// storageTypes91 are PVE 9.1's types.
var storageTypes91 = map[string]*storageType{
	"dir": {
		options: map[string]storageOpt{
			"path": fixedRequired, "content-dirs": optional, "nodes": optional, "shared": optional,
			"disable": optional, "prune-backups": optional, "max-protected-backups": optional,
			"content": optional, "format": optional, "mkdir": optional, "create-base-path": optional,
			"create-subdirs": optional, "is_mountpoint": optional, "bwlimit": optional,
			"preallocation": optional, "snapshot-as-volume-chain": fixedOptional,
		},
		content: allContent, defContent: []string{"images", "rootdir"},
		formats: []string{"raw", "qcow2", "vmdk", "subvol"}, dirPath: true,
	},
	"nfs": {
		options: map[string]storageOpt{
			"path": fixedRequired, "content-dirs": optional, "server": fixedRequired, "export": fixedRequired,
			"nodes": optional, "disable": optional, "prune-backups": optional, "max-protected-backups": optional,
			"options": optional, "content": optional, "format": optional, "mkdir": optional,
			"create-base-path": optional, "create-subdirs": optional, "bwlimit": optional,
			"preallocation": optional, "snapshot-as-volume-chain": fixedOptional,
		},
		content:    []string{"images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import"},
		defContent: []string{"images"}, formats: []string{"raw", "qcow2", "vmdk"}, shared: true, mountPath: true,
	},
	"cifs": {
		options: map[string]storageOpt{
			"path": fixedRequired, "content-dirs": optional, "server": fixedRequired, "share": fixedRequired,
			"subdir": optional, "nodes": optional, "disable": optional, "prune-backups": optional,
			"max-protected-backups": optional, "content": optional, "format": optional, "username": optional,
			"password": optional, "domain": optional, "smbversion": optional, "mkdir": optional,
			"create-base-path": optional, "create-subdirs": optional, "bwlimit": optional,
			"preallocation": optional, "options": optional, "snapshot-as-volume-chain": fixedOptional,
		},
		content:    []string{"images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import"},
		defContent: []string{"images"}, formats: []string{"raw", "qcow2", "vmdk"},
		sensitive: []string{"password"}, shared: true, mountPath: true,
	},
	"lvm": {
		options: map[string]storageOpt{
			"vgname": fixedRequired, "nodes": optional, "shared": optional, "disable": optional,
			"saferemove": optional, "saferemove-stepsize": optional, "saferemove_throughput": optional,
			"content": optional, "base": fixedOptional, "tagged_only": optional, "bwlimit": optional,
			"snapshot-as-volume-chain": optional,
		},
		content: []string{"images", "rootdir"}, defContent: []string{"images"}, formats: []string{"raw", "qcow2"},
	},
	"lvmthin": {
		options: map[string]storageOpt{
			"thinpool": fixedRequired, "vgname": fixedRequired, "nodes": optional, "disable": optional,
			"content": optional, "bwlimit": optional,
		},
		content: []string{"images", "rootdir"}, defContent: []string{"images", "rootdir"},
	},
	"zfspool": {
		options: map[string]storageOpt{
			"pool": fixedRequired, "blocksize": optional, "sparse": optional, "nodes": optional,
			"disable": optional, "content": optional, "bwlimit": optional, "mountpoint": optional,
		},
		content: []string{"images", "rootdir"}, defContent: []string{"images", "rootdir"},
		formats: []string{"raw", "subvol"},
	},
	"zfs": {
		options: map[string]storageOpt{
			"nodes": optional, "disable": optional, "portal": fixedRequired, "target": fixedRequired,
			"pool": fixedRequired, "blocksize": fixedRequired, "iscsiprovider": fixedRequired,
			"nowritecache": optional, "sparse": optional, "comstar_hg": optional, "comstar_tg": optional,
			"lio_tpg": optional, "content": optional, "bwlimit": optional, "zfs-base-path": optional,
		},
		content: []string{"images"}, defContent: []string{"images"}, shared: true,
	},
	"iscsi": {
		options: map[string]storageOpt{
			"portal": fixedRequired, "target": fixedRequired, "nodes": optional, "disable": optional,
			"content": optional, "bwlimit": optional,
		},
		content: []string{"images", "none"}, defContent: []string{"images"}, shared: true,
	},
	"iscsidirect": {
		options: map[string]storageOpt{
			"portal": fixedRequired, "target": fixedRequired, "nodes": optional, "disable": optional,
			"content": optional, "bwlimit": optional,
		},
		content: []string{"images", "none"}, defContent: []string{"images"}, shared: true,
	},
	"rbd": {
		options: map[string]storageOpt{
			"nodes": optional, "disable": optional, "monhost": optional, "pool": optional,
			"data-pool": optional, "namespace": optional, "username": optional, "content": optional,
			"krbd": optional, "keyring": optional, "bwlimit": optional,
		},
		content: []string{"images", "rootdir"}, defContent: []string{"images"},
		sensitive: []string{"keyring"}, shared: true,
	},
	"cephfs": {
		options: map[string]storageOpt{
			"path": fixedRequired, "content-dirs": optional, "monhost": optional, "nodes": optional,
			"subdir": optional, "disable": optional, "options": optional, "username": optional,
			"content": optional, "format": optional, "mkdir": optional, "create-base-path": optional,
			"create-subdirs": optional, "fuse": optional, "bwlimit": optional, "keyring": optional,
			"prune-backups": optional, "max-protected-backups": optional, "fs-name": optional,
		},
		content:    []string{"vztmpl", "iso", "backup", "snippets", "import"},
		defContent: []string{"backup"}, sensitive: []string{"keyring"}, shared: true, mountPath: true,
	},
	"pbs": {
		options: map[string]storageOpt{
			"server": fixedRequired, "datastore": fixedRequired, "namespace": optional, "port": optional,
			"nodes": optional, "disable": optional, "content": optional, "username": optional,
			"password": optional, "encryption-key": optional, "master-pubkey": optional,
			"prune-backups": optional, "max-protected-backups": optional, "fingerprint": optional,
		},
		content: []string{"backup", "none"}, defContent: []string{"backup"},
		sensitive: []string{"encryption-key", "master-pubkey", "password"}, shared: true,
	},
	"btrfs": {
		options: map[string]storageOpt{
			"path": fixedRequired, "nodes": optional, "shared": optional, "disable": optional,
			"prune-backups": optional, "max-protected-backups": optional, "content": optional,
			"format": optional, "is_mountpoint": optional, "nocow": optional, "mkdir": optional,
			"create-base-path": optional, "create-subdirs": optional, "preallocation": optional,
		},
		content: allContent, defContent: []string{"images", "rootdir"}, formats: []string{"raw", "subvol"},
		dirPath: true,
	},
	"esxi": {
		options: map[string]storageOpt{
			"nodes": optional, "shared": optional, "disable": optional, "content": optional,
			"server": required, "username": required, "password": optional,
			"skip-cert-verification": optional, "port": optional,
		},
		content: []string{"import"}, defContent: []string{"import"}, formats: []string{"raw", "qcow2", "vmdk"},
		sensitive: []string{"password"},
	},
}

// storageTypes84 are PVE 8.4's types: 9.0 dropped 'maxfiles' (pve-storage
// debian/changelog "config: drop 'maxfiles' parameter") and added
// 'snapshot-as-volume-chain' (dir, nfs, cifs, lvm) and LVM's
// 'saferemove-stepsize' (both absent from PVE 8.4's schema of POST
// /storage). Which 8.4 types took maxfiles is inferred (INFERRED.md): the
// types with prune-backups but pbs, which never had it. 8.4 also has
// glusterfs.
var storageTypes84 = func() map[string]*storageType {
	out := map[string]*storageType{}
	for name, t := range storageTypes91 {
		c := *t
		c.options = map[string]storageOpt{}
		for k, o := range t.options {
			if k == "snapshot-as-volume-chain" || k == "saferemove-stepsize" {
				continue
			}
			c.options[k] = o
		}
		if _, ok := t.options["prune-backups"]; ok && name != "pbs" {
			c.options["maxfiles"] = optional
		}
		out[name] = &c
	}
	// GlusterFS, gone in 9.0 (pve-storage debian/changelog 9.0.0): PVE 8's
	// src/PVE/Storage/GlusterfsPlugin.pm plugindata, options and
	// check_config; in PVE 8's @SHARED_STORAGE (inferred, INFERRED.md).
	out["glusterfs"] = &storageType{
		options: map[string]storageOpt{
			"path": fixedRequired, "server": optional, "server2": optional, "volume": fixedRequired,
			"transport": optional, "nodes": optional, "disable": optional, "maxfiles": optional,
			"prune-backups": optional, "max-protected-backups": optional, "content": optional,
			"format": optional, "mkdir": optional, "create-base-path": optional, "create-subdirs": optional,
			"bwlimit": optional, "preallocation": optional,
		},
		content:    []string{"images", "vztmpl", "iso", "backup", "snippets", "import"},
		defContent: []string{"images"}, formats: []string{"raw", "qcow2", "vmdk"},
		shared: true, mountPath: true,
	}
	return out
}()

// storageTypesOf are the storage types of the served release.
func (s *Sim) storageTypesOf() map[string]*storageType {
	if s.pve.release == "8.4" {
		return storageTypes84
	}
	return storageTypes91
}
