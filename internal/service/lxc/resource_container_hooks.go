package lxc

import (
	"context"
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// The container's own steps of the shared guest flows, with the optional
// one it has: it purges detached volumes once power is settled.
var (
	_ guestops.Hooks[containerModel]          = (*containerResource)(nil)
	_ guestops.UpdateFinisher[containerModel] = (*containerResource)(nil)
)

// driver runs pve_container's create, read, update and delete.
func (r *containerResource) driver() guestops.Driver[containerModel] {
	return guestops.Driver[containerModel]{API: r.api, Hooks: r}
}

func (r *containerResource) Attributes(m *containerModel) guestops.Attributes {
	return guestops.Attributes{
		Node:              &m.Node,
		Pool:              &m.Pool,
		VMID:              m.VMID,
		Name:              m.Hostname,
		Protection:        m.Protection,
		Started:           m.Started,
		PurgeRemovedDisks: m.PurgeRemovedDisks,
		RebootAfterUpdate: m.RebootAfterUpdate,
		Timeouts:          m.Timeouts,
		Clone:             m.Clone,
		Restore:           m.Restore,
		Origin:            &m.Origin,
	}
}

func (r *containerResource) FromAPI(m *containerModel, vmid int, config pveapi.GuestConfig, status *pveapi.GuestStatus) error {
	return m.fromAPI(vmid, config, status)
}

// CreateForm includes root's password, which only the configuration holds
// (write-only).
func (r *containerResource) CreateForm(ctx context.Context, config tfsdk.Config, plan *containerModel, diags *diag.Diagnostics) (url.Values, bool) {
	var password types.String
	diags.Append(config.GetAttribute(ctx, path.Root("password_wo"), &password)...)
	if diags.HasError() {
		return nil, false
	}
	form, err := plan.toCreate(password)
	if err != nil {
		diags.AddError("Invalid Container Configuration", err.Error())
		return nil, false
	}
	if !guestops.Known(plan.Unprivileged) {
		// Left unknown only when the plan could not tell the container
		// would come from a template (unprivilegedByDefault).
		form.Set(keyUnprivileged, "1")
	}
	return form, true
}

func (r *containerResource) Recognize(plan *containerModel, config pveapi.GuestConfig, form url.Values) bool {
	return plan.recognize(config, form)
}

func (r *containerResource) RestoreForm(plan *containerModel, archive pveapi.GuestConfig, diags *diag.Diagnostics) (url.Values, bool) {
	form, err := restoreForm(plan, archive)
	if err != nil {
		diags.AddAttributeError(path.Root("restore").AtName("archive"), "Unable To Restore Container", err.Error())
		return nil, false
	}
	return form, true
}

// FinishCreate grows a volume whose size is not whole MiB, which PVE
// rounds down at allocation, to the size planned (W22).
func (r *containerResource) FinishCreate(ctx context.Context, _ tfsdk.Config, node string, vmid int, plan *containerModel, diags *diag.Diagnostics) bool {
	return r.finishVolumes(ctx, node, vmid, plan, diags)
}

// ApplyUpdate writes the config request and grows or moves the volumes.
// Volumes it detached are purged only after power is settled
// (FinishUpdate).
func (r *containerResource) ApplyUpdate(ctx context.Context, _ tfsdk.Config, node string, vmid int, state, plan *containerModel, diags *diag.Diagnostics) (guestops.ConfigChange, bool) {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Container", err)
		return guestops.ConfigChange{}, false
	}
	update, err := r.updateFor(ctx, state, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan Container Update", err.Error())
		return guestops.ConfigChange{}, false
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return guestops.ConfigChange{}, false
	}
	if !r.finishVolumes(ctx, node, vmid, plan, diags) {
		return guestops.ConfigChange{}, false
	}
	return guestops.ConfigChange{Written: configWritten, Detached: update.detached}, true
}

// FinishUpdate purges the volumes the update detached. Purging comes
// last: a mount point removed from a running container is detached only
// when PVE applies the pending removal, at the next start.
func (r *containerResource) FinishUpdate(ctx context.Context, node string, vmid int, plan *containerModel, change guestops.ConfigChange, diags *diag.Diagnostics) bool {
	if len(change.Detached) == 0 || !plan.PurgeRemovedDisks.ValueBool() {
		return true
	}
	missing, ok := r.api.PurgeDetached(ctx, node, vmid, change.Detached, diags)
	if !ok {
		return false
	}
	if len(missing) > 0 {
		diags.AddWarning("Removed Volumes Not Destroyed Yet",
			fmt.Sprintf("Container %d still uses %v until it restarts: PVE removes a mount point from a running container at its next start, "+
				"and keeps the volume as unusedN then. Restart the container and delete the unusedN entry in PVE, "+
				"or set reboot_after_update = true so that updates restart it.", vmid, missing))
	}
	return true
}

// writeConfig sends the one config request of a change, bound to the
// digest of the config it was computed against.
func (r *containerResource) writeConfig(ctx context.Context, node string, vmid int, u *configUpdate, digest string, diags *diag.Diagnostics) bool {
	params := u.delta.Values()
	params.Set("digest", digest)
	if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeLXC, vmid, params); err != nil {
		r.addUpdateError(diags, err)
		return false
	}
	return true
}
