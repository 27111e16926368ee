package guestops

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
)

// GuestResource is what a template resource reuses of its guest resource:
// the whole create, read, update and delete flow and the plan checks.
type GuestResource interface {
	resource.ResourceWithConfigure
	resource.ResourceWithModifyPlan
	resource.ResourceWithValidateConfig
}

// TemplateResource is a guest resource that ends its create by marking the
// guest a template (W17). A template shares its guest's model and flows:
// its schema is the guest's minus what a template cannot have (power
// state, guest agent addresses), and every request is widened to the
// guest's schema (the missing attributes null), handed to the guest
// resource, and its answer narrowed back.
type TemplateResource struct {
	// Guest is the pve_vm or pve_container resource being reused.
	Guest GuestResource
	// Kind is VMTemplate or ContainerTemplate.
	Kind Kind
	// Narrow derives the template's schema from the guest's.
	Narrow func(guest schema.Schema) schema.Schema

	api API
}

var (
	_ resource.Resource                   = (*TemplateResource)(nil)
	_ resource.ResourceWithConfigure      = (*TemplateResource)(nil)
	_ resource.ResourceWithImportState    = (*TemplateResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*TemplateResource)(nil)
	_ resource.ResourceWithValidateConfig = (*TemplateResource)(nil)
)

// TemplateDropped are the guest attributes a template has no use for: it
// never runs (W17), so it has no power state, no status and nothing to
// reboot.
var TemplateDropped = []string{"started", "status", "reboot_after_update"}

// WithoutAttributes is s minus the named top-level attributes, with
// description as its description.
func WithoutAttributes(s schema.Schema, description string, names ...string) schema.Schema {
	attrs := make(map[string]schema.Attribute, len(s.Attributes))
	for name, a := range s.Attributes {
		attrs[name] = a
	}
	for _, name := range names {
		delete(attrs, name)
	}
	s.Attributes = attrs
	s.MarkdownDescription = description
	return s
}

func (t *TemplateResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + strings.TrimPrefix(t.Kind.Resource, "pve")
}

func (t *TemplateResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = t.Narrow(t.guestSchema(ctx))
	// The guest's text speaks of a guest that runs; a template never does.
	if node, ok := resp.Schema.Attributes["node"].(schema.StringAttribute); ok {
		node.MarkdownDescription = NodeDescription(t.Kind)
		resp.Schema.Attributes["node"] = node
	}
}

// KindUser is a guest resource whose messages can name the template kind
// ("Unable To Delete VM Template") instead of its own.
type KindUser interface {
	UseKind(kind Kind)
}

func (t *TemplateResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	t.Guest.Configure(ctx, req, resp)
	if user, ok := t.Guest.(KindUser); ok && !resp.Diagnostics.HasError() {
		user.UseKind(t.Kind)
	}
	if api, ok := Configure(req.ProviderData, t.Kind, &resp.Diagnostics); ok {
		t.api = api
	}
}

func (t *TemplateResource) guestSchema(ctx context.Context) schema.Schema {
	var resp resource.SchemaResponse
	t.Guest.Schema(ctx, resource.SchemaRequest{}, &resp)
	return resp.Schema
}

// shapes holds both schemas of one request.
type shapes struct {
	guest, template schema.Schema
}

func (t *TemplateResource) shapes(ctx context.Context) shapes {
	guest := t.guestSchema(ctx)
	return shapes{guest: guest, template: t.Narrow(guest)}
}

// widen gives raw (a template value) the guest schema's shape.
func (s shapes) widen(ctx context.Context, raw tftypes.Value, diags *diag.Diagnostics) tftypes.Value {
	return reshapeOrReport(raw, s.guest.Type().TerraformType(ctx), diags)
}

// narrow gives raw (a guest value) the template schema's shape.
func (s shapes) narrow(ctx context.Context, raw tftypes.Value, diags *diag.Diagnostics) tftypes.Value {
	return reshapeOrReport(raw, s.template.Type().TerraformType(ctx), diags)
}

func reshapeOrReport(raw tftypes.Value, to tftypes.Type, diags *diag.Diagnostics) tftypes.Value {
	out, err := fwutil.Reshape(raw, to)
	if err != nil {
		diags.AddError("Internal Error: Unable To Map Template Values", err.Error())
	}
	return out
}

func (s shapes) plan(ctx context.Context, p tfsdk.Plan, diags *diag.Diagnostics) tfsdk.Plan {
	return tfsdk.Plan{Schema: s.guest, Raw: s.widen(ctx, p.Raw, diags)}
}

func (s shapes) state(ctx context.Context, st tfsdk.State, diags *diag.Diagnostics) tfsdk.State {
	return tfsdk.State{Schema: s.guest, Raw: s.widen(ctx, st.Raw, diags)}
}

func (s shapes) config(ctx context.Context, c tfsdk.Config, diags *diag.Diagnostics) tfsdk.Config {
	return tfsdk.Config{Schema: s.guest, Raw: s.widen(ctx, c.Raw, diags)}
}

func (t *TemplateResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	s := t.shapes(ctx)
	inner := resource.ValidateConfigRequest{Config: s.config(ctx, req.Config, &resp.Diagnostics)}
	if resp.Diagnostics.HasError() {
		return
	}
	t.Guest.ValidateConfig(ctx, inner, resp)
}

func (t *TemplateResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	s := t.shapes(ctx)
	inner := resource.ModifyPlanRequest{
		Config:             s.config(ctx, req.Config, &resp.Diagnostics),
		Plan:               s.plan(ctx, req.Plan, &resp.Diagnostics),
		State:              s.state(ctx, req.State, &resp.Diagnostics),
		Private:            req.Private,
		ProviderMeta:       req.ProviderMeta,
		ClientCapabilities: req.ClientCapabilities,
	}
	if resp.Diagnostics.HasError() {
		return
	}
	innerResp := resource.ModifyPlanResponse{Plan: inner.Plan, Private: resp.Private, RequiresReplace: resp.RequiresReplace}
	t.Guest.ModifyPlan(ctx, inner, &innerResp)
	resp.Diagnostics.Append(innerResp.Diagnostics...)
	resp.Plan.Raw = s.narrow(ctx, innerResp.Plan.Raw, &resp.Diagnostics)
	resp.RequiresReplace = nil
	for _, p := range innerResp.RequiresReplace {
		if _, kept := s.template.Attributes[rootName(p)]; kept {
			resp.RequiresReplace = append(resp.RequiresReplace, p)
		}
	}
}

// rootName is the top-level attribute a path starts at.
func rootName(p path.Path) string {
	steps := p.Steps()
	if len(steps) == 0 {
		return ""
	}
	if name, ok := steps[0].(path.PathStepAttributeName); ok {
		return string(name)
	}
	return ""
}

// Create creates the guest as its resource does, never started, then marks
// it a template and reads it again: marking renames volumes (W17).
func (t *TemplateResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	s := t.shapes(ctx)
	inner := resource.CreateRequest{
		Config:       s.config(ctx, req.Config, &resp.Diagnostics),
		Plan:         s.plan(ctx, req.Plan, &resp.Diagnostics),
		ProviderMeta: req.ProviderMeta,
	}
	if resp.Diagnostics.HasError() {
		return
	}
	innerResp := resource.CreateResponse{State: tfsdk.State{Schema: s.guest, Raw: tftypes.NewValue(s.guest.Type().TerraformType(ctx), nil)}, Private: resp.Private}
	t.Guest.Create(ctx, inner, &innerResp)
	resp.Diagnostics.Append(innerResp.Diagnostics...)
	if !innerResp.State.Raw.IsNull() {
		resp.State.Raw = s.narrow(ctx, innerResp.State.Raw, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}

	node, vmid, ok := identity(ctx, innerResp.State, &resp.Diagnostics)
	if !ok || !t.api.MarkTemplate(ctx, node, vmid, &resp.Diagnostics) {
		return
	}
	readResp := resource.ReadResponse{State: innerResp.State, Private: resp.Private}
	t.Guest.Read(ctx, resource.ReadRequest{State: innerResp.State, Private: resp.Private, ProviderMeta: req.ProviderMeta}, &readResp)
	resp.Diagnostics.Append(readResp.Diagnostics...)
	if !readResp.State.Raw.IsNull() {
		resp.State.Raw = s.narrow(ctx, readResp.State.Raw, &resp.Diagnostics)
		// As after any create, state holds what the plan declares.
		MaskCloneState(&resp.State, req.Plan.Raw, &resp.Diagnostics)
	}
}

func identity(ctx context.Context, state tfsdk.State, diags *diag.Diagnostics) (string, int, bool) {
	var node string
	var vmid int64
	diags.Append(state.GetAttribute(ctx, path.Root("node"), &node)...)
	diags.Append(state.GetAttribute(ctx, path.Root("vmid"), &vmid)...)
	return node, int(vmid), !diags.HasError()
}

// MarkTemplate turns the guest into a template: qemu answers with a task,
// lxc converts before answering (W9); either way it is one-way (W17).
func (a API) MarkTemplate(ctx context.Context, node string, vmid int, diags *diag.Diagnostics) bool {
	summary := "Unable To Make " + fwutil.Capitalize(a.Kind.Noun)
	return a.Kind.markTemplate(a, ctx, node, vmid, summary, diags)
}

func (t *TemplateResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	s := t.shapes(ctx)
	inner := resource.ReadRequest{State: s.state(ctx, req.State, &resp.Diagnostics), Private: req.Private, ProviderMeta: req.ProviderMeta, ClientCapabilities: req.ClientCapabilities}
	if resp.Diagnostics.HasError() {
		return
	}
	innerResp := resource.ReadResponse{State: inner.State, Private: resp.Private}
	t.Guest.Read(ctx, inner, &innerResp)
	resp.Diagnostics.Append(innerResp.Diagnostics...)
	resp.State.Raw = s.narrow(ctx, innerResp.State.Raw, &resp.Diagnostics)
}

func (t *TemplateResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	s := t.shapes(ctx)
	inner := resource.UpdateRequest{
		Config:       s.config(ctx, req.Config, &resp.Diagnostics),
		Plan:         s.plan(ctx, req.Plan, &resp.Diagnostics),
		State:        s.state(ctx, req.State, &resp.Diagnostics),
		Private:      req.Private,
		ProviderMeta: req.ProviderMeta,
	}
	if resp.Diagnostics.HasError() {
		return
	}
	innerResp := resource.UpdateResponse{State: inner.State, Private: resp.Private}
	t.Guest.Update(ctx, inner, &innerResp)
	resp.Diagnostics.Append(innerResp.Diagnostics...)
	resp.State.Raw = s.narrow(ctx, innerResp.State.Raw, &resp.Diagnostics)
}

// Delete destroys the template with its base volumes. PVE refuses while
// a linked clone still uses one; the error then says what to do.
func (t *TemplateResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	s := t.shapes(ctx)
	inner := resource.DeleteRequest{State: s.state(ctx, req.State, &resp.Diagnostics), Private: req.Private, ProviderMeta: req.ProviderMeta}
	if resp.Diagnostics.HasError() {
		return
	}
	innerResp := resource.DeleteResponse{State: inner.State, Private: resp.Private}
	t.Guest.Delete(ctx, inner, &innerResp)
	resp.Diagnostics.Append(innerResp.Diagnostics...)
	if usedByLinkedClone(innerResp.Diagnostics) {
		resp.Diagnostics.AddError(t.Kind.Title+" Still Has Linked Clones",
			fmt.Sprintf("PVE keeps a %s while linked clones use its base volumes. Destroy those clones first "+
				"(or replace them with full clones), then destroy the template.", t.Kind.Noun))
	}
}

// usedByLinkedClone tells PVE's refusal to free a base volume that a
// linked clone still uses.
func usedByLinkedClone(diags diag.Diagnostics) bool {
	for _, d := range diags.Errors() {
		if strings.Contains(d.Detail(), "still in use by linked clone") {
			return true
		}
	}
	return false
}

// ImportState takes "VMID" or "NODE/VMID" of a template; a guest that is
// not a template is refused (W17). Settings the guest resource has no
// attribute for are named in a warning.
func (t *TemplateResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	owner, _ := t.Guest.(ConfigKeyOwner)
	if !t.api.ImportWithWarning(ctx, req, resp, owner) {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("purge_removed_disks"), false)...)
}

// wrongTemplateKind is the import error for a template imported as a
// guest or a guest imported as a template: neither can become the other
// in place (W17).
func wrongTemplateKind(kind Kind, vmid int) (summary, detail string) {
	if kind.Template {
		guest := strings.TrimSuffix(kind.Resource, "_template")
		return "Not A " + kind.Title, fmt.Sprintf("Guest %d is not a template; import it as %s. "+
			"Making it a template is one-way: create the template with %s instead.", vmid, guest, kind.Resource)
	}
	return kind.Title + " Is A Template", fmt.Sprintf("Guest %d is a template; import it as %s_template. "+
		"A template cannot become a %s again.", vmid, kind.Resource, kind.Noun)
}
