package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/provider"
)

// NewFunctionServer returns the provider's protocol server without
// configuring it and without a simulator: Terraform calls provider-defined
// functions without configuring the provider first (terraform validate, for
// one), so that is how their tests call them.
func NewFunctionServer(tb testing.TB) tfprotov6.ProviderServer {
	tb.Helper()
	server, err := providerserver.NewProtocol6WithError(provider.NewWithEnv("test", func(string) string { return "" })())()
	if err != nil {
		tb.Fatalf("provider server: %v", err)
	}
	return server
}

// CallFunction calls the provider-defined function name with args over the
// protocol, as Terraform does: each argument (variadic ones each on their
// own) is encoded with its parameter's type, and the result is decoded with
// the function's return type. It returns the result, or the function's
// error (with the argument it names, if any). A protocol failure fails the
// test.
func CallFunction(tb testing.TB, server tfprotov6.ProviderServer, name string, args ...tftypes.Value) (tftypes.Value, *tfprotov6.FunctionError) {
	tb.Helper()
	ctx := context.Background()
	defs, err := server.GetFunctions(ctx, &tfprotov6.GetFunctionsRequest{})
	if err != nil || hasErrors(defs.Diagnostics) {
		tb.Fatalf("get functions: %v %v", err, defs.Diagnostics)
	}
	def, ok := defs.Functions[name]
	if !ok {
		tb.Fatalf("the provider has no function %q", name)
	}
	encoded := make([]*tfprotov6.DynamicValue, 0, len(args))
	for i, arg := range args {
		var typ tftypes.Type
		switch {
		case i < len(def.Parameters):
			typ = def.Parameters[i].Type
		case def.VariadicParameter != nil:
			typ = def.VariadicParameter.Type
		default:
			tb.Fatalf("function %q takes %d arguments, the test gives %d", name, len(def.Parameters), len(args))
		}
		dv, err := tfprotov6.NewDynamicValue(typ, arg)
		if err != nil {
			tb.Fatalf("encode argument %d of %s: %v", i, name, err)
		}
		encoded = append(encoded, &dv)
	}
	resp, err := server.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: name, Arguments: encoded})
	if err != nil {
		tb.Fatalf("call %s: %v", name, err)
	}
	if resp.Error != nil {
		return tftypes.Value{}, resp.Error
	}
	if resp.Result == nil {
		tb.Fatalf("call %s: no result and no error", name)
	}
	result, err := resp.Result.Unmarshal(def.Return.Type)
	if err != nil {
		tb.Fatalf("decode the result of %s: %v", name, err)
	}
	return result, nil
}

// CallFunction is the package's CallFunction on p's configured server.
func (p *Protocol) CallFunction(tb testing.TB, name string, args ...tftypes.Value) (tftypes.Value, *tfprotov6.FunctionError) {
	tb.Helper()
	return CallFunction(tb, p.Server, name, args...)
}
