package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

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
	return &containerResource{}
}

// containerResource runs the shared guest flows (guestops.Driver) with what
// is particular to containers: the model, create-only keys, root-only
// rules, volumes that move only while the container is stopped. Its steps
// are grouped by flow: this file reads (FromAPI);
// resource_container_create.go creates, resource_container_update.go
// updates (the config request, volume growth and moves, then the purge of
// detached volumes), resource_container_clone.go and
// resource_container_restore.go make the container from a source,
// resource_container_plan*.go check the plan and move_state*.go take state
// over from other providers. model*.go map the model to PVE's config.
type containerResource struct {
	api guestops.API
}

func (r *containerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_container"
}

func (r *containerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = containerSchema(ctx)
	resp.Schema.MarkdownDescription += " " + guestops.IdentityNote(guestops.Container)
}

func (r *containerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if api, ok := guestops.Configure(req.ProviderData, guestops.Container, &resp.Diagnostics); ok {
		r.api = api
	}
}

func (r *containerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.driver().Create(ctx, req, resp)
}

func (r *containerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.driver().Read(ctx, req, resp)
	guestops.NoteVanishedVolumes(ctx, req, resp, "mount_points")
}

func (r *containerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.driver().Update(ctx, req, resp)
}

func (r *containerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.driver().Delete(ctx, req, resp)
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
