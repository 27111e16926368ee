package acctest

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Resource identity over the plugin protocol: what Terraform 1.12 and
// later send and store beside a resource's state.

// IdentitySchemas are the provider's resource identity schemas by
// resource type, as Terraform fetches them (GetResourceIdentitySchemas).
func (p *Protocol) IdentitySchemas(tb testing.TB) map[string]*tfprotov6.ResourceIdentitySchema {
	tb.Helper()
	resp, err := p.Server.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || hasErrors(resp.Diagnostics) {
		tb.Fatalf("identity schemas: %v %v", err, resp.Diagnostics)
	}
	return resp.IdentitySchemas
}

// identityType is the value type of typeName's identity.
func (p *Protocol) identityType(tb testing.TB, typeName string) tftypes.Type {
	tb.Helper()
	s, ok := p.IdentitySchemas(tb)[typeName]
	if !ok {
		tb.Fatalf("%s has no identity schema", typeName)
	}
	return s.ValueType()
}

// Identity is an identity of typeName with the given attributes (a string
// or an int) and the others null, as a user writes it in an import block.
func (p *Protocol) Identity(tb testing.TB, typeName string, attrs map[string]any) *tfprotov6.ResourceIdentityData {
	tb.Helper()
	typ, ok := p.identityType(tb, typeName).(tftypes.Object)
	if !ok {
		tb.Fatalf("%s: identity is not an object", typeName)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: configObject(tb, typeName+"'s identity", typ, attrs)}
}

// IdentityValues decodes an identity into its attributes: a string, an
// int64, or nil for a null attribute. A nil identity decodes to nil.
func (p *Protocol) IdentityValues(tb testing.TB, typeName string, identity *tfprotov6.ResourceIdentityData) map[string]any {
	tb.Helper()
	if identity == nil || identity.IdentityData == nil {
		return nil
	}
	v, err := identity.IdentityData.Unmarshal(p.identityType(tb, typeName))
	if err != nil {
		tb.Fatalf("decode identity of %s: %v", typeName, err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		tb.Fatalf("decode identity of %s: %v", typeName, err)
	}
	out := make(map[string]any, len(attrs))
	for name, a := range attrs {
		switch {
		case a.IsNull():
			out[name] = nil
		case a.Type().Is(tftypes.Number):
			var n big.Float
			if err := a.As(&n); err != nil {
				tb.Fatalf("identity %s: %v", name, err)
			}
			i, _ := n.Int64()
			out[name] = i
		default:
			var s string
			if err := a.As(&s); err != nil {
				tb.Fatalf("identity %s: %v", name, err)
			}
			out[name] = s
		}
	}
	return out
}

// Created is a resource instance as an apply leaves it in Terraform's
// state: its state, identity and private state.
type Created struct {
	State    *tfprotov6.DynamicValue
	Identity *tfprotov6.ResourceIdentityData
	Private  []byte
}

// Create plans and applies the creation of typeName configured with attrs
// (see Config), as `terraform apply` does; plan and apply must succeed.
func (p *Protocol) Create(tb testing.TB, typeName string, attrs map[string]any) Created {
	tb.Helper()
	ctx := context.Background()
	config := p.Config(tb, typeName, attrs)
	null := p.NullState(tb, typeName)
	// As Terraform 1.11 and later, which allow write-only attributes.
	valid, err := p.Server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{
		TypeName: typeName, Config: config,
		ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: true},
	})
	if err != nil || hasErrors(valid.Diagnostics) {
		tb.Fatalf("validate %s: %v %s", typeName, err, diagText(valid.Diagnostics))
	}
	plan := p.PlanResponse(tb, typeName, null, config)
	if hasErrors(plan.Diagnostics) {
		tb.Fatalf("plan %s: %s", typeName, diagText(plan.Diagnostics))
	}
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: null, PlannedState: plan.PlannedState, Config: config,
		PlannedPrivate: plan.PlannedPrivate, PlannedIdentity: plan.PlannedIdentity,
	})
	if err != nil || hasErrors(resp.Diagnostics) {
		tb.Fatalf("apply %s: %v %s", typeName, err, diagText(resp.Diagnostics))
	}
	return Created{State: resp.NewState, Identity: resp.NewIdentity, Private: resp.Private}
}

// Refresh runs one ReadResource of an instance with the identity
// Terraform stored for it (nil: a state stored before the resource had
// an identity) and returns the instance as the refresh leaves it.
func (p *Protocol) Refresh(tb testing.TB, typeName string, c Created) Created {
	tb.Helper()
	resp, err := p.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName: typeName, CurrentState: c.State, CurrentIdentity: c.Identity, Private: c.Private,
	})
	if err != nil || hasErrors(resp.Diagnostics) || resp.NewState == nil {
		tb.Fatalf("read %s: %v %s", typeName, err, diagText(resp.Diagnostics))
	}
	return Created{State: resp.NewState, Identity: resp.NewIdentity, Private: resp.Private}
}

// ImportByID runs ImportResourceState of id and the ReadResource that
// follows, as an `import { id = ... }` block does.
func (p *Protocol) ImportByID(tb testing.TB, typeName, id string) Created {
	tb.Helper()
	return p.importInstance(tb, &tfprotov6.ImportResourceStateRequest{TypeName: typeName, ID: id})
}

// ImportByIdentity runs ImportResourceState of identity and the
// ReadResource that follows, as an `import { identity = {...} }` block
// does (Terraform 1.12 and later).
func (p *Protocol) ImportByIdentity(tb testing.TB, typeName string, identity *tfprotov6.ResourceIdentityData) Created {
	tb.Helper()
	return p.importInstance(tb, &tfprotov6.ImportResourceStateRequest{TypeName: typeName, Identity: identity})
}

// ImportByIdentityDiagnostics runs ImportResourceState of identity and
// returns its diagnostics.
func (p *Protocol) ImportByIdentityDiagnostics(tb testing.TB, typeName string, identity *tfprotov6.ResourceIdentityData) []*tfprotov6.Diagnostic {
	tb.Helper()
	resp, err := p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: typeName, Identity: identity})
	if err != nil {
		tb.Fatalf("import %s: %v", typeName, err)
	}
	return resp.Diagnostics
}

func (p *Protocol) importInstance(tb testing.TB, req *tfprotov6.ImportResourceStateRequest) Created {
	tb.Helper()
	imp, err := p.Server.ImportResourceState(context.Background(), req)
	if err != nil || hasErrors(imp.Diagnostics) || len(imp.ImportedResources) != 1 {
		tb.Fatalf("import %s: %v %s", req.TypeName, err, diagText(imp.Diagnostics))
	}
	got := imp.ImportedResources[0]
	return p.Refresh(tb, req.TypeName, Created{State: got.State, Identity: got.Identity, Private: got.Private})
}

// diagText is diagnostics as a test failure shows them.
func diagText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "\n%s: %s: %s", d.Severity, d.Summary, d.Detail)
	}
	return b.String()
}
