package guestops

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// SourceHooks are the steps of creating a guest from a clone source or a
// backup archive that depend on its kind.
type SourceHooks[M any] interface {
	// InheritedView is plan with what it does not declare taken from
	// live, the config of a guest just made from origin (OriginClone,
	// OriginRestore), except what the kind never inherits from such a
	// source: a config request computed against it leaves the inherited
	// values alone.
	InheritedView(ctx context.Context, vmid int, plan *M, live pveapi.GuestConfig, origin Origin) (*M, error)
	// FinishInherited turns the guest made from origin into plan: it
	// sends the config request that turns live into view (which holds
	// the creation marker), then what has to follow it. A request that
	// cannot be computed is reported under summary.
	FinishInherited(ctx context.Context, config tfsdk.Config, node string, vmid int, view, plan *M, live pveapi.GuestConfig, origin Origin, summary string, diags *diag.Diagnostics) bool
	// RestoreForm is the restore request of plan, without the archive.
	RestoreForm(plan *M, archive pveapi.GuestConfig, diags *diag.Diagnostics) (url.Values, bool)
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
	marker := CloneMarker(d.API.Kind, cloneReq.Source.VMID)
	if !d.reconfigureInherited(ctx, config, node, vmid, plan, OriginClone, marker, diags) {
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
	if !d.reconfigureInherited(ctx, req.Config, node, vmid, plan, OriginRestore, marker, diags) {
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

// reconfigureInherited turns a guest made from a source into plan: one
// config request computed against a view that holds what the source
// brought and the configuration does not declare, so only the declared
// differences are written (W21: a declared volume the source lacks is
// allocated, one it has keeps its volume); then the kind's own steps.
// marker stays in the description until the guest is complete.
func (d Driver[M]) reconfigureInherited(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *M, origin Origin, marker string, diags *diag.Diagnostics) bool {
	noun, verb := "Clone", "Cloning"
	if origin == OriginRestore {
		noun, verb = "Restore", "Restoring"
	}
	// The messages name the guest type, a template's too.
	title := KindOf(d.API.Kind.Type, false).Title
	live, err := d.API.Config(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read "+title+" After "+verb+" It", err)
		return false
	}
	summary := "Unable To Plan " + noun + " Configuration"
	view, err := d.Hooks.InheritedView(ctx, vmid, plan, live, origin)
	if err != nil {
		diags.AddError(summary, err.Error())
		return false
	}
	description := d.Hooks.Attributes(view).Description
	*description = types.StringValue(WithCloneMarker(description.ValueString(), marker))
	return d.Hooks.FinishInherited(ctx, config, node, vmid, view, plan, live, origin, summary, diags)
}
