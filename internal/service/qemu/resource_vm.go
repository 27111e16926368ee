package qemu

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

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

// NewVMResource is the pve_vm constructor registered with the provider.
func NewVMResource() resource.Resource {
	return fwutil.WithIdentity(newVMResource(), guestops.ResourceIdentity)
}

func newVMResource() *vmResource {
	r := &vmResource{}
	r.Resource = guestops.NewResource[vmModel](guestops.VM, vmSchema, "disks", r, &r.api)
	return r
}

// vmResource runs the shared guest flows (guestops.Resource and Driver)
// with what is particular to VMs: the model, asynchronous config writes,
// boot order. Its steps are grouped by flow: this file reads (FromAPI,
// NoteRead, AfterReadBack) and cleans up after delete;
// resource_vm_create.go creates, resource_vm_update.go updates (the config
// request, then disk growth and moves), resource_vm_clone.go and
// resource_vm_restore.go make the VM from a source, resource_vm_plan*.go
// check the plan and move_state*.go take state over from other providers.
// model*.go map the model to PVE's config.
type vmResource struct {
	guestops.Resource[vmModel]
	api guestops.API
}

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

func (r *vmResource) Attributes(m *vmModel) guestops.Attributes {
	return guestops.Attributes{
		Node:              &m.Node,
		Pool:              &m.Pool,
		VMID:              m.VMID,
		Name:              m.Name,
		Description:       &m.Description,
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

// AfterReadBack fills the addresses the guest agent reports.
func (r *vmResource) AfterReadBack(ctx context.Context, node string, vmid int, m, prior *vmModel, diags *diag.Diagnostics) {
	r.refreshAddresses(ctx, node, vmid, m, prior, diags)
}

// AfterDelete removes the cloud-init seed ISO the VM used.
func (r *vmResource) AfterDelete(ctx context.Context, state *vmModel, diags *diag.Diagnostics) {
	r.deleteSeedAfterDestroy(ctx, state, diags)
}
