package fwutil

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// List resources (Terraform 1.14 and later, `terraform query`): a list
// resource finds the objects of a resource type and returns each one's
// identity and, when asked (include_resource), the object itself. The
// object must be what an import of it produces, so that the configuration
// `terraform query -generate-config-out` writes from it plans no change
// after the import: Listed makes it with the resource's own ImportState
// and Read, the two calls an import block makes, and no mapping of its own.

// Listed is the list result of the object whose import id is importID and
// whose identity has values (as ImportID takes them). With
// req.IncludeResource the object is imported and read with r, a resource
// made by WithIdentity and configured; its identity is then the one that
// read returns. ok is false when the object is gone by the time it is
// read: it is left out of the listing.
func Listed(ctx context.Context, r resource.Resource, req list.ListRequest, importID string, values map[string]string, display string) (result list.ListResult, ok bool) {
	result = req.NewListResult(ctx)
	result.DisplayName = display
	w, isIdentified := r.(*identified)
	if !isIdentified {
		result.Diagnostics.AddError("Listing Not Supported",
			fmt.Sprintf("%T has no identity to list it by. This is a bug in the provider; please report it.", r))
		return result, true
	}
	if !req.IncludeResource {
		result.Diagnostics.Append(w.id.setValues(ctx, result.Identity, values)...)
		return result, true
	}
	state, identity, diags, found := importAndRead(ctx, w, req, importID)
	result.Diagnostics.Append(diags...)
	if diags.HasError() {
		// The identity is still known: Terraform shows the error with it.
		result.Diagnostics.Append(w.id.setValues(ctx, result.Identity, values)...)
		return result, true
	}
	if !found {
		return result, false
	}
	result.Resource.Raw = state.Raw
	result.Identity.Raw = identity.Raw
	return result, true
}

// importAndRead runs r's ImportState of id and its Read of what that
// leaves, as an import block does; found is false when the read finds
// the object gone.
func importAndRead(ctx context.Context, r resource.Resource, req list.ListRequest, id string) (tfsdk.State, tfsdk.ResourceIdentity, diag.Diagnostics, bool) {
	var diags diag.Diagnostics
	nullState := tfsdk.State{Raw: tftypes.NewValue(req.ResourceSchema.Type().TerraformType(ctx), nil), Schema: req.ResourceSchema}
	nullIdentity := tfsdk.ResourceIdentity{
		Raw:    tftypes.NewValue(req.ResourceIdentitySchema.Type().TerraformType(ctx), nil),
		Schema: req.ResourceIdentitySchema,
	}
	imp, ok := r.(resource.ResourceWithImportState)
	if !ok {
		diags.AddError("Resource Import Not Implemented", "This resource does not support import.")
		return nullState, nullIdentity, diags, false
	}
	impIdentity := nullIdentity
	impResp := resource.ImportStateResponse{State: nullState, Identity: &impIdentity}
	emptyPrivate(&impResp.Private)
	imp.ImportState(ctx, resource.ImportStateRequest{ID: id}, &impResp)
	diags.Append(impResp.Diagnostics...)
	if diags.HasError() {
		return nullState, nullIdentity, diags, false
	}
	readIdentity := *impResp.Identity
	readResp := resource.ReadResponse{State: impResp.State, Identity: &readIdentity}
	emptyPrivate(&readResp.Private)
	r.Read(ctx, resource.ReadRequest{State: impResp.State, Identity: impResp.Identity, Private: impResp.Private}, &readResp)
	diags.Append(readResp.Diagnostics...)
	if diags.HasError() || readResp.State.Raw.IsNull() {
		return nullState, nullIdentity, diags, false
	}
	return readResp.State, *readResp.Identity, diags, true
}

// emptyPrivate sets *field, a response's private state, to empty private
// state, as the framework does before it calls the resource: a resource
// may store keys in it. The framework's type is not exported; a zero
// value of it is empty private state.
func emptyPrivate(field any) {
	p := reflect.ValueOf(field).Elem()
	p.Set(reflect.New(p.Type().Elem()))
}

// setValues sets identity's attributes from values (an Int64 in decimal;
// an absent or empty value is null).
func (id Identity) setValues(ctx context.Context, identity *tfsdk.ResourceIdentity, values map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, a := range id.Attributes {
		s, ok := values[a.Name]
		switch {
		case a.Int && ok && s != "":
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				diags.AddError("Invalid Identity Value", fmt.Sprintf("%s is not a number: %q.", a.Name, s))
				continue
			}
			diags.Append(identity.SetAttribute(ctx, path.Root(a.Name), types.Int64Value(n))...)
		case a.Int:
			diags.Append(identity.SetAttribute(ctx, path.Root(a.Name), types.Int64Null())...)
		case ok && s != "":
			diags.Append(identity.SetAttribute(ctx, path.Root(a.Name), types.StringValue(s))...)
		default:
			diags.Append(identity.SetAttribute(ctx, path.Root(a.Name), types.StringNull())...)
		}
	}
	return diags
}

// ConfigureListed configures r, the resource a list resource lists the
// objects of, with the list resource's provider data, for Listed.
func ConfigureListed(ctx context.Context, r resource.Resource, providerData any) diag.Diagnostics {
	c, ok := r.(resource.ResourceWithConfigure)
	if !ok {
		return nil
	}
	var resp resource.ConfigureResponse
	c.Configure(ctx, resource.ConfigureRequest{ProviderData: providerData}, &resp)
	return resp.Diagnostics
}

// ListNamePattern checks a list filter's shell pattern (`*` for any run
// of characters, `/` included; `?` for one; `[a-z]` or `[!a-z]` for one of
// a class or not), an error naming attribute when it is not one.
func ListNamePattern(pattern, attribute string, diags *diag.Diagnostics) {
	if _, err := globRegexp(pattern); err != nil {
		diags.AddAttributeError(path.Root(attribute), "Invalid Name Pattern",
			fmt.Sprintf("%q is not a valid pattern: %v. Use * for any run of characters, ? for one, [a-z] for one of a class.", pattern, err))
	}
}

// ListNameMatches reports whether the whole of name matches pattern
// (checked with ListNamePattern; "" matches every name).
func ListNameMatches(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	re, err := globRegexp(pattern)
	return err == nil && re.MatchString(name)
}

// globRegexp is the anchored regular expression of a shell pattern.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				return nil, errors.New("a [ without its ]")
			}
			class := pattern[i+1 : i+1+end]
			negate := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if negate {
				class = class[1:]
			}
			if class == "" {
				return nil, errors.New("an empty [] class")
			}
			b.WriteString("[")
			if negate {
				b.WriteString("^")
			}
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(class, `\`, `\\`), "[", `\[`))
			b.WriteString("]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
