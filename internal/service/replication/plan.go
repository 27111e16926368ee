package replication

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// ModifyPlan plans id and job_number, and for a new job checks what PVE
// would refuse and the provider can see now: the target being the
// guest's own node, and a disk of the guest that cannot be replicated.
func (r *jobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan, config jobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var state *jobModel
	if !req.State.Raw.IsNull() {
		state = &jobModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	replaced := state == nil || !plan.VMID.Equal(state.VMID) || !plan.Target.Equal(state.Target) ||
		!config.JobNumber.IsNull() && !config.JobNumber.Equal(state.JobNumber)
	switch {
	case !config.JobNumber.IsNull():
		plan.JobNumber = config.JobNumber
	case !replaced:
		plan.JobNumber = state.JobNumber
	default:
		plan.JobNumber = types.Int64Unknown()
	}
	if id := plan.jobID(); id != "" {
		plan.ID = types.StringValue(id)
	} else {
		plan.ID = types.StringUnknown()
	}
	if replaced {
		plan.Source = types.StringUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	if resp.Diagnostics.HasError() || !replaced || r.client == nil {
		return
	}
	if plan.VMID.IsUnknown() || plan.Target.IsUnknown() {
		return
	}
	r.checkGuest(ctx, int(plan.VMID.ValueInt64()), plan.Target.ValueString(), &resp.Diagnostics)
}

// checkGuest refuses a job PVE would refuse for the guest as it is now.
// A guest that does not exist yet (created in the same apply) is not
// checked.
func (r *jobResource) checkGuest(ctx context.Context, vmid int, target string, diags *diag.Diagnostics) {
	guest, found, err := r.client.FindGuest(ctx, vmid)
	if err != nil || !found || guest.Node == "" || guest.InProgress() {
		return
	}
	if guest.Node == target {
		diags.AddAttributeError(path.Root("target"), "Replication Target Is The Guest's Node", fmt.Sprintf(
			"Guest %d runs on node %s, the job's target: PVE replicates to another node. Choose another target.",
			vmid, target))
		return
	}
	config, err := r.client.GuestConfig(ctx, guest.Node, guest.Type, vmid)
	if err != nil {
		return
	}
	storages, err := r.client.Storages(ctx, guest.Node, pveapi.StorageFilter{})
	if err != nil {
		return
	}
	known := make(map[string]wire.ReplicationStorage, len(storages))
	for _, st := range storages {
		known[st.Storage] = wire.ReplicationStorage{Type: st.Type, Shared: bool(st.Shared)}
	}
	problem, ok := wire.ReplicationVolumesProblem(guest.Type == pveapi.GuestTypeLXC, vmid, config, known)
	if !ok || problem == nil {
		return
	}
	diags.AddAttributeError(path.Root("vmid"), "Guest Cannot Be Replicated", fmt.Sprintf(
		"PVE would refuse to replicate guest %d: %s.", vmid, problem.Text))
}
