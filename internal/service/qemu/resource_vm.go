package qemu

import (
	"context"
	"net/url"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

var (
	_ resource.Resource                   = (*vmResource)(nil)
	_ resource.ResourceWithConfigure      = (*vmResource)(nil)
	_ resource.ResourceWithImportState    = (*vmResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*vmResource)(nil)
	_ resource.ResourceWithValidateConfig = (*vmResource)(nil)
)

// Default timeouts when the configuration sets none.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

// NewVMResource is the pve_vm constructor registered with the provider.
func NewVMResource() resource.Resource {
	return &vmResource{}
}

// vmResource drives the shared guest machinery (guestops) with what is
// particular to VMs: the model, asynchronous config writes, boot order.
type vmResource struct {
	api guestops.API
}

func (r *vmResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vm"
}

func (r *vmResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = vmSchema(ctx)
}

func (r *vmResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if api, ok := guestops.Configure(req.ProviderData, guestops.VM, &resp.Diagnostics); ok {
		r.api = api
	}
}

func (r *vmResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan vmModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
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
	form, err := plan.toCreate()
	if err != nil {
		resp.Diagnostics.AddError("Invalid VM Configuration", err.Error())
		return
	}
	node := plan.Node.ValueString()
	created, ok := r.api.Create(ctx, guestops.CreateRequest{
		Node:      node,
		VMID:      plan.vmid(),
		Form:      form,
		Name:      plan.Name.ValueString(),
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

	// Disks seeded from an image have the image's size: grow them to the
	// configured size (W25, W22).
	live, err := r.api.Client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM After Creating It", err)
		return
	}
	if !r.finishDisks(ctx, node, vmid, &plan, live, &resp.Diagnostics) {
		return
	}
	if !r.applyCloudInit(ctx, req.Config, node, vmid, nil, &plan, nil, &resp.Diagnostics) {
		return
	}
	if plan.Started.ValueBool() && !r.api.PowerAction(ctx, node, vmid, guestops.ActionStart, nil, &resp.Diagnostics) {
		return
	}
	if !r.api.RemoveCloneMarker(ctx, node, vmid, &resp.Diagnostics) {
		return
	}

	if r.readBack(ctx, node, vmid, &plan, &resp.Diagnostics) {
		r.refreshAddresses(ctx, node, vmid, &plan, nil, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

func (r *vmResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state vmModel
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
	notePCI(ctx, live.Config, &state, resp.Private, &resp.Diagnostics)
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

func (r *vmResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state vmModel
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

	live, err := r.api.Client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM", err)
		return
	}
	update, err := r.updateFor(ctx, &state, &plan, live)
	if err != nil {
		resp.Diagnostics.AddError("Unable To Plan VM Update", err.Error())
		return
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten && !r.writeConfig(ctx, node, vmid, update, live.Digest(), &resp.Diagnostics) {
		return
	}
	if len(update.detached) > 0 && plan.PurgeRemovedDisks.ValueBool() {
		if _, ok := r.api.PurgeDetached(ctx, node, vmid, update.detached, &resp.Diagnostics); !ok {
			return
		}
	}
	if !r.applyCloudInit(ctx, req.Config, node, vmid, &state, &plan, &configWritten, &resp.Diagnostics) {
		return
	}

	if configWritten {
		if live, err = r.api.Client.QemuConfig(ctx, node, vmid); err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM", err)
			return
		}
	}
	if boot, needed := bootOrderFix(&plan, live); needed {
		if err := r.api.Client.UpdateQemuConfig(ctx, node, vmid, url.Values{keyBoot: {boot}}); err != nil {
			fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("boot_order"), "Unable To Set Boot Order", err)
			return
		}
	}
	if !r.finishDisks(ctx, node, vmid, &plan, live, &resp.Diagnostics) {
		return
	}
	if !plan.Pool.Equal(state.Pool) && !r.api.ChangePool(ctx, vmid, state.Pool, plan.Pool, &resp.Diagnostics) {
		return
	}
	power := guestops.PowerPlan{Started: plan.Started.ValueBool(), ConfigWritten: configWritten, RebootAfterUpdate: plan.RebootAfterUpdate.ValueBool()}
	if !r.api.SettlePower(ctx, node, vmid, power, &resp.Diagnostics) {
		return
	}

	if r.readBack(ctx, node, vmid, &plan, &resp.Diagnostics) {
		r.refreshAddresses(ctx, node, vmid, &plan, &state, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		if plan.inherits() {
			guestops.MaskCloneState(&resp.State, req.Plan.Raw, &resp.Diagnostics)
		}
	}
}

func (r *vmResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state vmModel
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
	r.deleteSeedAfterDestroy(ctx, &state, &resp.Diagnostics)
}

// ImportState takes "VMID" or "NODE/VMID". Settings no attribute
// represents are named in a warning.
func (r *vmResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !r.api.ImportWithWarning(ctx, req, resp, r) {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("purge_removed_disks"), false)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("reboot_after_update"), false)...)
}
