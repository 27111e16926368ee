package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Listed is one result of a list resource, as `terraform query` receives
// it: the object's identity, the object itself when asked for, the name
// shown for it and its diagnostics.
type Listed struct {
	DisplayName string
	Identity    *tfprotov6.ResourceIdentityData
	Resource    *tfprotov6.DynamicValue
	Diagnostics []*tfprotov6.Diagnostic
}

// ListConfig is the configuration of a `list "typeName"` block's config,
// with filter set (values as Config takes them) and the rest null.
func (p *Protocol) ListConfig(tb testing.TB, typeName string, filter map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	typ, ok := p.listTypes[typeName].(tftypes.Object)
	if !ok {
		tb.Fatalf("no list resource %s", typeName)
	}
	values := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range filter {
		at, ok := typ.AttributeTypes[name]
		if !ok {
			tb.Fatalf("list %s has no attribute %s", typeName, name)
		}
		values[name] = configValue(tb, at, v)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		tb.Fatalf("list configuration of %s: %v", typeName, err)
	}
	return &dv
}

// ValidateList runs ValidateListResourceConfig of filter and returns its
// diagnostics.
func (p *Protocol) ValidateList(tb testing.TB, typeName string, filter map[string]any) []*tfprotov6.Diagnostic {
	tb.Helper()
	resp, err := p.listServer(tb).ValidateListResourceConfig(context.Background(), &tfprotov6.ValidateListResourceConfigRequest{
		TypeName: typeName, Config: p.ListConfig(tb, typeName, filter),
	})
	if err != nil {
		tb.Fatalf("validate list %s: %v", typeName, err)
	}
	return resp.Diagnostics
}

// ListResults runs ListResource of filter, with the full objects when
// includeResource is set and at most limit results (0: no limit), and
// returns every result it streams, diagnostics included.
func (p *Protocol) ListResults(tb testing.TB, typeName string, filter map[string]any, includeResource bool, limit int64) []Listed {
	tb.Helper()
	stream, err := p.listServer(tb).ListResource(context.Background(), &tfprotov6.ListResourceRequest{
		TypeName: typeName, Config: p.ListConfig(tb, typeName, filter), IncludeResource: includeResource, Limit: limit,
	})
	if err != nil {
		tb.Fatalf("list %s: %v", typeName, err)
	}
	var out []Listed
	for r := range stream.Results {
		out = append(out, Listed{DisplayName: r.DisplayName, Identity: r.Identity, Resource: r.Resource, Diagnostics: r.Diagnostics})
	}
	return out
}

// List is ListResults that must succeed: no result carries an error.
func (p *Protocol) List(tb testing.TB, typeName string, filter map[string]any, includeResource bool) []Listed {
	tb.Helper()
	out := p.ListResults(tb, typeName, filter, includeResource, 0)
	for _, r := range out {
		if hasErrors(r.Diagnostics) {
			tb.Fatalf("list %s: %s: %s", typeName, r.DisplayName, diagText(r.Diagnostics))
		}
	}
	return out
}

// listServer is the provider server's list resource RPCs.
func (p *Protocol) listServer(tb testing.TB) tfprotov6.ListResourceServer {
	tb.Helper()
	s, ok := p.Server.(tfprotov6.ListResourceServer)
	if !ok {
		tb.Fatalf("the provider server serves no list resources")
	}
	return s
}
