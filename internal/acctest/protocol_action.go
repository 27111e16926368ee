package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Actions over the plugin protocol (Terraform 1.14 and later): Terraform
// validates an action's configuration, plans it, then invokes it and
// shows the progress events the provider streams.

// actions is the server's action RPCs.
func (p *Protocol) actions(tb testing.TB) tfprotov6.ActionServer {
	tb.Helper()
	s, ok := p.Server.(tfprotov6.ActionServer)
	if !ok {
		tb.Fatalf("the provider server %T serves no actions", p.Server)
	}
	return s
}

// ActionConfig is a configuration of the action typeName with attrs set
// (see Config for the values) and every other attribute null.
func (p *Protocol) ActionConfig(tb testing.TB, typeName string, attrs map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	schemas, err := p.Server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || hasErrors(schemas.Diagnostics) {
		tb.Fatalf("provider schema: %v %v", err, schemas.Diagnostics)
	}
	s, ok := schemas.ActionSchemas[typeName]
	if !ok {
		tb.Fatalf("unknown action type %s", typeName)
	}
	return configObject(tb, typeName, s.Schema.ValueType().(tftypes.Object), attrs)
}

// ValidateAction is ValidateActionConfig of attrs: its diagnostics.
func (p *Protocol) ValidateAction(tb testing.TB, typeName string, attrs map[string]any) []*tfprotov6.Diagnostic {
	tb.Helper()
	resp, err := p.actions(tb).ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
		ActionType: typeName, Config: p.ActionConfig(tb, typeName, attrs),
	})
	if err != nil {
		tb.Fatalf("validate %s: %v", typeName, err)
	}
	return resp.Diagnostics
}

// Invoked is what an action's invocation streamed.
type Invoked struct {
	Progress    []string
	Diagnostics []*tfprotov6.Diagnostic
}

// InvokeAction validates, plans and invokes the action typeName with
// attrs, as Terraform does, and returns what the invocation streamed; a
// validation or plan error ends it before the invocation.
func (p *Protocol) InvokeAction(tb testing.TB, typeName string, attrs map[string]any) Invoked {
	tb.Helper()
	ctx := context.Background()
	config := p.ActionConfig(tb, typeName, attrs)
	if diags := p.ValidateAction(tb, typeName, attrs); hasErrors(diags) {
		return Invoked{Diagnostics: diags}
	}
	plan, err := p.actions(tb).PlanAction(ctx, &tfprotov6.PlanActionRequest{ActionType: typeName, Config: config})
	if err != nil {
		tb.Fatalf("plan %s: %v", typeName, err)
	}
	if hasErrors(plan.Diagnostics) {
		return Invoked{Diagnostics: plan.Diagnostics}
	}
	stream, err := p.actions(tb).InvokeAction(ctx, &tfprotov6.InvokeActionRequest{ActionType: typeName, Config: config})
	if err != nil {
		tb.Fatalf("invoke %s: %v", typeName, err)
	}
	var out Invoked
	for event := range stream.Events {
		switch e := event.Type.(type) {
		case tfprotov6.ProgressInvokeActionEventType:
			out.Progress = append(out.Progress, e.Message)
		case tfprotov6.CompletedInvokeActionEventType:
			out.Diagnostics = append(out.Diagnostics, e.Diagnostics...)
		}
	}
	return out
}

// DiagnosticsText is diagnostics as one text, for messages and matching.
func DiagnosticsText(diags []*tfprotov6.Diagnostic) string { return diagText(diags) }

// HasErrors reports whether diags hold an error.
func HasErrors(diags []*tfprotov6.Diagnostic) bool { return hasErrors(diags) }
