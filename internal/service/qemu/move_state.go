package qemu

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

var _ resource.ResourceWithMoveState = (*vmResource)(nil)

// Resource types of other Proxmox providers a pve_vm takes state from.
const (
	bpgVMType     = "proxmox_virtual_environment_vm"
	telmateVMType = "proxmox_vm_qemu"
)

// MoveState lets a `moved` block take a VM over from bpg/proxmox or
// Telmate/proxmox without destroying it.
func (r *vmResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{guestops.GuestMover[vmModel]{
		Kind: guestops.VM,
		From: map[string]func(guestops.SourceState) (vmTranslation, error){
			bpgVMType:     vmFromBPG,
			telmateVMType: vmFromTelmate,
		},
		Finish: func(ctx context.Context, m *vmModel) {
			m.Timeouts = guestops.NullTimeouts(vmSchema(ctx))
		},
		Kept: "They stay as they are on the VM. Secrets are never copied: declare cloud_init.password_wo with a new " +
			"password_wo_version to set a password again.",
	}.StateMover()}
}

// vmTranslation is a source state turned into pve_vm's model.
type vmTranslation = guestops.Moved[vmModel]

// newMovedVM is the model of a moved VM before the source's attributes are
// translated: identity, and null for every value the next refresh fills.
// status stays null so that the refresh, like an import's, takes every PCI
// device the VM has.
func newMovedVM(vmid int64, node string) (*vmModel, error) {
	if err := guestops.CheckMovedIdentity(vmid, node); err != nil {
		return nil, err
	}
	return &vmModel{
		ID:                types.StringValue(strconv.FormatInt(vmid, 10)),
		VMID:              types.Int64Value(vmid),
		Node:              types.StringValue(node),
		Tags:              fwutil.TagSetNull(),
		BootOrder:         types.ListNull(types.StringType),
		IPv4Addresses:     addressList(nil),
		IPv6Addresses:     addressList(nil),
		PurgeRemovedDisks: types.BoolValue(false),
		RebootAfterUpdate: types.BoolValue(false),
	}, nil
}

// sourceList is a string list, null when empty.
func sourceList(items []string) types.List {
	if len(items) == 0 {
		return types.ListNull(types.StringType)
	}
	return stringList(items)
}

// sourceGiB is a size given in whole GiB, as bpg/proxmox keeps it.
func sourceGiB(src guestops.SourceState, key string) fwutil.SizeValue {
	if gib, ok := src.Positive(key); ok {
		return fwutil.SizeFromString(strconv.FormatInt(gib, 10))
	}
	return fwutil.SizeNull()
}

// newMovedCloudInit is an empty cloud_init object with the schema's defaults.
func newMovedCloudInit() *cloudInitModel {
	return &cloudInitModel{
		Storage:           types.StringNull(),
		Slot:              types.StringValue(defaultCloudInitSlot),
		User:              types.StringNull(),
		PasswordWO:        types.StringNull(),
		PasswordWOVersion: types.Int64Null(),
		SSHKeys:           types.ListNull(types.StringType),
		Upgrade:           types.BoolNull(),
		UserData:          types.StringNull(),
		VendorData:        types.StringNull(),
		NetworkConfig:     types.StringNull(),
		SeedStorage:       types.StringNull(),
		SeedSlot:          types.StringValue(defaultSeedSlot),
		SeedSHA256:        types.StringNull(),
	}
}

// isEmpty reports whether ci carries nothing: then the VM has no
// cloud_init object.
func (ci *cloudInitModel) isEmpty() bool {
	return ci.Storage.IsNull() && ci.User.IsNull() && ci.SSHKeys.IsNull() && ci.DNS == nil &&
		len(ci.IPConfig) == 0 && ci.Upgrade.IsNull()
}

// newMovedAgent is an agent object with the provider-side options at their
// defaults.
func newMovedAgent(enabled bool) *agentModel {
	return &agentModel{
		Enabled:   types.BoolValue(enabled),
		Trim:      types.BoolNull(),
		Type:      types.StringNull(),
		WaitForIP: types.BoolValue(false),
		Timeout:   types.StringValue(defaultAgentTimeoutText),
	}
}

// sourceNICModel is a NIC model, virtio (the schema's default) when the
// source has none.
func sourceNICModel(src guestops.SourceState, key string) types.String {
	if model, ok := src.Str(key); ok {
		return types.StringValue(model)
	}
	return types.StringValue(defaultNICModel)
}
