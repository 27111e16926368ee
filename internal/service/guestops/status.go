package guestops

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// MarkStatusIfItMayChange makes a guest's planned status unknown only when
// the update can leave the guest in another power state: a change of
// `started` or `node`, a reboot PVE may need, or a status other than plain
// running or stopped. Everything else keeps the status in state, so an
// in-place edit of, say, tags does not show the status as changing.
func MarkStatusIfItMayChange(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var stateStarted, planStarted, reboot types.Bool
	var stateNode, planNode, status types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("started"), &stateStarted)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("started"), &planStarted)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("node"), &stateNode)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("node"), &planNode)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("reboot_after_update"), &reboot)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("status"), &status)...)
	if resp.Diagnostics.HasError() {
		return
	}
	steady := status.ValueString() == "running" || status.ValueString() == "stopped"
	if stateStarted.Equal(planStarted) && stateNode.Equal(planNode) && !reboot.ValueBool() && steady {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
}
