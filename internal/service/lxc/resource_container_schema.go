package lxc

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Formats of PVE's schema that the container attributes check at plan
// time.
var (
	// A template archive on a storage: STORAGE:vztmpl/FILE.
	osTemplatePattern = regexp.MustCompile(`^` + wire.StorageIDExpr + `:vztmpl/[^,\s=/]+$`)
	hostPathPattern   = regexp.MustCompile(`^/[^,\s=]*$`)
	guestPathPattern  = regexp.MustCompile(`^/[^,\s=]*$`)
	nicNamePattern    = regexp.MustCompile(`^[-_.\w]+$`)
	fsTypePattern     = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)
	ipPattern         = regexp.MustCompile(`^(?:(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*)$`)
)

var consoleModes = []string{"tty", "console", "shell"}

func containerSchema(ctx context.Context) schema.Schema {
	return schema.Schema{
		MarkdownDescription: "An LXC container. Mount points and network devices are maps keyed by PVE slot (`mp0`, `net0`). " +
			"Everything PVE can change in place is changed in place: CPU, memory, network devices and their addresses, mount point options and paths, " +
			"new mount points, volume growth and storage moves, features, DNS, console, tags, pool, protection, power, and the node (by migration). " +
			"`unprivileged` and `vmid` are fixed at creation (changing them replaces the container); `os_template`, `clone` and `restore` only say how it is created, " +
			"and changing them is only recorded; root's password and SSH keys are applied only then. " +
			"Plans refuse what would lose data (shrinking a volume, moving a mount point between slots, re-pointing a bind mount) " +
			"and, under an API token, what PVE reserves to root@pam (feature flags other than nesting, bind mounts). " + guestops.UndeclaredSettings +
			guestops.ReplacesSection(guestops.Container, guestops.VMIDFixed, unprivilegedFixed) + guestops.HASection(guestops.Container),
		Attributes: guestops.WithAttributes(guestops.CommonAttributes(ctx, guestops.Container), map[string]schema.Attribute{
			"clone":   guestops.CloneAttribute(guestops.Container),
			"restore": guestops.RestoreAttribute(guestops.Container, "clone", "os_template"),
			"hostname": schema.StringAttribute{
				MarkdownDescription: "Host name, a DNS name. When left out PVE names the container `CT<vmid>`, which is then reported here.",
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				Validators: []validator.String{
					stringvalidator.LengthAtMost(255),
					fwutil.Format(wire.IsDNSName, "must be a DNS name: letters, digits and '-', labels separated by '.'"),
				},
			},
			"os_template": schema.StringAttribute{
				MarkdownDescription: "Template archive the container is created from, e.g. `local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst`. " +
					"Required to create a container. PVE does not report it back: it is kept as configured. PVE unpacks it only when it creates a container, " +
					"so changing or removing it is only recorded (an update that sends nothing to PVE, with a plan warning): it affects only a container created from now on.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{osTemplateRecorded()},
				Validators:    []validator.String{stringvalidator.RegexMatches(osTemplatePattern, "must be a container template volume: STORAGE:vztmpl/FILE")},
			},
			"unprivileged": schema.BoolAttribute{
				MarkdownDescription: "Run the container unprivileged (user namespaces). Fixed at creation: changing it replaces the container, and the plan warns first, naming the volumes destroyed. " +
					"When left out, a container created from a template is unprivileged on every PVE version: the provider sends `unprivileged = true` " +
					"(PVE 9's default; PVE 8 would create a privileged container). A clone or restore keeps the value of its source, " +
					"and an existing or imported container keeps the value PVE reports, so a container created privileged earlier is not replaced.",
				Optional: true,
				Computed: true,
				PlanModifiers: []planmodifier.Bool{
					boolplanmodifier.UseStateForUnknown(),
					unprivilegedByDefault(),
					boolplanmodifier.RequiresReplaceIfConfigured(),
				},
			},
			"cpu": schema.SingleNestedAttribute{
				MarkdownDescription: "CPU settings (PVE keys `cores`, `cpulimit`, `cpuunits`).",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"cores": schema.Int64Attribute{MarkdownDescription: "Cores the container may use; all of the node's when left out.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 8192)}},
					"limit": schema.Float64Attribute{MarkdownDescription: "CPU limit in cores (`cpulimit`); 0 is no limit.", Optional: true, Validators: []validator.Float64{float64validator.Between(0, 8192)}},
					"units": schema.Int64Attribute{
						MarkdownDescription: "CPU weight (`cpuunits`). PVE 9 (cgroup v2) caps it at 10000.",
						Optional:            true,
						Validators:          []validator.Int64{int64validator.Between(1, 10000)},
					},
				},
			},
			"memory": schema.SingleNestedAttribute{
				MarkdownDescription: "Memory in MiB. PVE writes its defaults (512 MiB, 512 MiB swap) at creation when they are left out; they are reported here.",
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]schema.Attribute{
					"size": schema.Int64Attribute{
						MarkdownDescription: "Memory in MiB.",
						Optional:            true,
						Computed:            true,
						PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
						Validators:          []validator.Int64{int64validator.AtLeast(16)},
					},
					"swap": schema.Int64Attribute{
						MarkdownDescription: "Swap in MiB; 0 for none.",
						Optional:            true,
						Computed:            true,
						PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
						Validators:          []validator.Int64{int64validator.AtLeast(0)},
					},
				},
			},
			"root_disk":    rootDiskSchema(),
			"mount_points": mountPointsSchema(),
			"network":      networkSchema(),
			"devices":      devicesSchema(),
			"features":     featuresSchema(),
			"dns":          dnsSchema(),
			"console":      consoleSchema(),
			"password_wo": schema.StringAttribute{
				MarkdownDescription: "Root's password, set when the container is created. Write-only: it never reaches state or plan output. " +
					"Changing it later does nothing; see `password_wo_version`.",
				Optional:   true,
				Sensitive:  true,
				WriteOnly:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(5)},
			},
			"password_wo_version": schema.Int64Attribute{
				MarkdownDescription: "A number to change together with `password_wo`. PVE applies the password only at creation: a new version is recorded " +
					"and the plan warns that the running container keeps its password.",
				Optional: true,
			},
			"ssh_public_keys": schema.SetAttribute{
				MarkdownDescription: "SSH public keys for root, written into the container when it is created. A value may hold several keys, " +
					"one per line, and end with a newline (as `file()` of an authorized_keys file returns it). A later change is recorded " +
					"and the plan warns that the container keeps the keys it has.",
				Optional:    true,
				ElementType: types.StringType,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(sshKeyLines{}),
				},
			},
		}),
	}
}

// sshKeyPattern is one public key line: a type, base64 data, an optional
// comment.
var sshKeyPattern = regexp.MustCompile(`^(?:[a-z0-9@.-]+ )?(?:ssh|ecdsa|sk)-[a-zA-Z0-9@.-]+ [A-Za-z0-9+/=]+(?: [^\r\n]*)?$`)

// sshKeyLines checks an element of ssh_public_keys as an authorized_keys
// file is read: each non-blank line one key, so what file() returns (with
// its final newline, or several keys) is accepted as pve_vm accepts it.
type sshKeyLines struct{}

func (sshKeyLines) Description(context.Context) string {
	return "must be one SSH public key per line, such as \"ssh-ed25519 AAAA... me@host\""
}

func (v sshKeyLines) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v sshKeyLines) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !guestops.Known(req.ConfigValue) {
		return
	}
	lines := wire.SSHKeyLines([]string{req.ConfigValue.ValueString()})
	if len(lines) == 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid SSH Public Key", "The value holds no key: it "+v.Description(ctx)+".")
	}
	for _, line := range lines {
		if !sshKeyPattern.MatchString(line) {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid SSH Public Key",
				fmt.Sprintf("%q is not an SSH public key: the value %s.", line, v.Description(ctx)))
		}
	}
}

func rootDiskSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "The root file system (`rootfs`). It keeps its volume for life: `size` only grows, `storage` moves the data (the container stops for it). " +
			"Required unless the container is a `clone`, which inherits its source's, or a `restore`, which gets the size the backup archive recorded.",
		Optional: true,
		Attributes: guestops.VolumeAttributes(guestops.VolumeSchema{
			Storage: "Storage of the volume; it needs `rootdir` content. Changing it moves the volume with its data (a new volume id).",
			Size:    "Size: a number is GiB (`8`), or give a unit (`\"512M\"`). Grows in place; shrinking is refused.",
			Volume:  "Volume id, e.g. `local-lvm:vm-130-disk-0`. Stays the same for the life of the container, except after a storage move.",
		}),
	}
}

func mountPointsSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Mount points keyed by slot (`mp0`-`mp255`): a volume PVE allocates on `storage`, or a bind mount of `host_path`. " +
			"A volume keeps its id for life: options and `path` change in place, `size` only grows, `storage` moves the data. " +
			"A volume mount point removed from the map is detached (PVE keeps it as `unusedN`) unless `purge_removed_disks` is true. " +
			"Bind mounts need a password login as root@pam, and a live bind mount is never re-pointed.",
		Optional: true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsMountPointSlot, "must be a mount point slot: mp0-mp255")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: guestops.WithAttributes(guestops.VolumeAttributes(guestops.VolumeSchema{
				Storage:         "Storage of a volume mount point (with `rootdir` content). Changing it moves the volume with its data. Exclusive with `host_path`.",
				StorageOptional: true,
				Size:            "Size of a volume mount point: a number is GiB (`10`), or give a unit (`\"512M\"`). Grows in place; shrinking is refused.",
				SizeOptional:    true,
				Volume:          "Volume id of a volume mount point, e.g. `local-lvm:vm-130-disk-1`; null for a bind mount.",
			}), map[string]schema.Attribute{
				"host_path": schema.StringAttribute{
					MarkdownDescription: "Directory of the node to bind into the container. Needs root@pam with a password. Exclusive with `storage`; never re-pointed once created.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(hostPathPattern, "must be an absolute path without commas or spaces")},
				},
				"path": schema.StringAttribute{
					MarkdownDescription: "Where the mount point appears in the container, e.g. `/data`. Changes in place.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(guestPathPattern, "must be an absolute path without commas or spaces")},
				},
				"backup":    schema.BoolAttribute{MarkdownDescription: "Include the volume in backups.", Optional: true},
				"read_only": schema.BoolAttribute{MarkdownDescription: "Mount read-only (`ro`).", Optional: true},
				"acl":       schema.BoolAttribute{MarkdownDescription: "Enable POSIX ACLs (false disables them; left out, the file system's default).", Optional: true},
				"quota":     schema.BoolAttribute{MarkdownDescription: "Enable user quotas; privileged containers only.", Optional: true},
				"replicate": schema.BoolAttribute{MarkdownDescription: "Include the volume in replication.", Optional: true},
				"shared": schema.BoolAttribute{
					MarkdownDescription: "Mark a bind mount as available on every node, so the container can migrate with it.",
					Optional:            true,
				},
			}),
		},
	}
}

func ipSchema(family wire.IPFamily, addressForms string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: fmt.Sprintf("IPv%d settings, written inline on the device.", family),
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"address": schema.StringAttribute{
				MarkdownDescription: "Address: " + addressForms + ".",
				Optional:            true,
				Validators:          []validator.String{fwutil.IPConfig(family)},
			},
			"gateway": schema.StringAttribute{
				MarkdownDescription: "Default gateway.",
				Optional:            true,
				Validators:          []validator.String{fwutil.IPAddress(family)},
			},
		},
	}
}

func networkSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Network devices keyed by slot (`net0`-`net31`), with their addresses.",
		Optional:            true,
		Validators: []validator.Map{
			mapvalidator.SizeAtLeast(1),
			mapvalidator.KeysAre(fwutil.Format(wire.IsNetSlot, "must be a network slot: net0-net31")),
		},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					MarkdownDescription: "Interface name inside the container, e.g. `eth0`.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(nicNamePattern, "must be an interface name such as eth0")},
				},
				"bridge": schema.StringAttribute{
					MarkdownDescription: "Bridge to attach to: a node bridge such as `vmbr0`, or an SDN VNet's id (`pve_sdn_vnet`'s `vnet`), which must be applied before the guest starts. " +
						"PVE checks `SDN.Use` on `/sdn/zones/ZONE/VNET` (on `/sdn/zones/localnetwork/BRIDGE` for a node bridge).",
					Optional:   true,
					Validators: []validator.String{fwutil.Format(wire.IsBridgeID, "must be a bridge name such as vmbr0")},
				},
				"vlan_tag": schema.Int64Attribute{MarkdownDescription: "VLAN tag.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 4094)}},
				"firewall": schema.BoolAttribute{MarkdownDescription: "Enable the PVE firewall on this device.", Optional: true},
				"mac_address": schema.StringAttribute{
					MarkdownDescription: "MAC address (`hwaddr`). PVE generates one when left out; it is kept for the life of the device.",
					Optional:            true,
					Computed:            true,
					PlanModifiers:       []planmodifier.String{guestops.MACFollowsState()},
					Validators:          []validator.String{fwutil.Format(wire.IsMACAddress, "must be a MAC address such as BC:24:11:2A:3B:4C")},
				},
				"mtu":  schema.Int64Attribute{MarkdownDescription: "MTU; at most the bridge's.", Optional: true, Validators: []validator.Int64{int64validator.Between(64, 65535)}},
				"rate": schema.Float64Attribute{MarkdownDescription: "Rate limit in MB/s.", Optional: true, Validators: []validator.Float64{float64validator.AtLeast(0)}},
				"ipv4": ipSchema(wire.IPv4, "dhcp, manual or an address with prefix length (8-32) such as 10.0.0.6/24"),
				"ipv6": ipSchema(wire.IPv6, "auto (SLAAC), dhcp, manual or an address with prefix length (8-128) such as fd00::6/64"),
			},
		},
	}
}

func featuresSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Container features, PVE's composite `features` key. In a declared `features`, a flag left out, or false, is off, " +
			"and every flag is reported (`false` when off): `features = { keyctl = false }` and a container without features agree. " +
			"Left out entirely, the container's features are left to PVE: never written, and no change is planned for them. " +
			"Only root@pam with a password may change flags other than `nesting` (and, in a privileged container, `nesting` too); " +
			"flags set by root are read under a token like any other.",
		Optional:      true,
		Computed:      true,
		PlanModifiers: []planmodifier.Object{featuresFollowState{}},
		Attributes: map[string]schema.Attribute{
			"nesting": featureFlag("Allow nested containers (and systemd's sandboxing in recent distributions)."),
			"keyctl":  featureFlag("Allow the keyctl() system call (unprivileged containers; Docker needs it). root@pam only."),
			"fuse":    featureFlag("Allow FUSE mounts. root@pam only."),
			"mknod":   featureFlag("Allow mknod() of a safe set of devices (experimental in PVE). root@pam only."),
			"mount": schema.SetAttribute{
				MarkdownDescription: "File system types the container may mount, e.g. `[\"nfs\", \"cifs\"]`. root@pam only.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Set{setvalidator.ValueStringsAre(stringvalidator.RegexMatches(fsTypePattern, "must be a file system type such as nfs"))},
			},
		},
	}
}

func featureFlag(description string) schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Computed:            true,
		PlanModifiers:       []planmodifier.Bool{flagOffWhenUnset{}},
	}
}

func dnsSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "DNS settings the container gets (PVE keys `searchdomain`, `nameserver`); left out, it uses the node's.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"domain": schema.StringAttribute{
				MarkdownDescription: "Search domain.",
				Optional:            true,
				Validators:          []validator.String{fwutil.Format(wire.IsDNSName, "must be a DNS name")},
			},
			"servers": schema.ListAttribute{
				MarkdownDescription: "Name server addresses, in order.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.ValueStringsAre(stringvalidator.RegexMatches(ipPattern, "must be an IPv4 or IPv6 address")),
				},
			},
		},
	}
}

func consoleSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Console settings (PVE keys `console`, `cmode`, `tty`).",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"enabled": schema.BoolAttribute{MarkdownDescription: "Attach a console device.", Optional: true},
			"mode": schema.StringAttribute{
				MarkdownDescription: "Console mode: `tty`, `console` or `shell`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(consoleModes...)},
			},
			"ttys": schema.Int64Attribute{
				MarkdownDescription: "Number of ttys (`tty`), 0-6.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(0, 6)},
			},
		},
	}
}
