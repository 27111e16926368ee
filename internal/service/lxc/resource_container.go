package lxc

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

var (
	_ resource.Resource                   = (*containerResource)(nil)
	_ resource.ResourceWithConfigure      = (*containerResource)(nil)
	_ resource.ResourceWithImportState    = (*containerResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*containerResource)(nil)
	_ resource.ResourceWithValidateConfig = (*containerResource)(nil)
)

// Default timeouts when the configuration sets none.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

// NewContainerResource is the pve_container constructor registered with
// the provider.
func NewContainerResource() resource.Resource {
	return &containerResource{}
}

// containerResource drives the shared guest machinery (guestops) with what
// is particular to containers: the model, create-only keys, root-only
// rules, volumes that move only while the container is stopped.
type containerResource struct {
	api guestops.API
}

func (r *containerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_container"
}

func (r *containerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = containerSchema(ctx)
}

func (r *containerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if api, ok := guestops.Configure(req.ProviderData, guestops.Container, &resp.Diagnostics); ok {
		r.api = api
	}
}

func (r *containerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan containerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var password types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &password)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if plan.Clone != nil {
		r.createClone(ctx, req, resp, &plan)
		return
	}
	if plan.Restore != nil {
		r.createRestore(ctx, req, resp, &plan)
		return
	}
	form, err := plan.toCreate(password)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Container Configuration", err.Error())
		return
	}
	node := plan.Node.ValueString()
	created, ok := r.api.Create(ctx, guestops.CreateRequest{
		Node:      node,
		VMID:      plan.vmid(),
		Form:      form,
		Name:      plan.Hostname.ValueString(),
		Recognize: func(config pveapi.GuestConfig) bool { return plan.recognize(config, form) },
	}, &resp.Diagnostics)
	if !ok {
		return
	}
	vmid := created.VMID
	if !guestops.SaveIdentity(ctx, &resp.State, vmid, node, &resp.Diagnostics) {
		return
	}
	if !r.api.AwaitCreate(ctx, node, created, &resp.Diagnostics) {
		return
	}
	if created.Adopted && !r.reconfigureAdopted(ctx, node, vmid, &plan, &resp.Diagnostics) {
		return
	}

	// What PVE refuses at create is set right after, never dropped (W39).
	if params := plan.createFollowUp(); params != nil {
		if err := r.api.Client.UpdateLXCConfig(ctx, node, vmid, params); err != nil {
			fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("console").AtName("ttys"), "Unable To Set Container Console", err)
			return
		}
	}
	// A size that is not whole MiB is rounded down at allocation: grow it
	// to the size planned (W22).
	if !r.finishVolumes(ctx, node, vmid, &plan, &resp.Diagnostics) {
		return
	}
	if plan.Started.ValueBool() && !r.api.PowerAction(ctx, node, vmid, guestops.ActionStart, nil, &resp.Diagnostics) {
		return
	}
	if !r.api.RemoveCloneMarker(ctx, node, vmid, &resp.Diagnostics) {
		return
	}
	if r.readBack(ctx, node, vmid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *containerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state containerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vmid := state.vmid()
	live, found := r.api.Read(ctx, state.Node.ValueString(), vmid, &resp.Diagnostics)
	if !found {
		// An unreachable node keeps the prior state (with a warning).
		if !resp.Diagnostics.HasError() && !live.Unreachable {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	if err := state.fromAPI(vmid, live.Config, live.Status); err != nil {
		r.api.UnreadableConfig(&resp.Diagnostics, live.Node, vmid, err)
		return
	}
	state.Node = types.StringValue(live.Node)
	pool, ok := r.api.ReadPool(ctx, vmid, state.Pool, &resp.Diagnostics)
	if !ok {
		return
	}
	state.Pool = pool
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	if state.inherits() {
		guestops.MaskCloneState(&resp.State, req.State.Raw, &resp.Diagnostics)
	}
}

func (r *containerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state containerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	vmid := state.vmid()
	node := state.Node.ValueString()
	// One guest's changes never interleave with the provider's other work
	// on it, such as a clone of it.
	unlock, ok := r.api.HoldGuest(ctx, vmid, &resp.Diagnostics)
	if !ok {
		return
	}
	defer unlock()
	// Until the update is done, state is what it was: a step that fails
	// leaves the rest to the next plan.
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)

	if target := plan.Node.ValueString(); target != node {
		if !r.api.Migrate(ctx, node, vmid, target, &resp.Diagnostics) {
			return
		}
		node = target
		// Record the move at once: a later step may fail.
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	}

	live, err := r.api.Client.LXCConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Container", err)
		return
	}
	update, err := r.updateFor(ctx, &state, &plan, live)
	if err != nil {
		resp.Diagnostics.AddError("Unable To Plan Container Update", err.Error())
		return
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten {
		params := update.delta.Values()
		params.Set("digest", live.Digest())
		if err := r.api.Client.UpdateLXCConfig(ctx, node, vmid, params); err != nil {
			r.addUpdateError(&resp.Diagnostics, err)
			return
		}
	}
	if !r.finishVolumes(ctx, node, vmid, &plan, &resp.Diagnostics) {
		return
	}
	if !plan.Pool.Equal(state.Pool) && !r.api.ChangePool(ctx, vmid, state.Pool, plan.Pool, &resp.Diagnostics) {
		return
	}
	power := guestops.PowerPlan{Started: plan.Started.ValueBool(), ConfigWritten: configWritten, RebootAfterUpdate: plan.RebootAfterUpdate.ValueBool()}
	if !r.api.SettlePower(ctx, node, vmid, power, &resp.Diagnostics) {
		return
	}
	// Purging comes last: a mount point removed from a running container
	// is detached only when PVE applies the pending removal, at the next
	// start.
	if len(update.detached) > 0 && plan.PurgeRemovedDisks.ValueBool() {
		missing, ok := r.api.PurgeDetached(ctx, node, vmid, update.detached, &resp.Diagnostics)
		if !ok {
			return
		}
		if len(missing) > 0 {
			resp.Diagnostics.AddWarning("Removed Volumes Not Destroyed Yet",
				fmt.Sprintf("Container %d still uses %v until it restarts: PVE removes a mount point from a running container at its next start, "+
					"and keeps the volume as unusedN then. Restart the container and delete the unusedN entry in PVE, "+
					"or set reboot_after_update = true so that updates restart it.", vmid, missing))
		}
	}

	if r.readBack(ctx, node, vmid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		if plan.inherits() {
			guestops.MaskCloneState(&resp.State, req.Plan.Raw, &resp.Diagnostics)
		}
	}
}

func (r *containerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state containerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.api.Delete(ctx, state.Node.ValueString(), state.vmid(), state.Protection.ValueBool(), &resp.Diagnostics)
}

// ImportState takes "VMID" or "NODE/VMID". The template is not known (W35)
// and stays null; root's keys and password are never read back. Settings
// no attribute represents are named in a warning.
func (r *containerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !r.api.ImportWithWarning(ctx, req, resp, r) {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("purge_removed_disks"), false)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("reboot_after_update"), false)...)
}
