package qemu

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
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

type vmResource struct {
	client    *pveapi.Client
	vmidRange fwutil.VMIDRange
}

func (r *vmResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vm"
}

func (r *vmResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = vmSchema(ctx)
}

func (r *vmResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
	if pd == nil {
		return
	}
	r.client = pd.Client
	if pd.VMIDRange != nil {
		r.vmidRange = *pd.VMIDRange
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

	form, err := plan.toCreate()
	if err != nil {
		resp.Diagnostics.AddError("Invalid VM Configuration", err.Error())
		return
	}
	node := plan.Node.ValueString()
	created, ok := r.createVM(ctx, &plan, form, &resp.Diagnostics)
	if !ok {
		return
	}
	vmid := created.vmid

	// The VM exists in PVE from here on: record it before waiting, so an
	// interrupted apply still tracks it (and taints it on failure).
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), strconv.Itoa(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.awaitCreate(ctx, node, vmid, created.upid, &resp.Diagnostics) {
		return
	}

	// Disks seeded from an image have the image's size: grow them to the
	// configured size (W25, W22).
	live, err := r.client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM After Creating It", err)
		return
	}
	if !r.finishDisks(ctx, node, vmid, &plan, live, &resp.Diagnostics) {
		return
	}
	if plan.Started.ValueBool() && !r.powerAction(ctx, node, vmid, pveapi.QemuStart, nil, &resp.Diagnostics) {
		return
	}

	if r.readBack(ctx, node, vmid, &plan, &resp.Diagnostics) {
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
	node := state.Node.ValueString()

	config, err := r.client.QemuConfig(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		// W12 on the recorded node: the VM is gone, or was migrated outside
		// Terraform. One cluster-wide look tells which.
		guest, found, findErr := r.client.FindGuest(ctx, vmid)
		if findErr != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Look Up VM", findErr)
			return
		}
		if !found || guest.Type != pveapi.GuestTypeQemu || guest.Node == node {
			resp.State.RemoveResource(ctx)
			return
		}
		node = guest.Node
		config, err = r.client.QemuConfig(ctx, node, vmid)
	}
	if pveapi.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM", err)
		return
	}
	status, err := r.client.QemuStatus(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM Status", err)
		return
	}
	if err := state.fromAPI(vmid, config, status); err != nil {
		resp.Diagnostics.AddError("Unexpected VM Configuration",
			fmt.Sprintf("VM %d on node %s has a configuration the provider cannot read: %v", vmid, node, err))
		return
	}
	state.Node = types.StringValue(node)

	// Pool membership is not in the guest config: ask only when state
	// tracks a pool.
	if known(state.Pool) {
		member, err := r.poolHas(ctx, state.Pool.ValueString(), vmid)
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM Pool", err)
			return
		}
		if !member {
			state.Pool = types.StringNull()
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
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
	// Until the update is done, state is what it was: a step that fails
	// leaves the rest to the next plan.
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)

	if target := plan.Node.ValueString(); target != node {
		if !r.migrate(ctx, node, vmid, target, &resp.Diagnostics) {
			return
		}
		node = target
		// Record the move at once: a later step may fail.
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node"), node)...)
	}

	live, err := r.client.QemuConfig(ctx, node, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM", err)
		return
	}
	update, err := toUpdate(&state, &plan, live)
	if err != nil {
		resp.Diagnostics.AddError("Unable To Plan VM Update", err.Error())
		return
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten && !r.writeConfig(ctx, node, vmid, update, live.Digest(), &resp.Diagnostics) {
		return
	}
	if len(update.detached) > 0 && plan.PurgeRemovedDisks.ValueBool() && !r.purgeDetached(ctx, node, vmid, update.detached, &resp.Diagnostics) {
		return
	}

	if configWritten {
		if live, err = r.client.QemuConfig(ctx, node, vmid); err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM", err)
			return
		}
	}
	if boot, needed := bootOrderFix(&plan, live); needed {
		if err := r.client.UpdateQemuConfig(ctx, node, vmid, url.Values{keyBoot: {boot}}); err != nil {
			fwutil.AddAttributeAPIError(&resp.Diagnostics, path.Root("boot_order"), "Unable To Set Boot Order", err)
			return
		}
	}
	if !r.finishDisks(ctx, node, vmid, &plan, live, &resp.Diagnostics) {
		return
	}
	if !plan.Pool.Equal(state.Pool) && !r.changePool(ctx, vmid, state.Pool, plan.Pool, &resp.Diagnostics) {
		return
	}
	if !r.settlePower(ctx, node, vmid, &plan, configWritten, &resp.Diagnostics) {
		return
	}

	if r.readBack(ctx, node, vmid, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
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

	vmid := state.vmid()
	node := state.Node.ValueString()
	if state.Protection.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("protection"), "VM Is Protected",
			fmt.Sprintf("VM %d has protection = true, which forbids destroying it and its disks. "+
				"Set protection = false and apply, then destroy it.", vmid))
		return
	}

	status, err := r.client.QemuStatus(ctx, node, vmid)
	if pveapi.IsNotFound(err) {
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read VM Status", err)
		return
	}
	if status.Status == pveapi.PowerRunning && !r.powerOff(ctx, node, vmid, &resp.Diagnostics) {
		return
	}

	upid, err := r.client.DeleteQemu(ctx, node, vmid, true, true)
	if pveapi.IsNotFound(err) {
		return
	}
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete VM", err)
		return
	}
	fwutil.SettleTask(ctx, r.client, upid, fmt.Sprintf("destroying VM %d", vmid), "Unable To Delete VM", &resp.Diagnostics)
}

// ImportState takes "VMID" or "NODE/VMID". Either way one cluster-wide
// listing finds the VM's node and pool, which its config does not carry.
func (r *vmResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	wantNode, vmid, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	guest, found, err := r.client.FindGuest(ctx, vmid)
	if err != nil {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Look Up VM", err)
		return
	}
	switch {
	case !found:
		resp.Diagnostics.AddError("VM Not Found", fmt.Sprintf("No guest with VMID %d exists in the cluster.", vmid))
		return
	case guest.Type != pveapi.GuestTypeQemu:
		resp.Diagnostics.AddError("Not A VM", fmt.Sprintf("Guest %d is a %s, not a QEMU VM; import it as a container.", vmid, guest.Type))
		return
	case wantNode != "" && guest.Node != wantNode:
		resp.Diagnostics.AddError("VM On Another Node",
			fmt.Sprintf("VM %d is on node %s, not %s. Import it as %s/%d or by its VMID alone.", vmid, guest.Node, wantNode, guest.Node, vmid))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), strconv.Itoa(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vmid"), int64(vmid))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node"), guest.Node)...)
	if guest.Pool != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("pool"), guest.Pool)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("purge_removed_disks"), false)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("reboot_after_update"), false)...)
}

func parseImportID(id string) (node string, vmid int, err error) {
	rest := id
	if before, after, ok := strings.Cut(id, "/"); ok {
		node, rest = before, after
		if !nodeNamePattern.MatchString(node) {
			return "", 0, fmt.Errorf("import pve_vm by VMID (\"120\") or NODE/VMID (\"pve1/120\"); %q has no valid node name", id)
		}
	}
	vmid, convErr := strconv.Atoi(rest)
	if convErr != nil || vmid < pveapi.MinVMID || vmid > pveapi.MaxVMID || strconv.Itoa(vmid) != rest {
		return "", 0, fmt.Errorf("import pve_vm by VMID (\"120\") or NODE/VMID (\"pve1/120\"), got %q", id)
	}
	return node, vmid, nil
}
