package lxc

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ resource.ResourceWithMoveState = (*containerResource)(nil)

// Resource types of other Proxmox providers a pve_container takes state
// from.
const (
	bpgContainerType     = "proxmox_virtual_environment_container"
	telmateContainerType = "proxmox_lxc"
)

// MoveState lets a `moved` block take a container over from bpg/proxmox or
// Telmate/proxmox without destroying it. What PVE cannot report
// (os_template (W35), root's password and SSH keys) stays null, as after an
// import: configuring it later only records it and never replaces the
// container.
func (r *containerResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{guestops.GuestMover[containerModel]{
		Kind: guestops.Container,
		From: map[string]func(guestops.SourceState) (containerTranslation, error){
			bpgContainerType:     containerFromBPG,
			telmateContainerType: containerFromTelmate,
		},
		Finish: func(ctx context.Context, m *containerModel) {
			m.Timeouts = guestops.NullTimeouts(containerSchema(ctx))
		},
		Kept: "The container keeps them; secrets are never copied into state.",
	}.StateMover()}
}

// containerTranslation is a source state turned into pve_container's
// model.
type containerTranslation = guestops.Moved[containerModel]

// newMovedContainer is the model of a moved container before the source's
// attributes are translated: identity, and null for every value the next
// refresh fills or only configuration can give.
func newMovedContainer(vmid int64, node string) (*containerModel, error) {
	if err := guestops.CheckMovedIdentity(vmid, node); err != nil {
		return nil, err
	}
	return &containerModel{
		ID:                types.StringValue(strconv.FormatInt(vmid, 10)),
		VMID:              types.Int64Value(vmid),
		Node:              types.StringValue(node),
		Tags:              fwutil.TagSetNull(),
		Memory:            types.ObjectNull(memoryAttrTypes),
		OSTemplate:        types.StringNull(),
		PasswordWO:        types.StringNull(),
		PasswordWOVersion: types.Int64Null(),
		SSHPublicKeys:     types.SetNull(types.StringType),
		PurgeRemovedDisks: types.BoolValue(false),
		RebootAfterUpdate: types.BoolValue(false),
	}, nil
}

func movedMemory(size, swap types.Int64) types.Object {
	if size.IsNull() && swap.IsNull() {
		return types.ObjectNull(memoryAttrTypes)
	}
	return types.ObjectValueMust(memoryAttrTypes, map[string]attr.Value{"size": size, "swap": swap})
}

// movedFeatures is the features object from flags and allowed mount types; nil
// when nothing is on.
func movedFeatures(flags guestops.SourceState, mounts []string) *featuresModel {
	f := &featuresModel{
		Nesting: flags.OnFlag("nesting"),
		Keyctl:  flags.OnFlag("keyctl"),
		Fuse:    flags.OnFlag("fuse"),
		Mknod:   flags.OnFlag("mknod"),
		Mount:   types.SetNull(types.StringType),
	}
	if len(mounts) > 0 {
		f.Mount = stringSet(mounts)
	}
	if f.Nesting.IsNull() && f.Keyctl.IsNull() && f.Fuse.IsNull() && f.Mknod.IsNull() && f.Mount.IsNull() {
		return nil
	}
	return f
}

// sourceVolumeIDPattern is an existing volume, STORAGE:NAME: bpg's mount_point
// volume holds one once PVE allocated it.
var sourceVolumeIDPattern = regexp.MustCompile(`^(` + wire.StorageIDExpr + `):(.+)$`)

// sourceMountTarget sorts a source mount point's volume into a storage or a bind
// mount's host path.
func sourceMountTarget(volume string) (storage, hostPath types.String) {
	switch {
	case strings.HasPrefix(volume, "/"):
		return types.StringNull(), types.StringValue(volume)
	case sourceVolumeIDPattern.MatchString(volume):
		return types.StringValue(sourceVolumeIDPattern.FindStringSubmatch(volume)[1]), types.StringNull()
	default:
		return types.StringValue(volume), types.StringNull()
	}
}

// movedAddress is one address family of a NIC; nil when neither address nor
// gateway is set.
func movedAddress(addr, gateway types.String) *ipModel {
	if addr.IsNull() && gateway.IsNull() {
		return nil
	}
	return &ipModel{Address: addr, Gateway: gateway}
}

// movedDNS is the dns object; nil when neither is set.
func movedDNS(domain types.String, servers []string) *dnsModel {
	if domain.IsNull() && len(servers) == 0 {
		return nil
	}
	d := &dnsModel{Domain: domain, Servers: types.ListNull(types.StringType)}
	if len(servers) > 0 {
		d.Servers = stringList(servers)
	}
	return d
}

// movedConsole is the console object; nil when nothing is set.
func movedConsole(enabled types.Bool, mode types.String, ttys types.Int64) *consoleModel {
	if enabled.IsNull() && mode.IsNull() && ttys.IsNull() {
		return nil
	}
	return &consoleModel{Enabled: enabled, Mode: mode, TTYs: ttys}
}

// ttysUnlessDefault is the tty count, null when it is PVE's default of 2.
func ttysUnlessDefault(src guestops.SourceState, key string) types.Int64 {
	if n, ok := src.Integer(key); ok && n >= 0 && n != pveDefaultTTYs {
		return types.Int64Value(n)
	}
	return types.Int64Null()
}

const pveDefaultTTYs = 2

func splitSourceList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' })
}
