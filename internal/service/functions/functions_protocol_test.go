package functions_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func num(n *big.Float) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }

func numInt(n int64) tftypes.Value { return num(new(big.Float).SetInt64(n)) }

// wantArgError checks that a call failed with an error naming argument arg
// and containing every one of texts.
func wantArgError(t *testing.T, ferr *tfprotov6.FunctionError, arg int64, texts ...string) {
	t.Helper()
	if ferr == nil {
		t.Fatal("the call succeeded, want an error")
	}
	if ferr.FunctionArgument == nil || *ferr.FunctionArgument != arg {
		t.Errorf("error names argument %v, want %d: %s", ferr.FunctionArgument, arg, ferr.Text)
	}
	for _, text := range texts {
		if !strings.Contains(ferr.Text, text) {
			t.Errorf("error %q does not contain %q", ferr.Text, text)
		}
	}
}

// goValue turns a decoded result into plain Go values for comparison:
// strings, int64 for whole numbers, bool, map[string]any, and nil for null.
func goValue(t *testing.T, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		var n big.Float
		_ = v.As(&n)
		i, acc := n.Int64()
		if acc != big.Exact {
			t.Fatalf("number %s is not a whole int64", n.String())
		}
		return i
	default:
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatalf("decode %s: %v", v.Type(), err)
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = goValue(t, e)
		}
		return out
	}
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v != w {
			return false
		}
	}
	return true
}

func TestFunctionsAreServed(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	resp, err := server.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"parse_volume_id", "size_to_bytes", "bytes_to_size", "parse_property_string"} {
		fn, ok := resp.Functions[name]
		if !ok {
			t.Errorf("the provider schema has no function %s", name)
			continue
		}
		if fn.Summary == "" || fn.Description == "" {
			t.Errorf("%s: summary %q, description %q: both are documented", name, fn.Summary, fn.Description)
		}
		params := append([]*tfprotov6.FunctionParameter{}, fn.Parameters...)
		if fn.VariadicParameter != nil {
			params = append(params, fn.VariadicParameter)
		}
		for _, p := range params {
			if p.Description == "" {
				t.Errorf("%s: parameter %s has no description", name, p.Name)
			}
			// Terraform itself then refuses a null argument and answers an
			// unknown one with an unknown result, without calling the
			// provider: a value known only after apply plans as such.
			if p.AllowNullValue || p.AllowUnknownValues {
				t.Errorf("%s: parameter %s allows null (%v) or unknown (%v) values", name, p.Name, p.AllowNullValue, p.AllowUnknownValues)
			}
		}
	}
}

func TestParseVolumeIDFunction(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	nulls := map[string]any{"content": nil, "file": nil, "vmid": nil, "format": nil, "is_base": nil, "base_name": nil, "base_vmid": nil}
	with := func(storage, name string, set map[string]any) map[string]any {
		m := map[string]any{"storage": storage, "name": name}
		for k, v := range nulls {
			m[k] = v
		}
		for k, v := range set {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		in   string
		want map[string]any
	}{
		{"local:iso/debian-13.iso", with("local", "iso/debian-13.iso", map[string]any{
			"content": "iso", "file": "debian-13.iso", "format": "raw", "is_base": false})},
		{"local-lvm:vm-100-disk-0", with("local-lvm", "vm-100-disk-0", map[string]any{
			"content": "images", "file": "vm-100-disk-0", "vmid": int64(100), "format": "raw", "is_base": false})},
		{"local:100/vm-100-disk-1.qcow2", with("local", "100/vm-100-disk-1.qcow2", map[string]any{
			"content": "images", "file": "vm-100-disk-1.qcow2", "vmid": int64(100), "format": "qcow2", "is_base": false})},
		{"ceph:base-100-disk-0/vm-101-disk-0", with("ceph", "base-100-disk-0/vm-101-disk-0", map[string]any{
			"content": "images", "file": "vm-101-disk-0", "vmid": int64(101), "format": "raw", "is_base": false,
			"base_name": "base-100-disk-0", "base_vmid": int64(100)})},
		{"local-lvm:base-9000-disk-0", with("local-lvm", "base-9000-disk-0", map[string]any{
			"content": "images", "file": "base-9000-disk-0", "vmid": int64(9000), "format": "raw", "is_base": true})},
		{"pbs:backup/ct/101/2025-01-31T10:00:00Z", with("pbs", "backup/ct/101/2025-01-31T10:00:00Z", map[string]any{
			"content": "backup", "file": "ct/101/2025-01-31T10:00:00Z", "vmid": int64(101), "format": "pbs-ct", "is_base": false})},
		{"local:import/appliance.ova/disk1.vmdk", with("local", "import/appliance.ova/disk1.vmdk", map[string]any{
			"content": "import", "file": "appliance.ova/disk1.vmdk", "format": "ova+vmdk", "is_base": false})},
		// A well-formed id of a shape no storage type PVE ships reads.
		{"esxi:ha-datacenter/datastore1/vm/vm.vmx", with("esxi", "ha-datacenter/datastore1/vm/vm.vmx", nil)},
		// Only the first ":" separates.
		{"local:snippets/a:b.yaml", with("local", "snippets/a:b.yaml", map[string]any{
			"content": "snippets", "file": "a:b.yaml", "format": "raw", "is_base": false})},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, ferr := acctest.CallFunction(t, server, "parse_volume_id", str(tt.in))
			if ferr != nil {
				t.Fatalf("error: %s", ferr.Text)
			}
			if m := goValue(t, got).(map[string]any); !equalMaps(m, tt.want) {
				t.Errorf("parse_volume_id(%q)\n got %v\nwant %v", tt.in, m, tt.want)
			}
		})
	}
}

func TestParseVolumeIDFunctionRefuses(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	for _, in := range []string{"", "local", "local:", "9local:iso/x.iso", "/dev/sdb", "local:a\nb"} {
		_, ferr := acctest.CallFunction(t, server, "parse_volume_id", str(in))
		wantArgError(t, ferr, 0, "is not a PVE volume id", "unable to parse volume ID")
	}
}

func TestSizeToBytesFunction(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	for in, want := range map[string]int64{
		"32G":     32 << 30,
		"1.5G":    1536 << 20,
		"8GiB":    8 << 30,
		"4194304": 4 << 20, // no unit: bytes, as PVE reads it
		"0.3K":    307,     // truncated to whole bytes, as PVE does
		"0":       0,
		"1T":      1 << 40,
	} {
		got, ferr := acctest.CallFunction(t, server, "size_to_bytes", str(in))
		if ferr != nil {
			t.Errorf("size_to_bytes(%q): %s", in, ferr.Text)
			continue
		}
		if g := goValue(t, got); g != want {
			t.Errorf("size_to_bytes(%q) = %v, want %d", in, g, want)
		}
	}
	for _, in := range []string{"", "32GB", "32 G", "32g", "-1G", "8388608T", "G"} {
		_, ferr := acctest.CallFunction(t, server, "size_to_bytes", str(in))
		wantArgError(t, ferr, 0, "is not a size in PVE's notation")
	}
}

func TestBytesToSizeFunction(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	for in, want := range map[int64]string{
		32 << 30:          "32G",
		1536 << 20:        "1536M",
		1 << 40:           "1T",
		1536:              "1536", // not a whole number of KiB: bytes
		1000:              "1000",
		1536 << 10:        "1536K",
		0:                 "0T", // as PVE writes it
		(1 << 63) - 1:     "9223372036854775807",
		8388607 * 1 << 40: "8388607T",
	} {
		got, ferr := acctest.CallFunction(t, server, "bytes_to_size", numInt(in))
		if ferr != nil {
			t.Errorf("bytes_to_size(%d): %s", in, ferr.Text)
			continue
		}
		if g := goValue(t, got); g != want {
			t.Errorf("bytes_to_size(%d) = %v, want %q", in, g, want)
		}
		// And back: the result reads as exactly the same bytes.
		back, ferr := acctest.CallFunction(t, server, "size_to_bytes", str(want))
		if ferr != nil || goValue(t, back) != in {
			t.Errorf("size_to_bytes(bytes_to_size(%d)) = %v, %v", in, back, ferr)
		}
	}
	huge, _ := new(big.Float).SetString("9223372036854775808")
	for _, tt := range []struct {
		in   *big.Float
		text string
	}{
		{big.NewFloat(-1), "-1 is negative"},
		{big.NewFloat(1.5), "1.5 is not a whole number of bytes"},
		{huge, "9223372036854775808 is too large"},
	} {
		_, ferr := acctest.CallFunction(t, server, "bytes_to_size", num(tt.in))
		wantArgError(t, ferr, 0, tt.text)
	}
}

func TestParsePropertyStringFunction(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	tests := []struct {
		name string
		args []tftypes.Value
		want map[string]any
	}{
		{"keys only", []tftypes.Value{str("virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1")},
			map[string]any{"virtio": "BC:24:11:2A:3B:4C", "bridge": "vmbr0", "firewall": "1"}},
		{"bare value under the default key", []tftypes.Value{str("local-lvm:vm-100-disk-0,discard=on,size=32G"), str("file")},
			map[string]any{"file": "local-lvm:vm-100-disk-0", "discard": "on", "size": "32G"}},
		{"default key given as a key", []tftypes.Value{str("current=4096"), str("current")},
			map[string]any{"current": "4096"}},
		{"a value holding =", []tftypes.Value{str("a=b=c")}, map[string]any{"a": "b=c"}},
		{"blank parts skipped", []tftypes.Value{str(",a=1, ,,b=2,")}, map[string]any{"a": "1", "b": "2"}},
		{"empty", []tftypes.Value{str("")}, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ferr := acctest.CallFunction(t, server, "parse_property_string", tt.args...)
			if ferr != nil {
				t.Fatalf("error: %s", ferr.Text)
			}
			if m := goValue(t, got).(map[string]any); !equalMaps(m, tt.want) {
				t.Errorf("got %v, want %v", m, tt.want)
			}
		})
	}
}

func TestParsePropertyStringFunctionRefuses(t *testing.T) {
	t.Parallel()
	server := acctest.NewFunctionServer(t)
	call := func(args ...tftypes.Value) *tfprotov6.FunctionError {
		_, ferr := acctest.CallFunction(t, server, "parse_property_string", args...)
		return ferr
	}
	// PVE's own texts (pve-common src/PVE/JSONSchema.pm parse_property_string).
	wantArgError(t, call(str("local:32,cache=none")), 0,
		"value without key, but schema does not define a default key", "pass it as the second argument")
	wantArgError(t, call(str("a=1,a=2")), 0, "duplicate key in comma-separated list property: a")
	wantArgError(t, call(str("local:32,file=local:64"), str("file")), 0, "duplicate key in comma-separated list property: file")
	wantArgError(t, call(str("a=")), 0, "missing key in comma-separated list property")
	wantArgError(t, call(str("=b")), 0, "missing key in comma-separated list property")
	wantArgError(t, call(str("a=1"), str("a=b")), 1, `"a=b" cannot be a property string key`)
	wantArgError(t, call(str("a=1"), str("")), 1, `"" cannot be a property string key`)
	wantArgError(t, call(str("a=1"), str("file"), str("volume")), 2, "at most one default key")
}
