package guestops

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Resource is the framework side of a guest resource, which is the same
// for every kind: the type name, the schema with its identity note,
// Configure, the four operations (run by Driver) and ImportState. A kind
// embeds it and states only what is its own: the kind, the schema, the
// model M and the hooks (usually the embedding resource itself).
type Resource[M any] struct {
	kind      Kind
	newSchema func(context.Context) schema.Schema
	// volumes is the attribute holding the kind's volumes by slot, whose
	// vanished volumes a refresh notes for the plan.
	volumes string
	hooks   ResourceHooks[M]
	// api is the embedding resource's own API field: its hooks use the API
	// Configure sets, and UseKind renames the kind in it.
	api *API
}

// ResourceHooks are a kind's steps: the driver's, and the checks of a
// configuration that need several attributes at once.
type ResourceHooks[M any] interface {
	Hooks[M]
	CheckConfig(m *M) []Issue
}

// NewResource is the shared part of a guest resource of kind. api points
// at the embedding resource's API, which Configure fills.
func NewResource[M any](kind Kind, newSchema func(context.Context) schema.Schema, volumes string, hooks ResourceHooks[M], api *API) Resource[M] {
	return Resource[M]{kind: kind, newSchema: newSchema, volumes: volumes, hooks: hooks, api: api}
}

func (r *Resource[M]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + strings.TrimPrefix(r.kind.Resource, "pve")
}

func (r *Resource[M]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.newSchema(ctx)
	resp.Schema.MarkdownDescription += " " + IdentityNote(r.kind)
}

func (r *Resource[M]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if api, ok := Configure(req.ProviderData, r.kind, &resp.Diagnostics); ok {
		*r.api = api
	}
}

// UseKind lets a template's messages name it as such (see KindUser).
func (r *Resource[M]) UseKind(kind Kind) { r.api.Kind = kind }

// Driver runs the resource's create, read, update and delete.
func (r *Resource[M]) Driver() Driver[M] {
	return Driver[M]{API: *r.api, Hooks: r.hooks}
}

// ValidateConfig runs the kind's CheckConfig on a configuration whose
// values are all known; the others are checked at apply.
func (r *Resource[M]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, ok := ReadModel[M](ctx, req.Config)
	if !ok {
		return
	}
	AddIssues(&resp.Diagnostics, r.hooks.CheckConfig(m))
}

func (r *Resource[M]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Driver().Create(ctx, req, resp)
}

func (r *Resource[M]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Driver().Read(ctx, req, resp)
	NoteVanishedVolumes(ctx, req, resp, r.volumes)
}

func (r *Resource[M]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.Driver().Update(ctx, req, resp)
}

func (r *Resource[M]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.Driver().Delete(ctx, req, resp)
}

// ImportState takes "VMID" or "NODE/VMID". Settings no attribute
// represents are named in a warning (when the hooks tell them,
// ConfigKeyOwner). What PVE cannot report stays null; the provider-side
// options start at false.
func (r *Resource[M]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	owner, _ := r.hooks.(ConfigKeyOwner)
	if !r.api.ImportWithWarning(ctx, req, resp, owner) {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("purge_removed_disks"), false)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("reboot_after_update"), false)...)
}
