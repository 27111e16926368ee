package qemu

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

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
	return &vmResource{}
}

// vmResource runs the shared guest flows (guestops.Driver) with what is
// particular to VMs: the model, asynchronous config writes, boot order.
type vmResource struct {
	api guestops.API
}

func (r *vmResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vm"
}

func (r *vmResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = vmSchema(ctx)
	resp.Schema.MarkdownDescription += " " + guestops.IdentityNote(guestops.VM)
}

func (r *vmResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if api, ok := guestops.Configure(req.ProviderData, guestops.VM, &resp.Diagnostics); ok {
		r.api = api
	}
}

func (r *vmResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.driver().Create(ctx, req, resp)
}

func (r *vmResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.driver().Read(ctx, req, resp)
	guestops.NoteVanishedVolumes(ctx, req, resp, "disks")
}

func (r *vmResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.driver().Update(ctx, req, resp)
}

func (r *vmResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.driver().Delete(ctx, req, resp)
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
