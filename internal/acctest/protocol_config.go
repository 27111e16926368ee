package acctest

import (
	"context"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Config is a configuration of typeName, as Terraform sends it over
// the plugin protocol, with attrs set and every other attribute null
// (not written). A value is a string, bool, int, []string for a set or
// list of strings, map[string]string for a map of strings,
// map[string]any for a nested object (its other attributes null), and
// []map[string]any or map[string]map[string]any for a list, set or map
// of them.
func (p *Protocol) Config(tb testing.TB, typeName string, attrs map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	typ, ok := p.resourceTypes[typeName].(tftypes.Object)
	if !ok {
		tb.Fatalf("unknown resource type %s", typeName)
	}
	return configObject(tb, typeName, typ, attrs)
}

// configObject is an object of typ with attrs set (as configValue reads
// them) and every other attribute null, as a DynamicValue; what names it
// in failures.
func configObject(tb testing.TB, what string, typ tftypes.Object, attrs map[string]any) *tfprotov6.DynamicValue {
	tb.Helper()
	values := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range attrs {
		at, ok := typ.AttributeTypes[name]
		if !ok {
			tb.Fatalf("%s has no attribute %s", what, name)
		}
		values[name] = configValue(tb, at, v)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		tb.Fatalf("configuration of %s: %v", what, err)
	}
	return &dv
}

func configValue(tb testing.TB, typ tftypes.Type, v any) tftypes.Value {
	tb.Helper()
	switch v := v.(type) {
	case nil:
		return tftypes.NewValue(typ, nil)
	case int:
		return tftypes.NewValue(typ, big.NewFloat(float64(v)))
	case []string:
		elems := make([]tftypes.Value, len(v))
		for i, s := range v {
			elems[i] = tftypes.NewValue(tftypes.String, s)
		}
		return tftypes.NewValue(typ, elems)
	case []map[string]any:
		// A list or set of nested objects.
		var elem tftypes.Type
		switch c := typ.(type) {
		case tftypes.List:
			elem = c.ElementType
		case tftypes.Set:
			elem = c.ElementType
		default:
			tb.Fatalf("objects for a value of type %s", typ)
		}
		elems := make([]tftypes.Value, len(v))
		for i, obj := range v {
			elems[i] = configValue(tb, elem, obj)
		}
		return tftypes.NewValue(typ, elems)
	case map[string]map[string]any:
		// A map of nested objects.
		m, ok := typ.(tftypes.Map)
		if !ok {
			tb.Fatalf("a map of objects for a value of type %s", typ)
		}
		elems := make(map[string]tftypes.Value, len(v))
		for k, obj := range v {
			elems[k] = configValue(tb, m.ElementType, obj)
		}
		return tftypes.NewValue(typ, elems)
	case map[string]string:
		elems := make(map[string]tftypes.Value, len(v))
		for k, s := range v {
			elems[k] = tftypes.NewValue(tftypes.String, s)
		}
		return tftypes.NewValue(typ, elems)
	case map[string]any:
		// A nested object: the attributes given, the others null.
		obj, ok := typ.(tftypes.Object)
		if !ok {
			tb.Fatalf("an object for a value of type %s", typ)
		}
		values := make(map[string]tftypes.Value, len(obj.AttributeTypes))
		for name, at := range obj.AttributeTypes {
			values[name] = tftypes.NewValue(at, nil)
		}
		for name, attr := range v {
			at, ok := obj.AttributeTypes[name]
			if !ok {
				tb.Fatalf("the object has no attribute %s", name)
			}
			values[name] = configValue(tb, at, attr)
		}
		return tftypes.NewValue(typ, values)
	default:
		return tftypes.NewValue(typ, v)
	}
}

// PlanCreate plans the creation of typeName configured with attrs (see
// Config), as `terraform plan` does for a new resource, and returns the
// diagnostics (see PlanDiagnostics).
func (p *Protocol) PlanCreate(tb testing.TB, typeName string, attrs map[string]any) []*tfprotov6.Diagnostic {
	tb.Helper()
	return p.PlanDiagnostics(tb, typeName, p.NullState(tb, typeName), p.Config(tb, typeName, attrs))
}

// ImportDiagnostics runs ImportResourceState of id, as `terraform import`
// does first, and returns its diagnostics.
func (p *Protocol) ImportDiagnostics(tb testing.TB, typeName, id string) []*tfprotov6.Diagnostic {
	tb.Helper()
	resp, err := p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: typeName, ID: id})
	if err != nil {
		tb.Fatalf("import %s %s: %v", typeName, id, err)
	}
	return resp.Diagnostics
}

// ApplyCreate plans the creation of typeName configured with attrs and
// applies the plan, as `terraform apply` does for a new resource, and
// returns the apply's diagnostics. The plan must succeed.
func (p *Protocol) ApplyCreate(tb testing.TB, typeName string, attrs map[string]any) []*tfprotov6.Diagnostic {
	tb.Helper()
	ctx := context.Background()
	config := p.Config(tb, typeName, attrs)
	null := p.NullState(tb, typeName)
	p.Validate(tb, typeName, config)
	plan := p.PlanResponse(tb, typeName, null, config)
	if hasErrors(plan.Diagnostics) {
		tb.Fatalf("plan %s: %v", typeName, plan.Diagnostics)
	}
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: null, PlannedState: plan.PlannedState, Config: config, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		tb.Fatalf("apply %s: %v", typeName, err)
	}
	return resp.Diagnostics
}
