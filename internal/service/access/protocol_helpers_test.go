package access_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// rpcConfig is a configuration of typeName, as Terraform sends it over
// the plugin protocol, with attrs set and every other attribute null
// (not written). A value is a string, bool, int, []string for a set or
// list of strings, map[string]string for a map of strings, or
// map[string]any for a nested object (its other attributes null).
func rpcConfig(t *testing.T, p *acctest.Protocol, typeName string, attrs map[string]any) *tfprotov6.DynamicValue {
	t.Helper()
	typ := p.StateValue(t, typeName, p.NullState(t, typeName)).Type().(tftypes.Object)
	values := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range attrs {
		at, ok := typ.AttributeTypes[name]
		if !ok {
			t.Fatalf("%s has no attribute %s", typeName, name)
		}
		values[name] = rpcValue(t, at, v)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		t.Fatalf("configuration of %s: %v", typeName, err)
	}
	return &dv
}

func rpcValue(t *testing.T, typ tftypes.Type, v any) tftypes.Value {
	t.Helper()
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
			t.Fatalf("an object for a value of type %s", typ)
		}
		values := make(map[string]tftypes.Value, len(obj.AttributeTypes))
		for name, at := range obj.AttributeTypes {
			values[name] = tftypes.NewValue(at, nil)
		}
		for name, attr := range v {
			at, ok := obj.AttributeTypes[name]
			if !ok {
				t.Fatalf("the object has no attribute %s", name)
			}
			values[name] = rpcValue(t, at, attr)
		}
		return tftypes.NewValue(typ, values)
	default:
		return tftypes.NewValue(typ, v)
	}
}

// planDiagnostics plans the creation of typeName from attrs, as
// `terraform plan` does for a new resource, and returns its diagnostics.
func planDiagnostics(t *testing.T, p *acctest.Protocol, typeName string, attrs map[string]any) []*tfprotov6.Diagnostic {
	t.Helper()
	return p.PlanDiagnostics(t, typeName, p.NullState(t, typeName), rpcConfig(t, p, typeName, attrs))
}

// importDiagnostics runs ImportResourceState of id, as `terraform import`
// does first, and returns its diagnostics.
func importDiagnostics(t *testing.T, p *acctest.Protocol, typeName, id string) []*tfprotov6.Diagnostic {
	t.Helper()
	resp, err := p.Server.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: typeName, ID: id})
	if err != nil {
		t.Fatalf("import %s %s: %v", typeName, id, err)
	}
	return resp.Diagnostics
}
