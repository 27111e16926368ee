package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkCreateSource says what a new container needs: a clone inherits its
// root disk and has no template archive to unpack; anything else needs a
// root disk.
func checkCreateSource(plan *containerModel) []guestops.Issue {
	if plan.Clone == nil {
		if plan.RootDisk == nil {
			return []guestops.Issue{{Path: path.Root("root_disk"), Summary: "Root Disk Required",
				Detail: "Creating a container from os_template needs root_disk (storage and size). Only a clone inherits its source's."}}
		}
		return nil
	}
	if !plan.OSTemplate.IsNull() {
		return []guestops.Issue{{Path: path.Root("os_template"), Summary: "Conflicting Container Sources",
			Detail: "A container is created either from os_template or as a clone, not both: remove os_template or clone."}}
	}
	return nil
}

// createClone makes the container as a clone (W14), or takes up the clone an
// interrupted apply left half-made (W13), saves its id and finishes it.
// A failure after PVE accepted the clone leaves the clone to the next
// apply (LeaveUnfinished) rather than to Terraform's replacement.
func (r *containerResource) createClone(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse, plan *containerModel) {
	diags := &resp.Diagnostics
	source, ok := r.api.ResolveClone(ctx, plan.Clone, diags)
	if !ok {
		return
	}
	cloneReq := guestops.CloneRequest{
		Node:   plan.Node.ValueString(),
		VMID:   plan.vmid(),
		Source: source,
		Clone:  plan.Clone,
		Name:   plan.Hostname.ValueString(),
		Pool:   plan.Pool.ValueString(),
	}
	cloned, ok := r.api.Clone(ctx, cloneReq, diags)
	if !ok {
		return
	}
	vmid := cloned.VMID
	if !guestops.SaveIdentity(ctx, &resp.State, vmid, cloned.Node, diags) {
		return
	}
	diags.Append(resp.State.SetAttribute(ctx, path.Root("clone"), plan.Clone)...)
	if !r.finishClone(ctx, cloneReq, &cloned, plan, diags) {
		r.api.LeaveUnfinished(ctx, &resp.State, cloneReq, cloned, diags)
		return
	}
	node := cloned.Node
	diags.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	if r.readBack(ctx, node, vmid, plan, diags) {
		diags.Append(resp.State.Set(ctx, plan)...)
		guestops.MaskCloneState(&resp.State, req.Plan.Raw, diags)
	}
}

// finishClone takes a clone PVE accepted to the end: wait for it, move it
// to its node when PVE could not clone straight there, configure it,
// start it, and last remove the creation marker. Until then the marker
// lets the next apply find the clone again.
func (r *containerResource) finishClone(ctx context.Context, cloneReq guestops.CloneRequest, cloned *guestops.Cloned, plan *containerModel, diags *diag.Diagnostics) bool {
	if !r.api.AwaitClone(ctx, cloned, diags) || !r.api.FinishClone(ctx, cloneReq, cloned, diags) {
		return false
	}
	node, vmid := cloned.Node, cloned.VMID
	if !r.reconfigureClone(ctx, node, vmid, plan, cloneReq.Source.VMID, diags) {
		return false
	}
	if plan.Started.ValueBool() && !r.api.PowerAction(ctx, node, vmid, guestops.ActionStart, nil, diags) {
		return false
	}
	return r.api.RemoveCloneMarker(ctx, node, vmid, diags)
}

// reconfigureClone writes what plan declares in one config request, then
// grows or moves the declared volumes.
func (r *containerResource) reconfigureClone(ctx context.Context, node string, vmid int, plan *containerModel, source int, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.LXCConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container After Cloning It", err)
		return false
	}
	view, err := r.cloneView(ctx, vmid, nil, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan Clone Configuration", err.Error())
		return false
	}
	// The marker stays until the clone is complete.
	marker := guestops.CloneMarker(guestops.Container, source)
	view.Description = types.StringValue(guestops.WithCloneMarker(view.Description.ValueString(), marker))
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError("Unable To Plan Clone Configuration", err.Error())
		return false
	}
	if !update.delta.IsEmpty() {
		params := update.delta.Values()
		params.Set("digest", live.Digest())
		if err := r.api.Client.UpdateLXCConfig(ctx, node, vmid, params); err != nil {
			r.addUpdateError(diags, err)
			return false
		}
	}
	return r.finishVolumes(ctx, node, vmid, plan, diags)
}

// updateFor is the config request of an update. For a clone it is
// computed between views that hold the inherited values, so what the
// configuration never declared is left as it is.
func (r *containerResource) updateFor(ctx context.Context, state, plan *containerModel, live pveapi.GuestConfig) (*configUpdate, error) {
	if !plan.inherits() {
		return toUpdate(state, plan, live)
	}
	vmid := state.vmid()
	stateView, err := r.cloneView(ctx, vmid, nil, state, live)
	if err != nil {
		return nil, err
	}
	planView, err := r.cloneView(ctx, vmid, state, plan, live)
	if err != nil {
		return nil, err
	}
	return toUpdate(stateView, planView, live)
}

// cloneView is want with what neither want nor prior declares taken from
// live.
func (r *containerResource) cloneView(ctx context.Context, vmid int, prior, want *containerModel, live pveapi.GuestConfig) (*containerModel, error) {
	inherited := *want
	if err := inherited.fromAPI(vmid, guestops.WithoutCloneMarker(live), nil); err != nil {
		return nil, err
	}
	return guestops.CloneView(ctx, containerSchema(ctx), prior, want, &inherited, guestops.NoInheritanceLimits)
}
