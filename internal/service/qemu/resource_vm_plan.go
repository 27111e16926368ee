package qemu

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// CheckConfig checks what needs several attributes at once: bus option
// rules (W26), disks without size, slots used twice, cloud-init and input
// devices.
func (r *vmResource) CheckConfig(m *vmModel) []guestops.Issue {
	return slices.Concat(checkConfig(m), checkCloudInit(m), checkInputs(m))
}

// ModifyPlan runs the data-loss guard on updates and marks what an update
// may change as unknown: the power status, and the boot order PVE keeps
// when the configuration leaves it to PVE and devices come or go (W28).
func (r *vmResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.api.RefuseTurnedTemplate(ctx, req.Private, &resp.Diagnostics) {
		return
	}
	if req.Plan.Raw.IsNull() {
		r.api.WarnDestroyPlan(ctx, req.State, req.Private, &resp.Diagnostics)
		return
	}
	// Decoding a whole model is most of this method's cost: each is
	// decoded once and shared by the checks, and a plan that changes
	// nothing, the plan of most guests, decodes one model for both (the
	// checks only read them).
	plan, okPlan := guestops.ReadModel[vmModel](ctx, req.Plan)
	creating := req.State.Raw.IsNull()
	unchanged := guestops.PlanUnchanged(req)
	var state *vmModel
	okState := creating
	switch {
	case unchanged:
		state, okState = plan, okPlan
	case !creating:
		state, okState = guestops.ReadModel[vmModel](ctx, req.State)
	}
	if okPlan && okState {
		r.modifyHardwarePlan(ctx, req, resp, state, plan)
	}
	r.checkCloudInitStorage(ctx, req, resp)
	r.api.CheckPlacement(ctx, req, resp)
	r.api.CheckHA(ctx, req, resp)
	if creating {
		return
	}
	if okPlan && okState {
		guestops.AddIssues(&resp.Diagnostics, checkPlan(state, plan))
		guestops.AddIssues(&resp.Diagnostics, checkCloudInitSlotMove(state, plan))
		// Where the VM is: HA may have moved it off the declared node.
		node := r.api.NodeOf(ctx, req.Private, state.Node.ValueString())
		r.checkMigration(ctx, node, state, plan, &resp.Diagnostics)
		r.checkVanishedDisks(ctx, req, resp, node, state, plan)
		r.checkReplicatedDisks(ctx, node, state, plan, &resp.Diagnostics)
		r.api.WarnReplacement(ctx, node, state.vmid(), guestops.VMIDReplacement(state.VMID, plan.VMID), &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() || unchanged {
		return
	}
	guestops.MarkStatusIfItMayChange(ctx, req, resp)

	var configuredOrder types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("boot_order"), &configuredOrder)...)
	if configuredOrder.IsNull() && (!okPlan || !okState || devicesChange(state, plan)) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("boot_order"), types.ListUnknown(types.StringType))...)
	}
}

// devicesChange reports whether disks, CD-ROMs or NICs are added or
// removed, or the cloud-init drive moves.
func devicesChange(state, plan *vmModel) bool {
	_, _, ciMoves := cloudInitSlotMove(state, plan)
	return !sameKeys(state.Disks, plan.Disks) || !sameKeys(state.CDROMs, plan.CDROMs) || !sameKeys(state.Network, plan.Network) || ciMoves
}

func sameKeys[V any](a, b map[string]V) bool {
	return slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
}
