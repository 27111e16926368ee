package lxc

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

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
// rules, volumes that move only while the container is stopped.
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
