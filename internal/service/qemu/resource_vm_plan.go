package qemu

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// modelSource is what plan, state and config have in common.
type modelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// readModel decodes a whole plan, state or config. It fails when a map or
// nested object is not known yet (configuration built from values known
// only after apply); the checks that need it then wait for the apply.
func readModel(ctx context.Context, src modelSource) (*vmModel, bool) {
	var m vmModel
	if diags := src.Get(ctx, &m); diags.HasError() {
		return nil, false
	}
	return &m, true
}

func addIssues(diags *diag.Diagnostics, issues []planIssue) {
	for _, issue := range issues {
		if issue.warning {
			diags.AddAttributeWarning(issue.path, issue.summary, issue.detail)
		} else {
			diags.AddAttributeError(issue.path, issue.summary, issue.detail)
		}
	}
}

// ValidateConfig checks what needs several attributes at once: bus option
// rules (W26), disks without size, slots used twice.
func (r *vmResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := readModel(ctx, req.Config)
	if !ok {
		return
	}
	addIssues(&resp.Diagnostics, checkConfig(m))
}

// ModifyPlan runs the data-loss guard on updates and marks what an update
// may change as unknown: the power status, and the boot order PVE keeps
// when the configuration leaves it to PVE and devices come or go (W28).
func (r *vmResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return
	}
	plan, okPlan := readModel(ctx, req.Plan)
	state, okState := readModel(ctx, req.State)
	if okPlan && okState {
		addIssues(&resp.Diagnostics, checkPlan(state, plan))
	}
	if resp.Diagnostics.HasError() || req.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)

	var configuredOrder types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("boot_order"), &configuredOrder)...)
	if configuredOrder.IsNull() && (!okPlan || !okState || devicesChange(state, plan)) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("boot_order"), types.ListUnknown(types.StringType))...)
	}
}

// devicesChange reports whether disks, CD-ROMs or NICs are added or removed.
func devicesChange(state, plan *vmModel) bool {
	return !sameKeys(state.Disks, plan.Disks) || !sameKeys(state.CDROMs, plan.CDROMs) || !sameKeys(state.Network, plan.Network)
}

func sameKeys[V any](a, b map[string]V) bool {
	return slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
}

// volumeFollowsDisk keeps a disk's volume id in the plan while the disk
// stays in its slot on the same storage. A new disk, or one moving to
// another storage, gets a volume id only after apply (W23).
type volumeFollowsDisk struct{}

func (volumeFollowsDisk) Description(context.Context) string {
	return "Keeps the volume id while the disk stays on the same storage."
}

func (m volumeFollowsDisk) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (volumeFollowsDisk) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.PlanValue.IsUnknown() || req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	storagePath := req.Path.ParentPath().AtName("storage")
	var planned, prior types.String
	if diags := req.Plan.GetAttribute(ctx, storagePath, &planned); diags.HasError() {
		return
	}
	if diags := req.State.GetAttribute(ctx, storagePath, &prior); diags.HasError() {
		return
	}
	if known(planned) && known(prior) && planned.ValueString() == prior.ValueString() {
		resp.PlanValue = req.StateValue
	}
}

// macFollowsState keeps a NIC's MAC address: the prior one when the
// configuration leaves it out, and the prior spelling when the configured
// one differs only in letter case.
type macFollowsState struct{}

func (macFollowsState) Description(context.Context) string {
	return "Keeps the MAC address PVE assigned for the life of the device."
}

func (m macFollowsState) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (macFollowsState) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	if req.ConfigValue.IsNull() {
		if req.PlanValue.IsUnknown() {
			resp.PlanValue = req.StateValue
		}
		return
	}
	if known(req.ConfigValue) && strings.EqualFold(req.ConfigValue.ValueString(), req.StateValue.ValueString()) {
		resp.PlanValue = req.StateValue
	}
}
