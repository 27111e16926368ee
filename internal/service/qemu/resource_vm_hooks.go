package qemu

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// The VM's own steps of the shared guest flows, with the optional ones it
// has: PCI devices noted at refresh, the clone source checked and its
// inherited seed dropped, the agent's addresses read back, the seed ISO
// removed after destroy.
var (
	_ guestops.Hooks[vmModel]              = (*vmResource)(nil)
	_ guestops.ReadNoter[vmModel]          = (*vmResource)(nil)
	_ guestops.CloneSourceChecker[vmModel] = (*vmResource)(nil)
	_ guestops.ClonePreparer[vmModel]      = (*vmResource)(nil)
	_ guestops.ReadBackCompleter[vmModel]  = (*vmResource)(nil)
	_ guestops.DeleteCleaner[vmModel]      = (*vmResource)(nil)
)

// driver runs pve_vm's create, read, update and delete.
func (r *vmResource) driver() guestops.Driver[vmModel] {
	return guestops.Driver[vmModel]{API: r.api, Hooks: r}
}

func (r *vmResource) Attributes(m *vmModel) guestops.Attributes {
	return guestops.Attributes{
		Node:              &m.Node,
		Pool:              &m.Pool,
		VMID:              m.VMID,
		Name:              m.Name,
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

func (r *vmResource) FromAPI(m *vmModel, vmid int, config pveapi.GuestConfig, status *pveapi.GuestStatus) error {
	return m.fromAPI(vmid, config, status)
}

// NoteRead remembers the PCI devices the configuration does not declare,
// for the plan.
func (r *vmResource) NoteRead(ctx context.Context, live guestops.Live, m *vmModel, private guestops.PrivateSetter, diags *diag.Diagnostics) {
	notePCI(ctx, live.Config, m, private, diags)
}

func (r *vmResource) CreateForm(_ context.Context, _ tfsdk.Config, plan *vmModel, diags *diag.Diagnostics) (url.Values, bool) {
	form, err := plan.toCreate()
	if err != nil {
		diags.AddError("Invalid VM Configuration", err.Error())
		return nil, false
	}
	return form, true
}

func (r *vmResource) Recognize(plan *vmModel, config pveapi.GuestConfig, form url.Values) bool {
	return plan.recognize(config, form)
}

// CheckCloneSource refuses a clone that cannot reach its node.
func (r *vmResource) CheckCloneSource(ctx context.Context, source guestops.CloneSource, plan *vmModel, diags *diag.Diagnostics) bool {
	return r.checkCloneCanMove(ctx, source, plan, diags)
}

// PrepareClone drops the seed ISO the clone inherited, before the clone
// moves to its node.
func (r *vmResource) PrepareClone(ctx context.Context, node string, vmid int, plan *vmModel, diags *diag.Diagnostics) bool {
	return r.dropInheritedSeed(ctx, node, vmid, plan, diags)
}

func (r *vmResource) RestoreForm(plan *vmModel, archive pveapi.GuestConfig, diags *diag.Diagnostics) (url.Values, bool) {
	form, err := restoreForm(plan, archive)
	if err != nil {
		diags.AddError("Invalid VM Configuration", err.Error())
		return nil, false
	}
	return form, true
}

// FinishCreate grows the disks seeded from an image, which have the
// image's size, to the configured size (W25, W22), and writes cloud-init.
func (r *vmResource) FinishCreate(ctx context.Context, config tfsdk.Config, node string, vmid int, plan *vmModel, diags *diag.Diagnostics) bool {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM After Creating It", err)
		return false
	}
	if !r.finishDisks(ctx, node, vmid, plan, live, diags) {
		return false
	}
	return r.applyCloudInit(ctx, config, node, vmid, nil, plan, nil, diags)
}

// ApplyUpdate writes the config request, purges the disks it detached when
// asked to, syncs cloud-init, then fixes the boot order and runs the disk
// tasks against the config as it is now.
func (r *vmResource) ApplyUpdate(ctx context.Context, config tfsdk.Config, node string, vmid int, state, plan *vmModel, diags *diag.Diagnostics) (guestops.ConfigChange, bool) {
	live, err := r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read VM", err)
		return guestops.ConfigChange{}, false
	}
	update, err := r.updateFor(ctx, state, plan, live)
	if err != nil {
		diags.AddError("Unable To Plan VM Update", err.Error())
		return guestops.ConfigChange{}, false
	}
	if !r.stopForCloudInitMove(ctx, node, vmid, state, plan, diags) {
		return guestops.ConfigChange{}, false
	}
	configWritten := !update.delta.IsEmpty()
	if configWritten && !r.writeConfig(ctx, node, vmid, update, live.Digest(), diags) {
		return guestops.ConfigChange{}, false
	}
	if len(update.detached) > 0 && plan.PurgeRemovedDisks.ValueBool() {
		if _, ok := r.api.PurgeDetached(ctx, node, vmid, update.detached, diags); !ok {
			return guestops.ConfigChange{}, false
		}
	}
	if !r.applyCloudInit(ctx, config, node, vmid, state, plan, &configWritten, diags) {
		return guestops.ConfigChange{}, false
	}
	if configWritten {
		if live, err = r.api.Client.GuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid); err != nil {
			fwutil.AddAPIError(diags, "Unable To Read VM", err)
			return guestops.ConfigChange{}, false
		}
	}
	if !r.finishConfig(ctx, node, vmid, plan, live, diags) {
		return guestops.ConfigChange{}, false
	}
	return guestops.ConfigChange{Written: configWritten}, true
}

// AfterReadBack fills the addresses the guest agent reports.
func (r *vmResource) AfterReadBack(ctx context.Context, node string, vmid int, m, prior *vmModel, diags *diag.Diagnostics) {
	r.refreshAddresses(ctx, node, vmid, m, prior, diags)
}

// AfterDelete removes the cloud-init seed ISO the VM used.
func (r *vmResource) AfterDelete(ctx context.Context, state *vmModel, diags *diag.Diagnostics) {
	r.deleteSeedAfterDestroy(ctx, state, diags)
}

// finishConfig ends a configuration against live, the config after the
// config request: the boot order, which may name disks that request
// added, then the disk tasks.
func (r *vmResource) finishConfig(ctx context.Context, node string, vmid int, plan *vmModel, live pveapi.GuestConfig, diags *diag.Diagnostics) bool {
	if boot, needed := bootOrderFix(plan, live); needed {
		if err := r.api.Client.UpdateGuestConfig(ctx, node, pveapi.GuestTypeQemu, vmid, url.Values{keyBoot: {boot}}); err != nil {
			fwutil.AddAttributeAPIError(diags, path.Root("boot_order"), "Unable To Set Boot Order", err)
			return false
		}
	}
	return r.finishDisks(ctx, node, vmid, plan, live, diags)
}
