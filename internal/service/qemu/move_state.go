package qemu

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
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
// Telmate/proxmox without destroying it. The source state is translated
// attribute by attribute; the refresh that follows the move reads every
// value PVE reports, so the translation only has to name the guest
// (vmid and node) correctly and carry what PVE cannot report back.
func (r *vmResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: moveVMState}}
}

// vmTranslation is a source state turned into pve_vm's model, with the
// source attributes whose values neither the model nor PVE can carry.
type vmTranslation struct {
	model   *vmModel
	dropped []string
}

func moveVMState(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	var translate func(guestops.SourceState) (vmTranslation, error)
	switch {
	case !fromProxmoxProvider(req.SourceProviderAddress):
		return
	case req.SourceTypeName == bpgVMType:
		translate = vmFromBPG
	case req.SourceTypeName == telmateVMType:
		translate = vmFromTelmate
	default:
		// Not a source this resource knows: the framework reports that no
		// mover took it.
		return
	}
	if req.SourceRawState == nil {
		resp.Diagnostics.AddError("Unable To Move VM State", "Terraform sent no state for "+req.SourceTypeName+".")
		return
	}
	src, err := guestops.DecodeSourceState(req.SourceRawState.JSON)
	var moved vmTranslation
	if err == nil {
		moved, err = translate(src)
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable To Move VM State",
			fmt.Sprintf("The state of %s cannot be read as a VM: %s. Remove it from state with `terraform state rm` and import the VM instead.", req.SourceTypeName, err))
		return
	}
	moved.model.Timeouts = timeouts.Value{Object: types.ObjectNull(timeoutAttrTypes(ctx))}
	resp.Diagnostics.Append(resp.TargetState.Set(ctx, moved.model)...)
	addDroppedWarning(resp, req.SourceTypeName, moved.dropped)
}

// fromProxmoxProvider accepts the registry addresses of bpg/proxmox and
// Telmate/proxmox, and of their forks and mirrors, which keep the provider
// type "proxmox" and the resource type names the translation reads.
func fromProxmoxProvider(address string) bool {
	parts := strings.Split(strings.ToLower(address), "/")
	return parts[len(parts)-1] == "proxmox"
}

func addDroppedWarning(resp *resource.MoveStateResponse, source string, dropped []string) {
	if len(dropped) == 0 {
		return
	}
	resp.Diagnostics.AddWarning("Source Values Not Carried Over",
		fmt.Sprintf("%s has values that pve_vm does not keep in state and PVE does not report: %s. "+
			"They stay as they are on the VM. Secrets are never copied: declare cloud_init.password_wo with a new "+
			"password_wo_version to set a password again.", source, strings.Join(dropped, ", ")))
}

func timeoutAttrTypes(ctx context.Context) map[string]attr.Type {
	if typ, ok := vmSchema(ctx).Attributes["timeouts"].GetType().(attr.TypeWithAttributeTypes); ok {
		return typ.AttributeTypes()
	}
	return map[string]attr.Type{}
}

// newMovedVM is the model of a moved VM before the source's attributes are
// translated: identity, and null for every value the next refresh fills.
// status stays null so that the refresh, like an import's, takes every PCI
// device the VM has.
func newMovedVM(vmid int64, node string) (*vmModel, error) {
	if vmid < 100 {
		return nil, fmt.Errorf("no VMID in the source state")
	}
	if node == "" {
		return nil, fmt.Errorf("no node in the source state")
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

// sourceTags is a tag set without duplicates; nil when there are no tags.
func sourceTags(tags []string) fwutil.TagSetValue {
	var unique []string
	for _, tag := range tags {
		if tag = strings.TrimSpace(tag); tag != "" && !slices.Contains(unique, tag) {
			unique = append(unique, tag)
		}
	}
	if len(unique) == 0 {
		return fwutil.TagSetNull()
	}
	return fwutil.TagSetOf(unique)
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

// sourceUnitSize is a size with a unit ("32G", "512M"), as Telmate/proxmox keeps
// it, spelled the way configuration writes it ("32" for whole GiB).
func sourceUnitSize(src guestops.SourceState, key string) fwutil.SizeValue {
	raw, ok := src.Str(key)
	if !ok {
		return fwutil.SizeNull()
	}
	bytes, err := fwutil.ParseSizeAttribute(raw)
	if err != nil || bytes <= 0 {
		return fwutil.SizeNull()
	}
	return fwutil.SizeFromString(fwutil.FormatSizeAttribute(bytes))
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
