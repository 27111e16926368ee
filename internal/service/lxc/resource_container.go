package lxc

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

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

// NewContainerResource is the pve_container constructor registered with
// the provider.
func NewContainerResource() resource.Resource {
	return fwutil.WithIdentity(newContainerResource(), guestops.ResourceIdentity)
}

func newContainerResource() *containerResource {
	r := &containerResource{}
	r.Resource = guestops.NewResource[containerModel](guestops.Container, containerSchema, "mount_points", r, &r.api)
	return r
}

// containerResource runs the shared guest flows (guestops.Resource and
// Driver) with what is particular to containers: the model, create-only
// keys, root-only rules, volumes that move only while the container is
// stopped. Its steps are grouped by flow: this file reads (FromAPI);
// resource_container_create.go creates, resource_container_update.go
// updates (the config request, volume growth and moves, then the purge of
// detached volumes), resource_container_clone.go and
// resource_container_restore.go make the container from a source,
// resource_container_plan*.go check the plan and move_state*.go take state
// over from other providers. model*.go map the model to PVE's config.
// An import leaves the template null (W35): PVE does not keep it; root's
// keys and password are never read back.
type containerResource struct {
	guestops.Resource[containerModel]
	api guestops.API
}

// The container's own steps of the shared guest flows, with the optional
// one it has: it purges detached volumes once power is settled.
var (
	_ guestops.Hooks[containerModel]          = (*containerResource)(nil)
	_ guestops.UpdateFinisher[containerModel] = (*containerResource)(nil)
)

func (r *containerResource) Attributes(m *containerModel) guestops.Attributes {
	return guestops.Attributes{
		Node:              &m.Node,
		Pool:              &m.Pool,
		VMID:              m.VMID,
		Name:              m.Hostname,
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

func (r *containerResource) FromAPI(m *containerModel, vmid int, config pveapi.GuestConfig, status *pveapi.GuestStatus) error {
	return m.fromAPI(vmid, config, status)
}
