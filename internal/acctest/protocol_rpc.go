package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Validate runs ValidateResourceConfig of config, as Terraform does before
// every plan.
func (p *Protocol) Validate(tb testing.TB, typeName string, config *tfprotov6.DynamicValue) {
	tb.Helper()
	resp, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: typeName,
		Config:   config,
	})
	if err != nil || hasErrors(resp.Diagnostics) {
		tb.Fatalf("validate %s: %v %s", typeName, err, diagText(resp.Diagnostics))
	}
}

// Upgrade runs UpgradeResourceState of a state stored as JSON by a
// Terraform that used the current schema version, as Terraform does with
// each resource instance of its state file before refreshing it, and
// returns the upgraded state.
func (p *Protocol) Upgrade(tb testing.TB, typeName string, version int64, stateJSON []byte) *tfprotov6.DynamicValue {
	tb.Helper()
	resp, err := p.Server.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
		TypeName: typeName,
		Version:  version,
		RawState: &tfprotov6.RawState{JSON: stateJSON},
	})
	if err != nil || hasErrors(resp.Diagnostics) {
		tb.Fatalf("upgrade %s: %v %v", typeName, err, resp.Diagnostics)
	}
	return resp.UpgradedState
}

// SchemaVersion is the schema version of typeName, which Upgrade is given
// for a state that needs no upgrade.
func (p *Protocol) SchemaVersion(tb testing.TB, typeName string) int64 {
	tb.Helper()
	return p.resourceSchema(tb, typeName).Version
}

// ReadResponse runs one ReadResource and returns the whole answer, private
// state included, which the next refresh is given.
func (p *Protocol) ReadResponse(tb testing.TB, typeName string, state *tfprotov6.DynamicValue, private []byte) *tfprotov6.ReadResourceResponse {
	tb.Helper()
	resp, err := p.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName:     typeName,
		CurrentState: state,
		Private:      private,
	})
	if err != nil || hasErrors(resp.Diagnostics) || resp.NewState == nil {
		tb.Fatalf("read %s: %v %v", typeName, err, resp.Diagnostics)
	}
	return resp
}

// StateJSON is state as Terraform writes it into a state file: the JSON
// that UpgradeResourceState is given.
func (p *Protocol) StateJSON(tb testing.TB, typeName string, state *tfprotov6.DynamicValue) []byte {
	tb.Helper()
	v, err := jsonValue(p.StateValue(tb, typeName, state))
	if err != nil {
		tb.Fatalf("state as JSON: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("state as JSON: %v", err)
	}
	return out
}

// jsonValue is v as encoding/json marshals it in Terraform's state format.
func jsonValue(v tftypes.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("unknown value in state")
	}
	switch typ := v.Type(); {
	case typ.Is(tftypes.String):
		var s string
		return s, v.As(&s)
	case typ.Is(tftypes.Bool):
		var b bool
		return b, v.As(&b)
	case typ.Is(tftypes.Number):
		var n big.Float
		if err := v.As(&n); err != nil {
			return nil, err
		}
		return json.Number(n.Text('f', -1)), nil
	case typ.Is(tftypes.Object{}), typ.Is(tftypes.Map{}):
		var fields map[string]tftypes.Value
		if err := v.As(&fields); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(fields))
		for name, field := range fields {
			j, err := jsonValue(field)
			if err != nil {
				return nil, err
			}
			out[name] = j
		}
		return out, nil
	default: // list, set, tuple
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil, err
		}
		out := make([]any, len(elems))
		for i, elem := range elems {
			j, err := jsonValue(elem)
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	}
}
