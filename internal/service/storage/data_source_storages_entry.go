package storage

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// storageEntry is one storage: its definition (storage.cfg) and, with a
// node, its status there.
type storageEntry struct {
	Storage   types.String `tfsdk:"storage"`
	Type      types.String `tfsdk:"type"`
	Content   []string     `tfsdk:"content"`
	Shared    types.Bool   `tfsdk:"shared"`
	Enabled   types.Bool   `tfsdk:"enabled"`
	Active    types.Bool   `tfsdk:"active"`
	Total     types.Int64  `tfsdk:"total"`
	Used      types.Int64  `tfsdk:"used"`
	Available types.Int64  `tfsdk:"available"`

	Disabled types.Bool `tfsdk:"disabled"`
	Nodes    []string   `tfsdk:"nodes"`
	// The location options, each a definition's key (locationKeys).
	Path      types.String      `tfsdk:"path"`
	Server    types.String      `tfsdk:"server"`
	Port      types.Int64       `tfsdk:"port"`
	Export    types.String      `tfsdk:"export"`
	Share     types.String      `tfsdk:"share"`
	Subdir    types.String      `tfsdk:"subdir"`
	Pool      types.String      `tfsdk:"pool"`
	VGName    types.String      `tfsdk:"vgname"`
	Thinpool  types.String      `tfsdk:"thinpool"`
	Base      types.String      `tfsdk:"base"`
	Portal    types.String      `tfsdk:"portal"`
	Target    types.String      `tfsdk:"target"`
	Datastore types.String      `tfsdk:"datastore"`
	Namespace types.String      `tfsdk:"namespace"`
	Monhost   types.String      `tfsdk:"monhost"`
	FSName    types.String      `tfsdk:"fs_name"`
	Options   map[string]string `tfsdk:"options"`
}

// locationKeys are the definition keys that say where a storage lives,
// each an attribute of its own (port is a number), with what it means.
var locationKeys = []struct{ key, doc string }{
	{"path", "The file system path (dir, nfs, cifs, cephfs, btrfs)."},
	{"server", "The server's address (nfs, cifs, pbs, esxi)."},
	{"port", "The server's port (pbs, esxi), when set."},
	{"export", "The NFS export."},
	{"share", "The CIFS share."},
	{"subdir", "The subdirectory mounted (cifs, cephfs)."},
	{"pool", "The pool (zfspool, zfs, rbd)."},
	{"vgname", "The LVM volume group (lvm, lvmthin)."},
	{"thinpool", "The LVM thin pool."},
	{"base", "The base volume of an LVM volume group (a volume id on an iSCSI storage)."},
	{"portal", "The iSCSI portal (iscsi, iscsidirect, zfs)."},
	{"target", "The iSCSI target (iscsi, iscsidirect, zfs)."},
	{"datastore", "The Proxmox Backup Server datastore."},
	{"namespace", "The namespace (pbs, rbd)."},
	{"monhost", "The Ceph monitors (rbd, cephfs); not set for the local hyper-converged cluster."},
	{"fs-name", "The Ceph file system's name."},
}

// definitionOwnKeys are keys with attributes of their own besides the
// location keys.
var definitionOwnKeys = map[string]bool{
	wire.StorageKeyContent: true, wire.StorageKeyNodes: true, "shared": true, "disable": true,
}

func storageEntryAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"storage": schema.StringAttribute{Computed: true, MarkdownDescription: "Storage id."},
		"type":    schema.StringAttribute{Computed: true, MarkdownDescription: "Storage type: `dir`, `lvmthin`, `nfs`, `zfspool`, ..."},
		"content": schema.SetAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Content types the storage takes (`none` for a storage that holds no content)."},
		"shared": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether every node sees the same storage."},
		"enabled": schema.BoolAttribute{Computed: true,
			MarkdownDescription: "Whether the storage is enabled and available on the node; null without `node`."},
		"active": schema.BoolAttribute{Computed: true,
			MarkdownDescription: "Whether the storage is active (mounted, reachable) on the node; null without `node`."},
		"total":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Size in bytes; 0 when not active; null without `node`."},
		"used":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Bytes in use; null without `node`."},
		"available": schema.Int64Attribute{Computed: true, MarkdownDescription: "Bytes free; null without `node`."},
		"disabled": schema.BoolAttribute{Computed: true,
			MarkdownDescription: "Whether the definition is disabled (`disable` in storage.cfg)."},
		"nodes": schema.SetAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "The nodes the storage is restricted to; null when it is available on every node."},
		"options": schema.MapAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "The definition's other options as PVE writes them (for example `prune-backups`, `format`, `krbd`), " +
				"by PVE's key; never passwords, keyrings or keys."},
	}
	for _, l := range locationKeys {
		name := wire.StorageAttributeName(l.key)
		if l.key == "port" {
			attrs[name] = schema.Int64Attribute{Computed: true, MarkdownDescription: l.doc}
			continue
		}
		attrs[name] = schema.StringAttribute{Computed: true, MarkdownDescription: l.doc + " Null when the storage has none."}
	}
	return attrs
}

// nullDefinition is an entry whose definition is not known (a status entry
// PVE listed without a definition the caller can see).
func nullDefinition() storageEntry {
	e := storageEntry{Disabled: types.BoolNull()}
	e.setLocation(nil)
	return e
}

// definitionEntry is one storage.cfg definition; status attributes null.
// Sensitive options never come back from PVE; they are dropped here all
// the same.
func definitionEntry(def pveapi.StorageConfig) storageEntry {
	o := def.Options
	e := storageEntry{
		Storage:   types.StringValue(def.Storage),
		Type:      types.StringValue(def.Type),
		Content:   wire.SplitStorageList(o[wire.StorageKeyContent]),
		Shared:    types.BoolValue(o["shared"] == "1"),
		Enabled:   types.BoolNull(),
		Active:    types.BoolNull(),
		Total:     types.Int64Null(),
		Used:      types.Int64Null(),
		Available: types.Int64Null(),
		Disabled:  types.BoolValue(o["disable"] == "1"),
		Options:   map[string]string{},
	}
	if e.Content == nil {
		e.Content = []string{}
	}
	if nodes := wire.SplitStorageList(o[wire.StorageKeyNodes]); len(nodes) > 0 {
		e.Nodes = nodes
	}
	st, _ := wire.StorageTypeByName(def.Type)
	location := map[string]bool{}
	for _, l := range locationKeys {
		location[l.key] = true
	}
	for k, v := range o {
		if opt, ok := st.Option(k); (ok && opt.Sensitive) || location[k] || definitionOwnKeys[k] {
			continue
		}
		e.Options[k] = v
	}
	e.setLocation(o)
	return e
}

// setLocation fills the location attributes from the options (null where
// absent).
func (e *storageEntry) setLocation(o map[string]string) {
	str := func(k string) types.String {
		if v, ok := o[k]; ok {
			return types.StringValue(v)
		}
		return types.StringNull()
	}
	e.Path, e.Server, e.Export, e.Share, e.Subdir = str("path"), str("server"), str("export"), str("share"), str("subdir")
	e.Pool, e.VGName, e.Thinpool, e.Base = str("pool"), str("vgname"), str("thinpool"), str("base")
	e.Portal, e.Target, e.Datastore, e.Namespace = str("portal"), str("target"), str("datastore"), str("namespace")
	e.Monhost, e.FSName = str("monhost"), str("fs-name")
	e.Port = types.Int64Null()
	if n, err := strconv.ParseInt(o["port"], 10, 64); err == nil {
		e.Port = types.Int64Value(n)
	}
}
