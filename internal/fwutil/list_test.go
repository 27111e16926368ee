package fwutil

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestListNameMatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"", "anything", true},
		{"web-*", "web-01", true},
		{"web-*", "db-01", false},
		{"web-*", "my-web-01", false},
		{"web-0?", "web-01", true},
		{"web-0?", "web-012", false},
		{"web-[0-4]*", "web-3a", true},
		{"web-[!0-4]*", "web-3a", false},
		{"web-[^0-4]*", "web-5", true},
		{"prod*", "prod/web", true},
		{"prod/*", "prod", false},
		{"a.b", "aXb", false},
		{"a+b(c)", "a+b(c)", true},
	}
	for _, c := range cases {
		if got := ListNameMatches(c.pattern, c.name); got != c.want {
			t.Errorf("ListNameMatches(%q, %q) = %t, want %t", c.pattern, c.name, got, c.want)
		}
	}
}

func TestListNamePatternRefusesBrokenClasses(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{"web-[0", "web-[]", "web-[!]"} {
		var diags diag.Diagnostics
		ListNamePattern(pattern, "name", &diags)
		if !diags.HasError() {
			t.Errorf("%q: no error", pattern)
		}
	}
	var diags diag.Diagnostics
	ListNamePattern("web-[a-z]*", "name", &diags)
	if diags.HasError() {
		t.Errorf("web-[a-z]*: %v", diags)
	}
}

// listedThing is a resource for Listed: its import sets id, its read sets
// name and a private key, and finds "gone" gone and "broken" failing.
type listedThing struct{}

func (listedThing) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "test_thing"
}

func (listedThing) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = listedThingSchema
}

var listedThingSchema = rschema.Schema{Attributes: map[string]rschema.Attribute{
	"id":   rschema.StringAttribute{Computed: true},
	"name": rschema.StringAttribute{Optional: true},
}}

func (listedThing) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (listedThing) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (listedThing) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

func (listedThing) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

func (listedThing) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var id string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	switch id {
	case "gone":
		resp.State.RemoveResource(ctx)
		return
	case "broken":
		resp.Diagnostics.AddError("Unable To Read", "broken")
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, "seen", []byte(`true`))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), "read-"+id)...)
}

// Listed makes the object with the resource's own import and read, its
// identity from the read; without include_resource only the identity; an
// object gone by then is left out, and a failing read is an error result
// that still names the object.
func TestListed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	id := Identity{Attributes: []IdentityAttribute{{Name: "id"}}}
	r := WithIdentity(listedThing{}, id)
	req := list.ListRequest{ResourceSchema: listedThingSchema, ResourceIdentitySchema: id.Schema(), IncludeResource: true}

	result, ok := Listed(ctx, r, req, "a", map[string]string{"id": "a"}, "thing a")
	if !ok || result.Diagnostics.HasError() || result.DisplayName != "thing a" {
		t.Fatalf("Listed(a) = %v, %+v", ok, result)
	}
	var name, identity types.String
	result.Diagnostics.Append(result.Resource.GetAttribute(ctx, path.Root("name"), &name)...)
	result.Diagnostics.Append(result.Identity.GetAttribute(ctx, path.Root("id"), &identity)...)
	if name.ValueString() != "read-a" || identity.ValueString() != "a" || result.Diagnostics.HasError() {
		t.Errorf("object name %s, identity %s: %v", name, identity, result.Diagnostics)
	}

	if _, ok := Listed(ctx, r, req, "gone", map[string]string{"id": "gone"}, ""); ok {
		t.Error("an object gone is listed")
	}

	result, ok = Listed(ctx, r, req, "broken", map[string]string{"id": "broken"}, "")
	if !ok || !result.Diagnostics.HasError() {
		t.Errorf("a failing read: %v, %v", ok, result.Diagnostics)
	}
	result.Diagnostics.Append(result.Identity.GetAttribute(ctx, path.Root("id"), &identity)...)
	if identity.ValueString() != "broken" {
		t.Errorf("the failing object's identity: %s", identity)
	}

	req.IncludeResource = false
	result, ok = Listed(ctx, r, req, "b", map[string]string{"id": "b"}, "")
	result.Diagnostics.Append(result.Identity.GetAttribute(ctx, path.Root("id"), &identity)...)
	if !ok || result.Diagnostics.HasError() || identity.ValueString() != "b" || !result.Resource.Raw.IsNull() {
		t.Errorf("identity only: %v, %s, %v, object %v", ok, identity, result.Diagnostics, result.Resource.Raw)
	}
}
