package functions

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ function.Function = (*parseVolumeIDFunction)(nil)

// NewParseVolumeIDFunction is the constructor of parse_volume_id.
func NewParseVolumeIDFunction() function.Function { return &parseVolumeIDFunction{} }

type parseVolumeIDFunction struct{}

// volumeIDAttrTypes is the object parse_volume_id returns.
var volumeIDAttrTypes = map[string]attr.Type{
	"storage":   types.StringType,
	"name":      types.StringType,
	"content":   types.StringType,
	"file":      types.StringType,
	"vmid":      types.Int64Type,
	"format":    types.StringType,
	"is_base":   types.BoolType,
	"base_name": types.StringType,
	"base_vmid": types.Int64Type,
}

func (f *parseVolumeIDFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "parse_volume_id"
}

func (f *parseVolumeIDFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Splits a PVE volume id into its storage, name, content type, owner guest and format.",
		MarkdownDescription: "Reads a PVE volume id (`STORAGE:NAME`, as in a disk's `volume_id`, a drive value's file or " +
			"an artifact's id) into an object. `storage` and `name` (everything after the first `:`) come from the " +
			"volume id itself. The other attributes are what the name's shape says under the storage types PVE ships:\n\n" +
			"- directory layout (dir, NFS, CIFS, CephFS, BTRFS): `iso/FILE` (`.iso`, `.img`), `vztmpl/FILE` " +
			"(`.tar`, `.tar.gz`, `.tar.xz`, `.tar.zst`, `.tar.bz2`), `backup/FILE` (`vzdump-qemu-100-...` gives " +
			"`vmid` 100), `snippets/FILE`, `import/FILE` (`.ova`, `.ovf`, `.qcow2`, `.raw`, `.vmdk`, and a disk " +
			"inside an OVA, `import/X.ova/DISK.vmdk`, whose format is `ova+vmdk`), disk images `VMID/FILE` " +
			"(`.raw`, `.qcow2`, `.vmdk`, `.subvol`) and linked clones `BASEVMID/BASEFILE/VMID/FILE`;\n" +
			"- Proxmox Backup Server: `backup/TYPE/ID/TIME`, format `pbs-TYPE`, `vmid` when ID is a number;\n" +
			"- block storages (LVM, LVM-thin, ZFS, Ceph RBD): `vm-ID-...`, `base-ID-...`, `subvol-ID-...`, " +
			"`basevol-ID-...`, and linked clones `BASE/VOLUME`; the format is `subvol` for `subvol-`/`basevol-`, " +
			"`qcow2` for a name ending in `.qcow2` (LVM), else `raw`;\n" +
			"- iSCSI LUNs: `lunN` and `C.T.L.NAME`.\n\n" +
			"A well-formed volume id whose name has none of these shapes (a storage plugin from elsewhere, an ESXi " +
			"import source, a create form such as `local-lvm:32`) is not an error: `content`, `file`, `vmid`, " +
			"`format`, `is_base`, `base_name` and `base_vmid` are null. A value that is not a volume id at all " +
			"(no `:`, an invalid storage id, nothing after the `:`, a line break) is an error.\n\n" +
			"The result object has these attributes:\n\n" +
			"- `storage` (String) The storage id before the first `:`.\n" +
			"- `name` (String) Everything after the first `:` (PVE's volume name), such as `iso/debian-13.iso` or `vm-100-disk-0`.\n" +
			"- `content` (String) The content type the name implies: `images`, `iso`, `vztmpl`, `backup`, `snippets` or " +
			"`import`. A container's volume on a block storage is `images` too, as PVE reports it.\n" +
			"- `file` (String) The volume's own name without its content directory, owner directory or base volume: " +
			"`debian-13.iso`, `vm-100-disk-0.qcow2`, `vm/100/2025-01-31T10:00:00Z`; for an iSCSI LUN, what follows `lun` or the last `.`.\n" +
			"- `vmid` (Number) The guest that owns the volume, or null (ISO images, templates, backups without a guest number).\n" +
			"- `format` (String) The volume's format as PVE reports it: `raw`, `qcow2`, `vmdk`, `subvol`, `ova+qcow2`, `pbs-vm`, ...\n" +
			"- `is_base` (Bool) Whether the volume is a template's base volume (`base-ID-...`, `basevol-ID-...`).\n" +
			"- `base_name` (String) For a linked clone, the base volume it was cloned from, else null.\n" +
			"- `base_vmid` (Number) For a linked clone, the template that owns the base volume, else null.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name: "volume_id",
				MarkdownDescription: "A PVE volume id, `STORAGE:NAME`, such as `local:iso/debian-13.iso` or " +
					"`local-lvm:vm-100-disk-0`.",
			},
		},
		Return: function.ObjectReturn{AttributeTypes: volumeIDAttrTypes},
	}
}

func (f *parseVolumeIDFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var in string
	resp.Error = req.Arguments.Get(ctx, &in)
	if resp.Error != nil {
		return
	}
	v, err := wire.ParseVolumeID(in)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf(
			"%q is not a PVE volume id (%s): a volume id is a storage id, \":\" and the volume's name, "+
				"such as \"local:iso/debian-13.iso\" or \"local-lvm:vm-100-disk-0\"", in, err))
		return
	}
	obj, diags := types.ObjectValue(volumeIDAttrTypes, volumeIDAttrs(v))
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = resp.Result.Set(ctx, obj)
}

// volumeIDAttrs is the result object of v: the attributes read from the
// name's shape are null when the shape is unknown.
func volumeIDAttrs(v wire.VolumeID) map[string]attr.Value {
	attrs := map[string]attr.Value{
		"storage":   types.StringValue(v.Storage),
		"name":      types.StringValue(v.Name),
		"content":   types.StringNull(),
		"file":      types.StringNull(),
		"vmid":      types.Int64Null(),
		"format":    types.StringNull(),
		"is_base":   types.BoolNull(),
		"base_name": types.StringNull(),
		"base_vmid": types.Int64Null(),
	}
	if v.Content == "" {
		return attrs
	}
	attrs["content"] = types.StringValue(v.Content)
	attrs["file"] = types.StringValue(v.File)
	attrs["format"] = types.StringValue(v.Format)
	attrs["is_base"] = types.BoolValue(v.IsBase)
	if v.VMID != 0 {
		attrs["vmid"] = types.Int64Value(v.VMID)
	}
	if v.BaseName != "" {
		attrs["base_name"] = types.StringValue(v.BaseName)
		attrs["base_vmid"] = types.Int64Value(v.BaseVMID)
	}
	return attrs
}
