package qemu

import (
	"context"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Formats of PVE's schema that the attributes check at plan time.
var (
	// A volume on a storage (not a create form: the volume name has a
	// character other than digits and dots) or an absolute path.
	importSourcePattern = regexp.MustCompile(`^(?:` + wire.StorageIDExpr + `:[^,\s=]*[^0-9.,\s=][^,\s=]*|/[^,\s=]+)$`)
	cdromFilePattern    = regexp.MustCompile(`^(?:none|cdrom|` + wire.StorageIDExpr + `:[^,\s=]*[^0-9.,\s=][^,\s=]*)$`)
	machinePattern      = regexp.MustCompile(`^(?:pc|q35|virt|pc-(?:i440fx|q35)-\d+(?:\.\d+)+(?:\+pve\d+)?|virt-\d+(?:\.\d+)+(?:\+pve\d+)?)(?:\.pxe)?(?:,[a-z0-9-]+=[^,=\s]+)*$`)
	cpuTypePattern      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)
)

// isBootDevice reports whether key may appear in the boot order
// (qemu-server src/PVE/QemuServer.pm, verify_bootdev): a disk or CD-ROM
// slot on one of the four buses, a NIC, or a hostpciN or usbN device. The
// hostpci and usb indexes are left for PVE to check.
func isBootDevice(key string) bool {
	return wire.IsDataDiskSlot(key) || wire.IsNetSlot(key) || isNumbered(key, "hostpci") || isNumbered(key, "usb")
}

// isNumbered reports whether key is prefix followed by one or more digits.
func isNumbered(key, prefix string) bool {
	digits, ok := strings.CutPrefix(key, prefix)
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

var osTypes = []string{"other", "wxp", "w2k", "w2k3", "w2k8", "wvista", "win7", "win8", "win10", "win11", "l24", "l26", "solaris"}

var scsiControllers = []string{"lsi", "lsi53c810", "virtio-scsi-pci", "virtio-scsi-single", "megasas", "pvscsi"}

func vmSchema(ctx context.Context) schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A QEMU virtual machine. Disks, CD-ROMs and network devices are maps keyed by PVE slot (`scsi0`, `ide2`, `net0`). " +
			"Everything PVE can change in place is changed in place: hardware, disks (added, grown, options, moved to another storage), " +
			"network devices, tags, pool, protection, power, and the node (by migration). Plans refuse what would lose data: shrinking a disk, " +
			"moving a live disk between slots, re-importing a live disk. " + guestops.UndeclaredSettings +
			guestops.ReplacesSection(guestops.VM, guestops.VMIDFixed) + guestops.HASection(guestops.VM),
		Attributes: guestops.WithAttributes(guestops.CommonAttributes(ctx, guestops.VM), map[string]schema.Attribute{
			"clone":   guestops.CloneAttribute(guestops.VM),
			"restore": guestops.RestoreAttribute(guestops.VM, "clone"),
			"name": schema.StringAttribute{
				MarkdownDescription: "VM name, a DNS name (letters, digits, `-`, dots between labels).",
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsDNSName, "must be a DNS name: letters, digits and '-', labels separated by '.'")},
			},
			"bios": schema.StringAttribute{
				MarkdownDescription: "Firmware: `seabios` or `ovmf` (UEFI).",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf("seabios", "ovmf")},
			},
			"machine": schema.StringAttribute{
				MarkdownDescription: "Machine type, e.g. `q35`, `pc`, `pc-q35-9.2+pve1`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(machinePattern, "must be a QEMU machine type such as q35, pc or pc-q35-9.2+pve1")},
			},
			"os_type": schema.StringAttribute{
				MarkdownDescription: "Guest OS type, e.g. `l26` (Linux), `win11`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(osTypes...)},
			},
			"scsi_hardware": schema.StringAttribute{
				MarkdownDescription: "SCSI controller. Cloud images need `virtio-scsi-single` (or `virtio-scsi-pci`); `iothread` on scsi disks needs `virtio-scsi-single`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(scsiControllers...)},
			},
			"boot_order": schema.ListAttribute{
				MarkdownDescription: "Devices to boot from, in order (`scsi0`, `ide2`, `net0`). When left out, PVE chooses at creation and the provider keeps PVE's choice.",
				Optional:            true,
				Computed:            true,
				ElementType:         types.StringType,
				PlanModifiers:       []planmodifier.List{listplanmodifier.UseStateForUnknown()},
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(fwutil.Format(isBootDevice, "must be a disk, CD-ROM or network slot such as scsi0, ide2 or net0")),
				},
			},
			"cpu":     cpuSchema(),
			"memory":  memorySchema(),
			"agent":   agentSchema(),
			"disks":   disksSchema(),
			"cdroms":  cdromsSchema(),
			"network": networkSchema(),

			"efi_disk":       efiDiskSchema(),
			"tpm_state":      tpmStateSchema(),
			"pci_devices":    pciDevicesSchema(),
			"usb_devices":    usbDevicesSchema(),
			"virtiofs":       virtiofsSchema(),
			"ipv4_addresses": guestAddressSchema("IPv4"),
			"ipv6_addresses": guestAddressSchema("IPv6"),

			"cloud_init": cloudInitSchema(),
		}),
	}
}

func cpuSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "CPU settings (PVE keys `cores`, `sockets`, `cpu`, `cpuunits`, `cpulimit`, `numa`).",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"cores":   schema.Int64Attribute{MarkdownDescription: "Cores per socket.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"sockets": schema.Int64Attribute{MarkdownDescription: "Sockets.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"type": schema.StringAttribute{
				MarkdownDescription: "CPU model, e.g. `x86-64-v2-AES`, `host`. CPU flags set outside Terraform are kept.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(cpuTypePattern, "must be a CPU model name such as host or x86-64-v2-AES")},
			},
			"units": schema.Int64Attribute{MarkdownDescription: "CPU weight (`cpuunits`).", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 262144)}},
			"limit": schema.Float64Attribute{MarkdownDescription: "CPU limit in cores (`cpulimit`); 0 is no limit.", Optional: true, Validators: []validator.Float64{float64validator.Between(0, 128)}},
			"numa":  schema.BoolAttribute{MarkdownDescription: "Enable NUMA.", Optional: true},
		},
	}
}

func memorySchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Memory in MiB.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"size":    schema.Int64Attribute{MarkdownDescription: "Memory in MiB.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(16)}},
			"balloon": schema.Int64Attribute{MarkdownDescription: "Minimum memory in MiB for the balloon driver; 0 disables ballooning.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)}},
		},
	}
}

func agentSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "QEMU guest agent.",
		Optional:            true,
		Attributes: guestops.WithAttributes(agentWaitAttributes(), map[string]schema.Attribute{
			"enabled": schema.BoolAttribute{MarkdownDescription: "Enable the guest agent channel.", Required: true},
			"trim":    schema.BoolAttribute{MarkdownDescription: "Run fstrim after moving or cloning a disk (`fstrim_cloned_disks`).", Optional: true},
			"type": schema.StringAttribute{
				MarkdownDescription: "Agent transport: `virtio` or `isa`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf("virtio", "isa")},
			},
		}),
	}
}

func disksSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Data disks keyed by slot: `scsi0`-`scsi30`, `virtio0`-`virtio15`, `sata0`-`sata5`, `ide0`-`ide3`. " +
			"A disk keeps its volume for life: options change in place, `size` only grows, `storage` moves the data. " +
			"A disk removed from the map is detached (PVE keeps it as `unusedN`) unless `purge_removed_disks` is true.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsDataDiskSlot, "must be a disk slot: scsi0-scsi30, virtio0-virtio15, sata0-sata5 or ide0-ide3")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: guestops.WithAttributes(guestops.VolumeAttributes(guestops.VolumeSchema{
				Storage: "Storage of the volume. Changing it moves the disk with its data (a new volume id).",
				Size: "Size: a number is GiB (`32`), or give a unit (`\"512M\"`, `\"1.5T\"`). Grows in place; shrinking is refused. " +
					"With `import_from` it may be left out (the image's size) or set to grow the imported disk.",
				SizeOptional: true,
				SizeComputed: true,
				Volume:       "Volume id, e.g. `local-lvm:vm-120-disk-0`. Stays the same for the life of the disk, except after a storage move.",
			}), map[string]schema.Attribute{
				"discard":   schema.BoolAttribute{MarkdownDescription: "Pass discard/TRIM to the storage (`discard=on`; false is `ignore`).", Optional: true},
				"ssd":       schema.BoolAttribute{MarkdownDescription: "Present the disk as an SSD (scsi, sata, ide only).", Optional: true},
				"iothread":  schema.BoolAttribute{MarkdownDescription: "Dedicated IO thread (virtio, scsi only).", Optional: true},
				"backup":    schema.BoolAttribute{MarkdownDescription: "Include the disk in backups.", Optional: true},
				"replicate": schema.BoolAttribute{MarkdownDescription: "Include the disk in replication.", Optional: true},
				"cache": schema.StringAttribute{
					MarkdownDescription: "Cache mode.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.OneOf("none", "writethrough", "writeback", "unsafe", "directsync")},
				},
				"aio": schema.StringAttribute{
					MarkdownDescription: "Asynchronous IO mode.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.OneOf("native", "threads", "io_uring")},
				},
				"import_from": schema.StringAttribute{
					MarkdownDescription: "Seed the new disk from an image, e.g. `local:import/debian-13-genericcloud-amd64.qcow2`. Used only when the disk is created; " +
						"PVE does not report it back, so it is kept as configured. Changing it on an existing disk is refused.",
					Optional:   true,
					Validators: []validator.String{stringvalidator.RegexMatches(importSourcePattern, "must be a volume id (STORAGE:import/FILE) or an absolute path")},
				},
			}),
		},
	}
}

func cdromsSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "CD-ROM drives keyed by slot (`ide0`-`ide3`, `sata0`-`sata5`, `scsi0`-`scsi30`). PVE's cloud-init drive is not listed here.",
		Optional:            true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsCDROMSlot, "must be a CD-ROM slot: ide0-ide3, sata0-sata5 or scsi0-scsi30")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"file": schema.StringAttribute{
					MarkdownDescription: "ISO volume (`local:iso/debian-13-netinst.iso`), `none` for an empty drive, or `cdrom` for the host's drive.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(cdromFilePattern, "must be an ISO volume id (STORAGE:iso/FILE), none or cdrom")},
				},
			},
		},
	}
}

func networkSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Network devices keyed by slot (`net0`-`net31`).",
		Optional:            true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsNetSlot, "must be a network slot: net0-net31")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"model": schema.StringAttribute{
					MarkdownDescription: "NIC model. Defaults to `virtio`.",
					Optional:            true,
					Computed:            true,
					Default:             stringdefault.StaticString(defaultNICModel),
					Validators:          []validator.String{stringvalidator.OneOf(nicModels...)},
				},
				"bridge": schema.StringAttribute{
					MarkdownDescription: "Bridge to attach to: a node bridge such as `vmbr0`, or an SDN VNet's id (`pve_sdn_vnet`'s `vnet`), which must be applied before the guest starts. " +
						"PVE checks `SDN.Use` on `/sdn/zones/ZONE/VNET` (on `/sdn/zones/localnetwork/BRIDGE` for a node bridge).",
					Optional:   true,
					Validators: []validator.String{fwutil.Format(wire.IsBridgeID, "must be a bridge name such as vmbr0")},
				},
				"mac_address": schema.StringAttribute{
					MarkdownDescription: "MAC address. PVE generates one when left out; it is kept for the life of the device.",
					Optional:            true,
					Computed:            true,
					PlanModifiers:       []planmodifier.String{guestops.MACFollowsState()},
					Validators:          []validator.String{fwutil.Format(wire.IsMACAddress, "must be a MAC address such as BC:24:11:2A:3B:4C")},
				},
				"vlan_tag":  schema.Int64Attribute{MarkdownDescription: "VLAN tag.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 4094)}},
				"firewall":  schema.BoolAttribute{MarkdownDescription: "Enable the PVE firewall on this device.", Optional: true},
				"link_down": schema.BoolAttribute{MarkdownDescription: "Disconnect the device.", Optional: true},
				"mtu":       schema.Int64Attribute{MarkdownDescription: "MTU; 1 means the bridge's MTU (virtio only).", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 65520)}},
				"rate":      schema.Float64Attribute{MarkdownDescription: "Rate limit in MB/s.", Optional: true, Validators: []validator.Float64{float64validator.AtLeast(0)}},
				"queues":    schema.Int64Attribute{MarkdownDescription: "Packet queues (virtio multiqueue).", Optional: true, Validators: []validator.Int64{int64validator.Between(0, 64)}},
			},
		},
	}
}
