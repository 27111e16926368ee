package qemu

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
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// inherits tells whether the VM was made from a source whose undeclared
// settings it keeps: a clone or a restore.
func (m *vmModel) inherits() bool { return m.Clone != nil || m.Restore != nil }

// createRestore makes the VM by restoring a backup archive: the declared
// settings PVE takes with an archive are sent with the restore (drives it
// refuses), the id is saved, the task awaited; then one config request for
// what is still to declare (disks added or changed), cloud-init, disk
// growth, pool membership, power, and last the removal of the marker.
func (r *vmResource) createRestore(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse, plan *vmModel) {
	diags := &resp.Diagnostics
	node := plan.Node.ValueString()
	archive, ok := r.api.ArchiveConfig(ctx, node, plan.Restore, diags)
	if !ok {
		return
	}
	form, err := restoreForm(plan, archive)
	if err != nil {
		diags.AddError("Invalid VM Configuration", err.Error())
		return
	}
	created, ok := r.api.Restore(ctx, guestops.RestoreRequest{
		Node:    node,
		VMID:    plan.vmid(),
		Restore: plan.Restore,
		Form:    form,
		Name:    plan.Name.ValueString(),
	}, diags)
	if !ok {
		return
	}
	vmid := created.VMID
	if !guestops.SaveIdentity(ctx, &resp.State, vmid, node, diags) {
		return
	}
	diags.Append(resp.State.SetAttribute(ctx, path.Root("restore"), plan.Restore)...)
	if !r.api.AwaitCreate(ctx, node, created, diags) {
		return
	}
	marker := guestops.RestoreMarker(guestops.VM, plan.Restore.Archive.ValueString())
	if !r.reconfigureRestore(ctx, req.Config, node, vmid, plan, marker, diags) {
		return
	}
	if !r.api.EnsurePool(ctx, vmid, plan.Pool, diags) {
		return
	}
	if plan.Started.ValueBool() && !r.api.PowerAction(ctx, node, vmid, guestops.ActionStart, nil, diags) {
		return
	}
	if !r.api.RemoveCloneMarker(ctx, node, vmid, diags) {
		return
	}
	if r.readBack(ctx, node, vmid, plan, diags) {
		r.refreshAddresses(ctx, node, vmid, plan, nil, diags)
		diags.Append(resp.State.Set(ctx, plan)...)
		guestops.MaskCloneState(&resp.State, req.Plan.Raw, diags)
	}
}

// restoreForm is the restore request's overrides: the create form of
// what is declared, without the drives PVE refuses next to an archive
// ("option conflicts with option 'archive'") and without the boot order,
// which may name them; both follow once the disks exist. An undeclared
// description keeps the archive's.
func restoreForm(plan *vmModel, archive pveapi.GuestConfig) (url.Values, error) {
	form, err := plan.toCreate()
	if err != nil {
		return nil, err
	}
	for key := range form {
		if wire.IsDiskSlot(key) || key == keyBoot {
			delete(form, key)
		}
	}
	form.Set(keyDescription, guestops.ArchiveDescription(plan.Description, archive))
	if form.Get(keyDescription) == "" {
		form.Del(keyDescription)
	}
	return form, nil
}

// reconfigureRestore turns the restored VM into plan: one config request
// computed against a view that holds what the archive brought and the
// configuration does not declare, so only the declared differences are
// written (W21: a declared disk the archive lacks is allocated, one it has
// keeps its volume); then the cloud-init password and seed, the boot
// order and the disk tasks.
func (r *vmResource) reconfigureRestore(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *vmModel, marker string, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Restoring It", err)
		return false
	}
	view, err := r.restoreView(ctx, vmid, nil, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan Restore Configuration", err.Error())
		return false
	}
	view.Description = types.StringValue(guestops.WithCloneMarker(view.Description.ValueString(), marker))
	update, err := toUpdate(view, view, live)
	if err != nil {
		diags.AddError("Unable To Plan Restore Configuration", err.Error())
		return false
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

// restoreUpdateFor is updateFor for a restored VM: computed between views
// holding what the archive brought, cloud-init identity included (a
// restore, unlike a clone, is that guest again).
func (r *vmResource) restoreUpdateFor(ctx context.Context, state, plan *vmModel, live pveapi.GuestConfig) (*configUpdate, error) {
	vmid := state.vmid()
	stateView, err := r.restoreView(ctx, vmid, nil, state, live)
	if err != nil {
		return nil, err
	}
	planView, err := r.restoreView(ctx, vmid, state, plan, live)
	if err != nil {
		return nil, err
	}
	return toUpdate(stateView, planView, live)
}

// restoreView is want with what neither want nor prior declares taken
// from live.
func (r *vmResource) restoreView(ctx context.Context, vmid int, prior, want *vmModel, live pveapi.GuestConfig) (*vmModel, error) {
	inherited := *want
	if err := inherited.fromAPI(vmid, guestops.WithoutCloneMarker(live), nil); err != nil {
		return nil, err
	}
	return guestops.CloneView(ctx, vmSchema(ctx), prior, want, &inherited, guestops.NoInheritanceLimits)
}
