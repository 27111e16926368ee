package qemu

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	// pciMappingPattern is PVE's configuration id (pve-configid).
	pciMappingPattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]*$`)
	mdevTypePattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	durationPattern   = regexp.MustCompile(`^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$`)
)

func efiDiskSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "UEFI variable store (`efidisk0`), for `bios = \"ovmf\"`. Added in place to an existing VM. " +
			"`pre_enrolled_keys` (Secure Boot with the distribution and Microsoft keys) changes in place on the same volume; " +
			"PVE's `ms-cert` record is kept as PVE wrote it. Changing `type` is refused: it would need a new store and lose the EFI variables. " +
			"Removing `efi_disk` detaches the volume (PVE keeps it as `unusedN`) unless `purge_removed_disks` is true.",
		Optional: true,
		Attributes: guestops.WithAttributes(guestops.VolumeAttributes(guestops.VolumeSchema{
			Storage: "Storage of the EFI variable store. Changing it moves the volume with its data.",
			Volume:  "Volume id of the store.",
		}), map[string]schema.Attribute{
			"type": schema.StringAttribute{
				MarkdownDescription: "Store size: `4m` (needed for Secure Boot) or `2m`. When left out a new store is `4m`, and an existing one keeps its type.",
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseNonNullStateForUnknown()},
				Validators:          []validator.String{stringvalidator.OneOf("2m", "4m")},
			},
			"pre_enrolled_keys": schema.BoolAttribute{
				MarkdownDescription: "Enrol the distribution's and Microsoft's Secure Boot keys (`pre-enrolled-keys`). Defaults to false.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
		}),
	}
}

func tpmStateSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Virtual TPM state (`tpmstate0`). Added in place to an existing VM; a storage change moves the volume with the TPM's secrets. " +
			"Changing `version` is refused: it would need a new TPM volume and lose the secrets sealed in it. " +
			"Removing `tpm_state` detaches the volume (PVE keeps it as `unusedN`) unless `purge_removed_disks` is true.",
		Optional: true,
		Attributes: guestops.WithAttributes(guestops.VolumeAttributes(guestops.VolumeSchema{
			Storage: "Storage of the TPM state. Changing it moves the volume with its data.",
			Volume:  "Volume id of the TPM state.",
		}), map[string]schema.Attribute{
			"version": schema.StringAttribute{
				MarkdownDescription: "TPM version: `v2.0` (default) or `v1.2`. Fixed for the life of the TPM.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("v2.0"),
				Validators:          []validator.String{stringvalidator.OneOf("v1.2", "v2.0")},
			},
		}),
	}
}

func pciDevicesSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "PCI passthrough devices keyed by slot (`hostpci0`-`hostpci15`). Give either `device` (a host PCI address; needs the provider " +
			"to log in as root@pam with a password, PVE refuses it to API tokens) or `mapping` (a PCI resource mapping; works with a token holding " +
			"`Mapping.Use`). Addresses are compared in every form PVE accepts (`0000:17:00.0`, `17:00.0`, any case). Devices on the VM that the " +
			"configuration does not declare are reported as a warning and never removed.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsHostPCISlot, "must be a PCI slot: hostpci0-hostpci15")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"device": schema.StringAttribute{
					MarkdownDescription: "Host PCI address, e.g. `0000:01:00.0`; without function (`0000:01:00`) all functions; several joined by `;`.",
					Optional:            true,
					Validators: []validator.String{
						stringvalidator.RegexMatches(pciDevicePattern, "must be a host PCI address such as 0000:01:00.0 or 01:00.0"),
						stringvalidator.ExactlyOneOf(path.MatchRelative().AtParent().AtName("mapping")),
					},
				},
				"mapping": schema.StringAttribute{
					MarkdownDescription: "Name of a PCI resource mapping (Datacenter > Resource Mappings).",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(pciMappingPattern, "must be a resource mapping id")},
				},
				"pcie":   schema.BoolAttribute{MarkdownDescription: "Present the device on a PCI Express port (needs `machine = \"q35\"`).", Optional: true},
				"x_vga":  schema.BoolAttribute{MarkdownDescription: "Make the device the VM's primary GPU (`x-vga`).", Optional: true},
				"rombar": schema.BoolAttribute{MarkdownDescription: "Expose the device's ROM to the guest.", Optional: true},
				"mdev": schema.StringAttribute{
					MarkdownDescription: "Mediated device type, e.g. `nvidia-63`.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(mdevTypePattern, "must be a mediated device type")},
				},
			},
		},
	}
}

// guestAddressSchema is ipv4_addresses or ipv6_addresses.
func guestAddressSchema(family string) schema.ListAttribute {
	return schema.ListAttribute{
		MarkdownDescription: "The guest's " + family + " addresses as its guest agent reports them, loopback and link-local left out. " +
			"Filled when an apply creates, starts or changes the VM with the agent enabled (see `agent.wait_for_ip`); a refresh never asks the agent.",
		Computed:      true,
		ElementType:   types.StringType,
		PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
	}
}

// agentWaitAttributes are the agent's provider-side settings.
func agentWaitAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"wait_for_ip": schema.BoolAttribute{
			MarkdownDescription: "After creating or starting the VM, wait until the agent reports an address (up to `timeout`). Defaults to false: the agent is asked once.",
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(false),
		},
		"timeout": schema.StringAttribute{
			MarkdownDescription: "How long `wait_for_ip` waits, a duration such as `5m` or `90s`. Defaults to `5m`.",
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString(defaultAgentTimeoutText),
			Validators:          []validator.String{stringvalidator.RegexMatches(durationPattern, "must be a duration such as 5m or 90s")},
		},
	}
}

func usbDevicesSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "USB devices keyed by slot (`usb0`-`usb14`; PVE allows slots above `usb4` only with machine version 7.1 or newer " +
			"and a Linux or Windows 8+ OS type). Give either `mapping` (a USB resource mapping, e.g. a `pve_usb_mapping`; works with an API token " +
			"holding `Mapping.Use` on `/mapping/usb/NAME`) or `host` (a host device; PVE lets only root@pam logging in with a password set, change " +
			"or remove one, so a plan under any other identity is refused). Removing a slot from the map removes the device from the VM; " +
			"USB devices the configuration never declared are left alone.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsUSBSlot, "must be a USB slot: usb0-usb14")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"mapping": schema.StringAttribute{
					MarkdownDescription: "Name of a USB resource mapping (Datacenter > Resource Mappings).",
					Optional:            true,
					Validators: []validator.String{
						stringvalidator.RegexMatches(pciMappingPattern, "must be a resource mapping id"),
						stringvalidator.ExactlyOneOf(path.MatchRelative().AtParent().AtName("host")),
					},
				},
				"host": schema.StringAttribute{
					MarkdownDescription: "Host USB device: a vendor:product id (`046d:c52b`), a bus-port (`1-2.3`), or `spice` for a SPICE " +
						"USB redirection channel. A host device needs the provider to log in as root@pam with a password; `spice` does not. " +
						"Ids are compared in any case and with or without `0x`.",
					Optional: true,
					Validators: []validator.String{
						fwutil.Format(func(s string) bool { return s == "spice" || wire.USBHostDevicePattern.MatchString(s) },
							"must be a vendor:product id such as 046d:c52b, a bus-port such as 1-2.3, or spice"),
					},
				},
				"usb3": schema.BoolAttribute{MarkdownDescription: "Attach the device to a USB 3 (xHCI) controller.", Optional: true},
			},
		},
	}
}

func virtiofsSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Directories shared with the guest through virtio-fs, keyed by slot (`virtiofs0`-`virtiofs9`). Each names a " +
			"directory resource mapping (e.g. a `pve_dir_mapping`); the provider's identity needs `VM.Config.Disk` on the VM and " +
			"`Mapping.Use` on `/mapping/dir/NAME`. The guest mounts the share by the mapping's name as its tag. Removing a slot from the map " +
			"removes the share from the VM; shares the configuration never declared are left alone.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsVirtiofsSlot, "must be a virtiofs slot: virtiofs0-virtiofs9")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"mapping": schema.StringAttribute{
					MarkdownDescription: "Name of the directory resource mapping to share.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(pciMappingPattern, "must be a resource mapping id")},
				},
				"cache": schema.StringAttribute{
					MarkdownDescription: "Caching policy: `auto` (PVE's default when unset), `always`, `metadata` or `never`.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.OneOf(wire.VirtiofsCacheModes...)},
				},
				"expose_xattr": schema.BoolAttribute{MarkdownDescription: "Expose extended attributes to the guest (`expose-xattr`).", Optional: true},
				"expose_acl": schema.BoolAttribute{
					MarkdownDescription: "Expose POSIX ACLs to the guest (`expose-acl`); implies extended attributes.",
					Optional:            true,
				},
				"direct_io": schema.BoolAttribute{MarkdownDescription: "Honour the guest's O_DIRECT flag (`direct-io`).", Optional: true},
			},
		},
	}
}
