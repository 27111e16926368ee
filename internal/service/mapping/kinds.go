// Package mapping holds pve_pci_mapping, pve_usb_mapping and
// pve_dir_mapping: cluster-wide hardware mappings (/cluster/mapping) that
// name a device or directory per node, so that guests can use it by name
// and users without root can be allowed to.
package mapping

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// entryField is one attribute of a per-node entry and its key in PVE's
// entry property string.
type entryField struct {
	attr     string
	key      string
	integer  bool
	required bool
	doc      string
	checks   []validator.String
}

// kindSpec is one mapping kind: its entry format and the resource's words.
type kindSpec struct {
	wire     wire.MappingKind
	typeName string // "pci_mapping"
	title    string // "PCI Mapping"
	doc      string
	fields   []entryField
	// pci adds mdev and live_migration_capable.
	pci bool
}

// entryValue is what PVE's property strings can carry in an entry's value:
// no ',' (it would split the entry) and no line break.
var entryValue = fwutil.Problem(func(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if err := wire.CheckPropertyValue(s); err != nil {
		return "must not contain ',' or a line break"
	}
	return ""
}, "no ',' and no line break")

const privilegeDoc = "\n\n**Privileges:** creating and deleting a mapping needs `Mapping.Modify` on `/mapping/%s`; " +
	"changing one needs `Mapping.Modify` on `/mapping/%s/<id>` (or above, propagated); reading it any of " +
	"`Mapping.Audit`, `Mapping.Use`, `Mapping.Modify` there. API tokens may do all of it: no `root@pam` needed. " +
	"Guests then use the mapping with `Mapping.Use` on `/mapping/%s/<id>`." +
	"\n\nPVE 8.4 and 9.x have the same mapping API, so the resource behaves the same on both." +
	"\n\n**Changes that replace the mapping:** `id`. Everything else changes in place."

var kinds = map[string]*kindSpec{
	"pci": {
		wire: wire.MappingPCI, typeName: "pci_mapping", title: "PCI Mapping", pci: true,
		doc: "A PCI hardware mapping (`/cluster/mapping/pci`): a name for a PCI device (or a set of them) with the " +
			"device's address on each node, which VMs use as `mapping=<id>` instead of a host address. " +
			"The per-node entries are checked against the node's hardware when a guest starts; " +
			"`id`, `subsystem_id` and `iommu_group` let PVE notice replaced hardware." +
			"\n\nPVE allows several entries for one node (a guest takes the first free one); this resource " +
			"holds one per node, and refuses to read a mapping that has more (give several addresses in one " +
			"entry's `path`, separated by `;`, instead).",
		fields: []entryField{
			{attr: "path", key: "path", required: true, doc: "The device's PCI address on the node, such as `0000:01:00.0`; " +
				"leave out the function (`0000:01:00`) to map all functions of the device. Several addresses separated " +
				"by `;` make a pool: a guest takes the first free one.",
				checks: []validator.String{fwutil.Problem(wire.MappingPCIPathProblem, "a PCI address")}},
			{attr: "id", key: "id", required: true, doc: "The expected vendor and device id, such as `10de:2204` " +
				"(`lspci -n`).", checks: []validator.String{fwutil.Problem(wire.MappingDeviceIDProblem, "vendor:device")}},
			{attr: "subsystem_id", key: "subsystem-id", doc: "The expected subsystem vendor and device id, when the device has one.",
				checks: []validator.String{fwutil.Problem(wire.MappingDeviceIDProblem, "vendor:device")}},
			{attr: "iommu_group", key: "iommugroup", integer: true, doc: "The IOMMU group the device is expected in."},
			{attr: "description", key: "description", doc: "A description of this node's device.",
				checks: []validator.String{entryValue, stringvalidator.LengthAtMost(4096)}},
		},
	},
	"usb": {
		wire: wire.MappingUSB, typeName: "usb_mapping", title: "USB Mapping",
		doc: "A USB hardware mapping (`/cluster/mapping/usb`): a name for a USB device with how to find it on each " +
			"node (by vendor and product id, or by the port it is plugged into), which VMs use as `mapping=<id>` " +
			"instead of a host device, which only `root@pam` may pass through." +
			"\n\nPVE allows several entries for one node; this resource holds one per node and refuses to read " +
			"a mapping that has more.",
		fields: []entryField{
			{attr: "id", key: "id", required: true, doc: "The vendor and product id, such as `0529:0001` (`lsusb`). " +
				"Without `path` the device is found by it; with `path` it is only checked.",
				checks: []validator.String{fwutil.Problem(wire.MappingDeviceIDProblem, "vendor:product")}},
			{attr: "path", key: "path", doc: "The USB port the device is plugged into, such as `1-2.3` (bus, then " +
				"port chain): the mapping then means that port.",
				checks: []validator.String{fwutil.Problem(wire.MappingUSBPathProblem, "a USB port path")}},
			{attr: "description", key: "description", doc: "A description of this node's device.",
				checks: []validator.String{entryValue, stringvalidator.LengthAtMost(4096)}},
		},
	},
	"dir": {
		wire: wire.MappingDir, typeName: "dir_mapping", title: "Directory Mapping",
		doc: "A directory mapping (`/cluster/mapping/dir`): a name for a host directory, with its path on each node, " +
			"which VMs share with the guest through virtiofs. PVE checks that the path is a directory on the " +
			"node that answers the API request.",
		fields: []entryField{
			{attr: "path", key: "path", required: true, doc: "The absolute path of the directory on the node.",
				checks: []validator.String{fwutil.Problem(wire.MappingDirPathProblem, "an absolute path")}},
		},
	},
}

// entryAttrTypes are the entry object's attribute types.
func (k *kindSpec) entryAttrTypes() map[string]attr.Type {
	out := make(map[string]attr.Type, len(k.fields))
	for _, f := range k.fields {
		if f.integer {
			out[f.attr] = types.Int64Type
		} else {
			out[f.attr] = types.StringType
		}
	}
	return out
}

func (k *kindSpec) entryType() types.ObjectType {
	return types.ObjectType{AttrTypes: k.entryAttrTypes()}
}
