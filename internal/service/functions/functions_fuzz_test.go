package functions

import (
	"context"
	"maps"
	"math"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// run calls f the way the framework does and returns its result value, or
// nil and the function's error. It fails the test when f sets neither.
func run(t *testing.T, f function.Function, args ...attr.Value) (attr.Value, *function.FuncError) {
	t.Helper()
	ctx := context.Background()
	var def function.DefinitionResponse
	f.Definition(ctx, function.DefinitionRequest{}, &def)
	result, ferr := def.Definition.Return.NewResultData(ctx)
	if ferr != nil {
		t.Fatalf("result data: %s", ferr.Text)
	}
	resp := function.RunResponse{Result: result}
	f.Run(ctx, function.RunRequest{Arguments: function.NewArgumentsData(args)}, &resp)
	if resp.Error != nil {
		return nil, resp.Error
	}
	value := resp.Result.Value()
	if value == nil || value.IsNull() || value.IsUnknown() {
		t.Fatalf("no error and no result: %v", value)
	}
	return value, nil
}

// FuzzParseVolumeIDFunction checks that parse_volume_id never panics, that a
// refused value is refused naming the argument, and that storage and name
// put back together are the input.
func FuzzParseVolumeIDFunction(f *testing.F) {
	for _, s := range []string{"local:iso/x.iso", "local-lvm:vm-100-disk-0", "ceph:base-1-a/vm-2-b", "local", "a:", "x:y\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		value, ferr := run(t, NewParseVolumeIDFunction(), types.StringValue(s))
		if ferr != nil {
			if ferr.FunctionArgument == nil || *ferr.FunctionArgument != 0 {
				t.Fatalf("parse_volume_id(%q): error names no argument: %s", s, ferr.Text)
			}
			return
		}
		attrs := value.(types.Object).Attributes()
		storage := attrs["storage"].(types.String).ValueString()
		name := attrs["name"].(types.String).ValueString()
		if storage+":"+name != s {
			t.Fatalf("parse_volume_id(%q): storage %q, name %q", s, storage, name)
		}
		if attrs["content"].IsNull() != attrs["format"].IsNull() || attrs["content"].IsNull() != attrs["is_base"].IsNull() {
			t.Fatalf("parse_volume_id(%q) = %v: content, format and is_base are null together or not at all", s, attrs)
		}
	})
}

// FuzzSizeFunctionsRoundTrip checks that size_to_bytes never panics and that
// every size it reads is written by bytes_to_size in a form that reads back
// as the same bytes.
func FuzzSizeFunctionsRoundTrip(f *testing.F) {
	for _, s := range []string{"32G", "1.5G", "0.3K", "4194304", "8388607T", "8388608T", "1TiB", "", "G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		value, ferr := run(t, NewSizeToBytesFunction(), types.StringValue(s))
		if ferr != nil {
			if ferr.FunctionArgument == nil || *ferr.FunctionArgument != 0 {
				t.Fatalf("size_to_bytes(%q): error names no argument: %s", s, ferr.Text)
			}
			return
		}
		bytes := value.(types.Int64).ValueInt64()
		written, ferr := run(t, NewBytesToSizeFunction(), types.NumberValue(new(big.Float).SetInt64(bytes)))
		if ferr != nil {
			t.Fatalf("bytes_to_size(%d) (from %q): %s", bytes, s, ferr.Text)
		}
		size := written.(types.String).ValueString()
		again, ferr := run(t, NewSizeToBytesFunction(), types.StringValue(size))
		if ferr != nil || again.(types.Int64).ValueInt64() != bytes {
			t.Fatalf("size_to_bytes(bytes_to_size(%d)) = %q -> %v, %v", bytes, size, again, ferr)
		}
	})
}

// FuzzBytesToSizeFunction checks that bytes_to_size never panics on any
// number, refuses what is not a whole non-negative int64 naming the
// argument, and writes the rest so that size_to_bytes reads them back.
func FuzzBytesToSizeFunction(f *testing.F) {
	for _, n := range []float64{0, 1, 1024, 1.5, -1, math.Ldexp(1, 63), math.Ldexp(1, 40), 1e300} {
		f.Add(n, int64(0))
	}
	f.Add(0.0, int64(math.MaxInt64))
	f.Add(0.0, int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, x float64, i int64) {
		if math.IsNaN(x) {
			return // not a value Terraform can send
		}
		n := new(big.Float).SetInt64(i)
		n.Add(n, big.NewFloat(x))
		value, ferr := run(t, NewBytesToSizeFunction(), types.NumberValue(n))
		whole, accuracy := n.Int64()
		valid := n.IsInt() && n.Sign() >= 0 && accuracy == big.Exact
		if ferr != nil {
			if valid {
				t.Fatalf("bytes_to_size(%s): %s", n.Text('g', -1), ferr.Text)
			}
			if ferr.FunctionArgument == nil || *ferr.FunctionArgument != 0 {
				t.Fatalf("bytes_to_size(%s): error names no argument: %s", n.Text('g', -1), ferr.Text)
			}
			return
		}
		if !valid {
			t.Fatalf("bytes_to_size(%s) = %v, want an error", n.Text('g', -1), value)
		}
		back, err := wire.ParseSize(value.(types.String).ValueString())
		if err != nil || back != whole {
			t.Fatalf("bytes_to_size(%d) = %v reads back as %d, %v", whole, value, back, err)
		}
	})
}

// FuzzParsePropertyStringFunction checks that parse_property_string never
// panics, that its errors name an argument, and that a map it returns,
// written back in PVE's notation, parses to the same map.
func FuzzParsePropertyStringFunction(f *testing.F) {
	f.Add("virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1", "", false)
	f.Add("local-lvm:vm-100-disk-0,discard=on,size=32G", "file", true)
	f.Add("file=a=b,,  ,x=y", "file", true)
	f.Add("=,a=,b", "", true)
	f.Fuzz(func(t *testing.T, s, defaultKey string, withKey bool) {
		args := []attr.Value{types.StringValue(s), types.TupleValueMust([]attr.Type{}, []attr.Value{})}
		if withKey {
			args[1] = types.TupleValueMust([]attr.Type{types.StringType}, []attr.Value{types.StringValue(defaultKey)})
		} else {
			defaultKey = ""
		}
		value, ferr := run(t, NewParsePropertyStringFunction(), args...)
		if ferr != nil {
			if ferr.FunctionArgument == nil || *ferr.FunctionArgument > 1 {
				t.Fatalf("parse_property_string(%q, %q): error names no argument: %s", s, defaultKey, ferr.Text)
			}
			return
		}
		m := map[string]string{}
		for k, v := range value.(types.Map).Elements() {
			m[k] = v.(types.String).ValueString()
		}
		if wire.ValidatePropertyMap(m) != nil {
			return // PVE reads it, but no property string writes it back
		}
		written := types.StringValue(wire.FormatPropertyString(m, defaultKey))
		again, ferr := run(t, NewParsePropertyStringFunction(), written, args[1])
		if ferr != nil {
			t.Fatalf("reparse of %q (from %q): %s", written.ValueString(), s, ferr.Text)
		}
		m2 := map[string]string{}
		for k, v := range again.(types.Map).Elements() {
			m2[k] = v.(types.String).ValueString()
		}
		if !maps.Equal(m, m2) {
			t.Fatalf("round trip of %q: %v -> %q -> %v", s, m, written.ValueString(), m2)
		}
	})
}
