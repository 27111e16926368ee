package fwutil

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform 1.12 and later): each resource names the
// object it manages by its natural key, the attributes of its import id,
// so that `import { identity = {...} }` finds it and Terraform can tell
// objects apart without the id string. A resource declares its key as an
// Identity and its constructor returns WithIdentity(resource, key): the
// identity is then taken from the state after every Create, Read and
// Update (so state written before identity existed gets one at its next
// refresh, and an apply without refresh still writes one), and an import
// by identity becomes the import of the id ImportID builds from it, so
// both reach the same object through the resource's own checks.

// IdentityAttribute is one attribute of a resource's identity, a copy of
// the state attribute State (Name when empty), a string or an Int64.
type IdentityAttribute struct {
	Name        string
	State       string
	Int         bool
	Optional    bool // optional for import: looked up or implied when absent
	Description string
}

// stateName is the state attribute the identity attribute copies.
func (a IdentityAttribute) stateName() string {
	if a.State != "" {
		return a.State
	}
	return a.Name
}

// Identity is a resource's natural key.
type Identity struct {
	Attributes []IdentityAttribute
	// ImportID is the import id of the object with these identity
	// values (a null value is ""; an Int64 in decimal). Nil: the single
	// attribute's value.
	ImportID func(values map[string]string) string
	// Mutable is set when the object keeps its identity's required
	// attributes but the others follow it (a guest's node after a
	// migration): the framework then lets a refresh or update change it.
	Mutable bool
}

// importID is the import id of identity values.
func (id Identity) importID(values map[string]string) string {
	if id.ImportID != nil {
		return id.ImportID(values)
	}
	return values[id.Attributes[0].Name]
}

// Schema is the identity schema: every attribute with its description, as
// the documentation shows it.
func (id Identity) Schema() identityschema.Schema {
	attrs := make(map[string]identityschema.Attribute, len(id.Attributes))
	for _, a := range id.Attributes {
		if a.Int {
			attrs[a.Name] = identityschema.Int64Attribute{
				Description: a.Description, RequiredForImport: !a.Optional, OptionalForImport: a.Optional,
			}
			continue
		}
		attrs[a.Name] = identityschema.StringAttribute{
			Description: a.Description, RequiredForImport: !a.Optional, OptionalForImport: a.Optional,
		}
	}
	return identityschema.Schema{Attributes: attrs}
}

// fromState sets identity from the key attributes of state; a null or
// unknown state attribute leaves the identity attribute null.
func (id Identity) fromState(ctx context.Context, state tfsdk.State, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, a := range id.Attributes {
		var v attr.Value
		if a.Int {
			var n types.Int64
			diags.Append(state.GetAttribute(ctx, path.Root(a.stateName()), &n)...)
			if n.IsUnknown() {
				n = types.Int64Null()
			}
			v = n
		} else {
			var s types.String
			diags.Append(state.GetAttribute(ctx, path.Root(a.stateName()), &s)...)
			if s.IsUnknown() {
				s = types.StringNull()
			}
			v = s
		}
		diags.Append(identity.SetAttribute(ctx, path.Root(a.Name), v)...)
	}
	return diags
}

// values are identity's attributes as text, for ImportID.
func (id Identity) values(ctx context.Context, identity *tfsdk.ResourceIdentity) (map[string]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := make(map[string]string, len(id.Attributes))
	for _, a := range id.Attributes {
		if a.Int {
			var n types.Int64
			diags.Append(identity.GetAttribute(ctx, path.Root(a.Name), &n)...)
			if !n.IsNull() && !n.IsUnknown() {
				out[a.Name] = strconv.FormatInt(n.ValueInt64(), 10)
			}
		} else {
			var s types.String
			diags.Append(identity.GetAttribute(ctx, path.Root(a.Name), &s)...)
			out[a.Name] = s.ValueString()
		}
		if out[a.Name] == "" && !a.Optional {
			diags.AddAttributeError(path.Root(a.Name), "Missing Identity Attribute",
				fmt.Sprintf("The identity needs %s to find the object to import.", a.Name))
		}
	}
	return out, diags
}

// WithIdentity gives r the identity id. The resource keeps everything
// else it implements; what it does not implement behaves as if absent.
func WithIdentity(r resource.Resource, id Identity) resource.Resource {
	return &identified{inner: r, id: id}
}

// Unidentified is the resource WithIdentity wrapped (r itself otherwise),
// for tests that look at a resource's own type.
func Unidentified(r resource.Resource) resource.Resource {
	if w, ok := r.(*identified); ok {
		return w.inner
	}
	return r
}

type identified struct {
	inner resource.Resource
	id    Identity
}

var (
	_ resource.ResourceWithIdentity         = (*identified)(nil)
	_ resource.ResourceWithConfigure        = (*identified)(nil)
	_ resource.ResourceWithImportState      = (*identified)(nil)
	_ resource.ResourceWithModifyPlan       = (*identified)(nil)
	_ resource.ResourceWithValidateConfig   = (*identified)(nil)
	_ resource.ResourceWithConfigValidators = (*identified)(nil)
	_ resource.ResourceWithMoveState        = (*identified)(nil)
	_ resource.ResourceWithUpgradeState     = (*identified)(nil)
)

func (r *identified) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.inner.Metadata(ctx, req, resp)
	if r.id.Mutable {
		resp.ResourceBehavior.MutableIdentity = true
	}
}

func (r *identified) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.inner.Schema(ctx, req, resp)
}

func (r *identified) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = r.id.Schema()
}

func (r *identified) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.inner.Create(ctx, req, resp)
	if !resp.State.Raw.IsNull() && resp.Identity != nil {
		resp.Diagnostics.Append(r.id.fromState(ctx, resp.State, resp.Identity)...)
	}
}

func (r *identified) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.inner.Read(ctx, req, resp)
	if resp.Identity == nil {
		return
	}
	// An object gone keeps the identity it had; for a state stored before
	// identity existed that is its last state's key, not nothing.
	from := resp.State
	if from.Raw.IsNull() {
		if !resp.Identity.Raw.IsFullyNull() {
			return
		}
		from = req.State
	}
	resp.Diagnostics.Append(r.id.fromState(ctx, from, resp.Identity)...)
}

func (r *identified) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.inner.Update(ctx, req, resp)
	if !resp.State.Raw.IsNull() && resp.Identity != nil {
		resp.Diagnostics.Append(r.id.fromState(ctx, resp.State, resp.Identity)...)
	}
}

func (r *identified) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.inner.Delete(ctx, req, resp)
}

func (r *identified) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := r.inner.(resource.ResourceWithConfigure); ok {
		c.Configure(ctx, req, resp)
	}
}

// ImportState imports by id as the resource does; an import by identity
// is the import of the id its values make. The identity of an import by
// id is left to the refresh that follows, which reads the object.
func (r *identified) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	imp, ok := r.inner.(resource.ResourceWithImportState)
	if !ok {
		resp.Diagnostics.AddError("Resource Import Not Implemented",
			"This resource does not support import. Please contact the provider developer for additional information.")
		return
	}
	byIdentity := req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull()
	if byIdentity {
		values, diags := r.id.values(ctx, req.Identity)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		req.ID = r.id.importID(values)
	}
	imp.ImportState(ctx, req, resp)
	if byIdentity && !resp.Diagnostics.HasError() && resp.Identity != nil {
		resp.Diagnostics.Append(r.id.fromState(ctx, resp.State, resp.Identity)...)
	}
}

func (r *identified) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if m, ok := r.inner.(resource.ResourceWithModifyPlan); ok {
		m.ModifyPlan(ctx, req, resp)
	}
}

func (r *identified) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if v, ok := r.inner.(resource.ResourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

func (r *identified) ConfigValidators(ctx context.Context) []resource.ConfigValidator {
	if v, ok := r.inner.(resource.ResourceWithConfigValidators); ok {
		return v.ConfigValidators(ctx)
	}
	return nil
}

func (r *identified) MoveState(ctx context.Context) []resource.StateMover {
	if m, ok := r.inner.(resource.ResourceWithMoveState); ok {
		return m.MoveState(ctx)
	}
	return nil
}

func (r *identified) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	if u, ok := r.inner.(resource.ResourceWithUpgradeState); ok {
		return u.UpgradeState(ctx)
	}
	return nil
}
