package guestops

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// SourceHooks are the steps of creating a guest from a clone source or a
// backup archive that depend on its kind.
type SourceHooks[M any] interface {
	// ReconfigureClone turns the clone of source into plan; its creation
	// marker stays.
	ReconfigureClone(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *M, source int, diags *diag.Diagnostics) bool
	// RestoreForm is the restore request of plan, without the archive.
	RestoreForm(plan *M, archive pveapi.GuestConfig, diags *diag.Diagnostics) (url.Values, bool)
	// ReconfigureRestore turns the restored guest into plan, keeping
	// marker in its description.
	ReconfigureRestore(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *M, marker string, diags *diag.Diagnostics) bool
}

// CloneSourceChecker refuses a clone source the clone cannot be made from;
// without it every source the clone resolves to is accepted.
type CloneSourceChecker[M any] interface {
	CheckCloneSource(ctx context.Context, source CloneSource, plan *M, diags *diag.Diagnostics) bool
}

// ClonePreparer acts on the finished clone task, before the clone is moved
// to its node.
type ClonePreparer[M any] interface {
	PrepareClone(ctx context.Context, node string, vmid int, plan *M, diags *diag.Diagnostics) bool
}

// createClone makes the guest as a clone (W14), or takes up the clone an
// interrupted apply left half-made (W13), saves its id and finishes it.
// A failure after PVE accepted the clone leaves the clone to the next
// apply (LeaveUnfinished) rather than to Terraform's replacement.
func (d Driver[M]) createClone(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse, plan *M) {
	diags := &resp.Diagnostics
	attrs := d.Hooks.Attributes(plan)
	source, ok := d.API.ResolveClone(ctx, attrs.Clone, diags)
	if !ok {
		return
	}
	if checker, ok := d.Hooks.(CloneSourceChecker[M]); ok && !checker.CheckCloneSource(ctx, source, plan, diags) {
		return
	}
	cloneReq := CloneRequest{
		Node:   attrs.Node.ValueString(),
		VMID:   attrs.vmid(),
		Source: source,
		Clone:  attrs.Clone,
		Name:   attrs.Name.ValueString(),
		Pool:   attrs.Pool.ValueString(),
	}
	cloned, ok := d.API.Clone(ctx, cloneReq, diags)
	if !ok {
		return
	}
	vmid := cloned.VMID
	if !SaveIdentity(ctx, &resp.State, vmid, cloned.Node, diags) {
		return
	}
	diags.Append(resp.State.SetAttribute(ctx, path.Root("clone"), attrs.Clone)...)
	if !d.finishClone(ctx, req.Config, cloneReq, &cloned, plan, diags) {
		d.API.LeaveUnfinished(ctx, &resp.State, cloneReq, cloned, diags)
		return
	}
	node := cloned.Node
	diags.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	d.SaveReadBack(ctx, &resp.State, resp.Private, req.Plan.Raw, node, vmid, plan, nil, diags)
}

// finishClone takes a clone PVE accepted to the end: wait for it, move it
// to its node when PVE could not clone straight there, configure it,
// start it, and last remove the creation marker. Until then the marker
// lets the next apply find the clone again.
func (d Driver[M]) finishClone(ctx context.Context, config tfsdk.Config, cloneReq CloneRequest, cloned *Cloned, plan *M, diags *diag.Diagnostics) bool {
	if !d.API.AwaitClone(ctx, cloned, diags) {
		return false
	}
	if preparer, ok := d.Hooks.(ClonePreparer[M]); ok && !preparer.PrepareClone(ctx, cloned.Node, cloned.VMID, plan, diags) {
		return false
	}
	if !d.API.FinishClone(ctx, cloneReq, cloned, diags) {
		return false
	}
	node, vmid := cloned.Node, cloned.VMID
	if !d.Hooks.ReconfigureClone(ctx, config, node, vmid, plan, cloneReq.Source.VMID, diags) {
		return false
	}
	return d.start(ctx, node, vmid, plan, diags) && d.API.RemoveCloneMarker(ctx, node, vmid, diags)
}

// createRestore makes the guest by restoring a backup archive: the
// declared settings PVE takes with an archive are sent with the restore,
// the id is saved, the task awaited; then the guest is configured as
// planned, put in its pool (a restore may lose it, W40, W48), started,
// and last its marker is removed.
func (d Driver[M]) createRestore(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse, plan *M) {
	diags := &resp.Diagnostics
	attrs := d.Hooks.Attributes(plan)
	node := attrs.Node.ValueString()
	archive, ok := d.API.ArchiveConfig(ctx, node, attrs.Restore, diags)
	if !ok {
		return
	}
	form, ok := d.Hooks.RestoreForm(plan, archive, diags)
	if !ok {
		return
	}
	created, ok := d.API.Restore(ctx, RestoreRequest{
		Node:    node,
		VMID:    attrs.vmid(),
		Restore: attrs.Restore,
		Form:    form,
		Name:    attrs.Name.ValueString(),
	}, diags)
	if !ok {
		return
	}
	vmid := created.VMID
	if !SaveIdentity(ctx, &resp.State, vmid, node, diags) {
		return
	}
	diags.Append(resp.State.SetAttribute(ctx, path.Root("restore"), attrs.Restore)...)
	if !d.API.AwaitNew(ctx, &resp.State, node, created, attrs.vmid() != 0 || attrs.Name.ValueString() != "", diags) {
		return
	}
	marker := RestoreMarker(d.API.Kind, attrs.Restore.Archive.ValueString())
	if !d.Hooks.ReconfigureRestore(ctx, req.Config, node, vmid, plan, marker, diags) {
		return
	}
	if !d.API.EnsurePool(ctx, vmid, *attrs.Pool, diags) {
		return
	}
	if !d.start(ctx, node, vmid, plan, diags) || !d.API.RemoveCloneMarker(ctx, node, vmid, diags) {
		return
	}
	d.SaveReadBack(ctx, &resp.State, resp.Private, req.Plan.Raw, node, vmid, plan, nil, diags)
}

// start starts a new guest when plan wants it running.
func (d Driver[M]) start(ctx context.Context, node string, vmid int, plan *M, diags *diag.Diagnostics) bool {
	return !d.Hooks.Attributes(plan).Started.ValueBool() || d.API.PowerAction(ctx, node, vmid, ActionStart, nil, diags)
}
