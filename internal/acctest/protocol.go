package acctest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/provider"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// Protocol drives the provider over the plugin protocol, in process, against
// a simulator of its own: the way Terraform calls it, without a Terraform
// binary. Benchmarks use it to count the PVE requests one RPC costs.
type Protocol struct {
	Server tfprotov6.ProviderServer
	Sim    *pvesim.Sim
	Client *pveapi.Client

	resourceTypes map[string]tftypes.Type
	// listTypes are the list resources' config types.
	listTypes map[string]tftypes.Type
	// providerConfig is what ConfigureProvider was given, for Reconfigure.
	providerConfig *tfprotov6.DynamicValue
}

// NewProtocol starts a simulator and a configured provider server.
func NewProtocol(tb testing.TB) *Protocol {
	tb.Helper()
	return newProtocol(tb, "")
}

// NewProtocolOnPVE is NewProtocol with the simulator serving the given PVE
// release ("8.4", "9.1", "9.2"), for what differs between releases.
func NewProtocolOnPVE(tb testing.TB, version string) *Protocol {
	tb.Helper()
	return newProtocol(tb, version)
}

func newProtocol(tb testing.TB, pveVersion string) *Protocol {
	tb.Helper()
	ctx := context.Background()
	token := "root@pam!bench=" + randomHex(16)
	sim, err := pvesim.New(pvesim.Options{Tokens: []string{token}, PVEVersion: pveVersion})
	if err != nil {
		tb.Fatalf("start simulator: %v", err)
	}
	caFile := filepath.Join(tb.TempDir(), "pvesim-ca.pem")
	srv, err := sim.StartTLS("127.0.0.1:0", caFile)
	if err != nil {
		tb.Fatalf("serve simulator: %v", err)
	}
	tb.Cleanup(func() { _ = srv.Close() })
	client, err := pveapi.New(pveapi.Config{Endpoint: srv.URL, APIToken: token, CAFile: caFile, TaskPollInterval: pollInterval})
	if err != nil {
		tb.Fatalf("client for simulator: %v", err)
	}

	server, err := providerserver.NewProtocol6WithError(provider.NewWithEnv("bench", func(string) string { return "" })())()
	if err != nil {
		tb.Fatalf("provider server: %v", err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || hasErrors(schemas.Diagnostics) {
		tb.Fatalf("provider schema: %v %v", err, schemas.Diagnostics)
	}

	providerType := schemas.Provider.ValueType().(tftypes.Object)
	cfg := map[string]tftypes.Value{}
	for name, typ := range providerType.AttributeTypes {
		cfg[name] = tftypes.NewValue(typ, nil)
	}
	cfg["endpoint"] = tftypes.NewValue(tftypes.String, srv.URL)
	cfg["api_token"] = tftypes.NewValue(tftypes.String, token)
	cfg["ca_file"] = tftypes.NewValue(tftypes.String, caFile)
	dv, err := tfprotov6.NewDynamicValue(providerType, tftypes.NewValue(providerType, cfg))
	if err != nil {
		tb.Fatalf("provider config: %v", err)
	}
	types := map[string]tftypes.Type{}
	for name, s := range schemas.ResourceSchemas {
		types[name] = s.ValueType()
	}
	listTypes := map[string]tftypes.Type{}
	for name, s := range schemas.ListResourceSchemas {
		listTypes[name] = s.ValueType()
	}
	p := &Protocol{Server: server, Sim: sim, Client: client, resourceTypes: types, listTypes: listTypes, providerConfig: &dv}
	p.Reconfigure(tb)
	return p
}

// Reconfigure configures the provider again, as Terraform does at the
// start of each command (and of each of its plan and apply passes): what
// the provider keeps for the span of one command starts empty.
func (p *Protocol) Reconfigure(tb testing.TB) {
	tb.Helper()
	conf, err := p.Server.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: p.providerConfig})
	if err != nil || hasErrors(conf.Diagnostics) {
		tb.Fatalf("configure provider: %v %v", err, conf.Diagnostics)
	}
}

// NullState is the prior state of a resource that does not exist yet, for
// a create plan.
func (p *Protocol) NullState(tb testing.TB, typeName string) *tfprotov6.DynamicValue {
	tb.Helper()
	typ, ok := p.resourceTypes[typeName]
	if !ok {
		tb.Fatalf("unknown resource type %s", typeName)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		tb.Fatalf("null value: %v", err)
	}
	return &dv
}

// Import runs ImportResourceState and then ReadResource, as `terraform
// import` does, and returns the state that a refresh starts from.
func (p *Protocol) Import(tb testing.TB, typeName, id string) *tfprotov6.DynamicValue {
	tb.Helper()
	ctx := context.Background()
	imp, err := p.Server.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: typeName, ID: id})
	if err != nil || hasErrors(imp.Diagnostics) || len(imp.ImportedResources) != 1 {
		tb.Fatalf("import %s %s: %v %v", typeName, id, err, imp.Diagnostics)
	}
	return p.Read(tb, typeName, imp.ImportedResources[0].State, imp.ImportedResources[0].Private)
}

// Read runs one ReadResource, the refresh of one resource instance.
func (p *Protocol) Read(tb testing.TB, typeName string, state *tfprotov6.DynamicValue, private []byte) *tfprotov6.DynamicValue {
	tb.Helper()
	resp, err := p.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName:     typeName,
		CurrentState: state,
		Private:      private,
	})
	if err != nil || hasErrors(resp.Diagnostics) {
		tb.Fatalf("read %s: %v %v", typeName, err, resp.Diagnostics)
	}
	if resp.NewState == nil {
		tb.Fatalf("read %s: resource gone", typeName)
	}
	return resp.NewState
}

// StateValue decodes a state for assertions.
func (p *Protocol) StateValue(tb testing.TB, typeName string, state *tfprotov6.DynamicValue) tftypes.Value {
	tb.Helper()
	typ, ok := p.resourceTypes[typeName]
	if !ok {
		tb.Fatalf("unknown resource type %s", typeName)
	}
	v, err := state.Unmarshal(typ)
	if err != nil {
		tb.Fatalf("decode state: %v", err)
	}
	return v
}

// Requests counts the simulator's requests, split into reads and writes.
func (p *Protocol) Requests() (reads, writes int) {
	for _, r := range p.Sim.Requests() {
		if r.Method == "GET" {
			reads++
		} else {
			writes++
		}
	}
	return reads, writes
}

func hasErrors(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// resourceSchema is the provider's schema of typeName.
func (p *Protocol) resourceSchema(tb testing.TB, typeName string) *tfprotov6.Schema {
	tb.Helper()
	schemas, err := p.Server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatalf("provider schema: %v", err)
	}
	s, ok := schemas.ResourceSchemas[typeName]
	if !ok {
		tb.Fatalf("unknown resource type %s", typeName)
	}
	return s
}

// ConfigFromState derives the configuration that would produce state: the
// state with every computed-only attribute set to null. Planning it against
// the state is a no-op plan, as after an apply.
func (p *Protocol) ConfigFromState(tb testing.TB, typeName string, state *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	tb.Helper()
	s := p.resourceSchema(tb, typeName)
	value := p.StateValue(tb, typeName, state)
	config, err := tftypes.Transform(value, func(path *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if attr := attributeAt(s.Block.Attributes, path); attr != nil && attr.Computed && !attr.Optional {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		tb.Fatalf("derive configuration: %v", err)
	}
	dv, err := tfprotov6.NewDynamicValue(s.ValueType(), config)
	if err != nil {
		tb.Fatalf("encode configuration: %v", err)
	}
	return &dv
}

// attributeAt finds the schema attribute a value path points to; map keys
// and list indexes of nested attributes are skipped.
func attributeAt(attrs []*tfprotov6.SchemaAttribute, path *tftypes.AttributePath) *tfprotov6.SchemaAttribute {
	var found *tfprotov6.SchemaAttribute
	for _, step := range path.Steps() {
		name, ok := step.(tftypes.AttributeName)
		if !ok {
			continue
		}
		found = nil
		for _, a := range attrs {
			if a.Name == string(name) {
				found = a
				break
			}
		}
		if found == nil {
			return nil
		}
		if found.NestedType != nil {
			attrs = found.NestedType.Attributes
		} else {
			attrs = nil
		}
	}
	return found
}

// Plan runs PlanResourceChange of config against prior state, as `terraform
// plan` does after refreshing, and returns the planned state.
func (p *Protocol) Plan(tb testing.TB, typeName string, prior, config *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	tb.Helper()
	resp, err := p.Server.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName:         typeName,
		PriorState:       prior,
		ProposedNewState: prior,
		Config:           config,
	})
	if err != nil || hasErrors(resp.Diagnostics) {
		tb.Fatalf("plan %s: %v %v", typeName, err, resp.Diagnostics)
	}
	return resp.PlannedState
}
