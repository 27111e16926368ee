package qemu

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// createClone makes the VM as a clone (W14), or takes up the clone an
// interrupted apply left half-made (W13), saves its id and finishes it.
// A failure after PVE accepted the clone leaves the clone to the next
// apply (LeaveUnfinished) rather than to Terraform's replacement.
func (r *vmResource) createClone(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse, plan *vmModel) {
	diags := &resp.Diagnostics
	source, ok := r.api.ResolveClone(ctx, plan.Clone, diags)
	if !ok || !r.checkCloneCanMove(ctx, source, plan, diags) {
		return
	}
	cloneReq := guestops.CloneRequest{
		Node:   plan.Node.ValueString(),
		VMID:   plan.vmid(),
		Source: source,
		Clone:  plan.Clone,
		Name:   plan.Name.ValueString(),
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
	if !r.finishClone(ctx, req, cloneReq, &cloned, plan, diags) {
		r.api.LeaveUnfinished(ctx, &resp.State, cloneReq, cloned, diags)
		return
	}
	node := cloned.Node
	diags.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	if r.readBack(ctx, node, vmid, plan, diags) {
		r.refreshAddresses(ctx, node, vmid, plan, nil, diags)
		diags.Append(resp.State.Set(ctx, plan)...)
		guestops.MaskCloneState(&resp.State, req.Plan.Raw, diags)
	}
}

// finishClone takes a clone PVE accepted to the end: wait for it, move it
// to its node when PVE could not clone straight there, configure it,
// start it, and last remove the creation marker. Until then the marker
// lets the next apply find the clone again.
func (r *vmResource) finishClone(ctx context.Context, req resource.CreateRequest, cloneReq guestops.CloneRequest, cloned *guestops.Cloned, plan *vmModel, diags *diag.Diagnostics) bool {
	if !r.api.AwaitClone(ctx, cloned, diags) ||
		!r.dropInheritedSeed(ctx, cloned.Node, cloned.VMID, plan, diags) ||
		!r.api.FinishClone(ctx, cloneReq, cloned, diags) {
		return false
	}
	node, vmid := cloned.Node, cloned.VMID
	if !r.reconfigureClone(ctx, req.Config, node, vmid, plan, cloneReq.Source.VMID, diags) {
		return false
	}
	if plan.Started.ValueBool() && !r.api.PowerAction(ctx, node, vmid, guestops.ActionStart, nil, diags) {
		return false
	}
	return r.api.RemoveCloneMarker(ctx, node, vmid, diags)
}

// reconfigureClone turns the fresh clone into plan: one config request
// for what is declared, with the inherited identity deleted (W15) and the
// inherited cloud-init drive left as it is (W27); then the password and
// seed, the boot order and the disk tasks.
func (r *vmResource) reconfigureClone(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *vmModel, source int, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Cloning It", err)
		return false
	}
	view, err := r.cloneView(ctx, vmid, nil, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan Clone Configuration", err.Error())
		return false
	}
	// The marker stays until the clone is complete.
	marker := guestops.CloneMarker(guestops.VM, source)
	view.Description = types.StringValue(guestops.WithCloneMarker(view.Description.ValueString(), marker))
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError("Unable To Plan Clone Configuration", err.Error())
		return false
	}
	for _, key := range []string{keyCIPassword, keyCICustom} {
		if _, inherited := live[key]; inherited {
			update.delta.Delete(key)
		}
	}
	if !update.delta.IsEmpty() && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return false
	}
	if !r.applyCloudInit(ctx, config, node, vmid, nil, plan, nil, diags) {
		return false
	}
	if live, err = r.api.Client.QemuConfig(ctx, node, vmid); err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return false
	}
	if boot, needed := bootOrderFix(plan, live); needed {
		if err := r.api.Client.UpdateQemuConfig(ctx, node, vmid, url.Values{keyBoot: {boot}}); err != nil {
			fwutil.AddAttributeAPIError(diags, path.Root("boot_order"), "Unable To Set Boot Order", err)
			return false
		}
	}
	return r.finishDisks(ctx, node, vmid, plan, live, diags)
}

// updateFor is the config request of an update. For a clone it is
// computed between views that hold the inherited values, so what the
// configuration never declared is left as it is.
func (r *vmResource) updateFor(ctx context.Context, state, plan *vmModel, live pveapi.GuestConfig) (*configUpdate, error) {
	if plan.Restore != nil {
		return r.restoreUpdateFor(ctx, state, plan, live)
	}
	if plan.Clone == nil {
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
// live, except the cloud-init identity, which a clone never inherits (W15):
// an update computed against it leaves inherited values alone.
func (r *vmResource) cloneView(ctx context.Context, vmid int, prior, want *vmModel, live pveapi.GuestConfig) (*vmModel, error) {
	inherited := *want
	if err := inherited.fromAPI(vmid, guestops.WithoutCloneMarker(live), nil); err != nil {
		return nil, err
	}
	return guestops.CloneView(ctx, vmSchema(ctx), prior, want, &inherited, cloudInitIdentityPath)
}

// cloudInitIdentityPath reports the paths a clone never inherits: every
// cloud-init value but the drive's storage and slot (W15, W27).
func cloudInitIdentityPath(p *tftypes.AttributePath) bool {
	steps := p.Steps()
	if len(steps) < 2 || steps[0] != tftypes.AttributeName("cloud_init") {
		return false
	}
	switch steps[1] {
	case tftypes.AttributeName("storage"), tftypes.AttributeName("slot"):
		return false
	}
	return true
}
