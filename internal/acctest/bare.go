package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NewBareProtocol serves, without a simulator, a provider whose only
// resources are bare twins of resources: the same type names and schemas,
// and nothing else. A bare resource decodes no model, validates nothing,
// modifies no plan and reads nothing (its state stays as it was), so what
// an RPC costs it is the plugin framework's own cost for that schema: the
// floor under the real resource's cost. It exists only for benchmarks and
// is never part of the provider.
func NewBareProtocol(tb testing.TB, resources ...func() resource.Resource) *Protocol {
	tb.Helper()
	ctx := context.Background()
	server, err := providerserver.NewProtocol6WithError(bareProvider{resources: resources})()
	if err != nil {
		tb.Fatalf("bare provider server: %v", err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || hasErrors(schemas.Diagnostics) {
		tb.Fatalf("bare provider schema: %v %v", err, schemas.Diagnostics)
	}
	providerType := schemas.Provider.ValueType()
	dv, err := tfprotov6.NewDynamicValue(providerType, tftypes.NewValue(providerType, map[string]tftypes.Value{}))
	if err != nil {
		tb.Fatalf("bare provider config: %v", err)
	}
	types := map[string]tftypes.Type{}
	for name, s := range schemas.ResourceSchemas {
		types[name] = s.ValueType()
	}
	p := &Protocol{Server: server, resourceTypes: types, providerConfig: &dv}
	p.Reconfigure(tb)
	return p
}

// bareProvider is the provider of bare resources, named like the real one
// so that the type names match.
type bareProvider struct {
	resources []func() resource.Resource
}

func (bareProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "pve"
}

func (bareProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (bareProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p bareProvider) Resources(context.Context) []func() resource.Resource {
	bare := make([]func() resource.Resource, len(p.resources))
	for i, newResource := range p.resources {
		bare[i] = func() resource.Resource { return bareResource{real: newResource()} }
	}
	return bare
}

func (bareProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// bareResource takes its type name and schema from real and has no other
// behaviour: the framework copies the prior state into a read's answer and
// the plan is the framework's own.
type bareResource struct {
	real resource.Resource
}

func (r bareResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.real.Metadata(ctx, req, resp)
}

func (r bareResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.real.Schema(ctx, req, resp)
}

func (bareResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}

func (bareResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (bareResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}

func (bareResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
