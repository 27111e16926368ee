package fwutil

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func sortedJoin(items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	return strings.Join(items, ",")
}

func splitComma(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' })
}

var typedTestOptions = []TypedOption{
	{Key: "flag-a", Attribute: "flag_a", Kind: OptionBool},
	{Key: "flag-b", Attribute: "flag_b", Kind: OptionBool},
	{Key: "mtu", Attribute: "mtu", Kind: OptionInt},
	{Key: "nodes", Attribute: "nodes", Kind: OptionList, Join: sortedJoin, Split: splitComma},
	{Key: "comment", Attribute: "comment", Kind: OptionString},
	{Key: "bridge", Attribute: "bridge", Kind: OptionString},
}

func typedTestState(t *testing.T, vals map[string]tftypes.Value) tfsdk.State {
	t.Helper()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"flag_a":  schema.BoolAttribute{Optional: true},
		"flag_b":  schema.BoolAttribute{Optional: true},
		"mtu":     schema.Int64Attribute{Optional: true},
		"nodes":   schema.SetAttribute{Optional: true, ElementType: types.StringType},
		"comment": schema.StringAttribute{Optional: true},
		"bridge":  schema.StringAttribute{Optional: true},
	}}
	typ := s.Type().TerraformType(context.Background()).(tftypes.Object)
	all := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		all[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range vals {
		all[name] = v
	}
	return tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, all)}
}

// Known values are read in wire form, null ones left out, unknown ones
// left out and listed apart.
func TestReadTypedOptions(t *testing.T) {
	strs := tftypes.Set{ElementType: tftypes.String}
	st := typedTestState(t, map[string]tftypes.Value{
		"flag_a":  tftypes.NewValue(tftypes.Bool, true),
		"flag_b":  tftypes.NewValue(tftypes.Bool, false),
		"mtu":     tftypes.NewValue(tftypes.Number, 1450),
		"nodes":   tftypes.NewValue(strs, []tftypes.Value{tftypes.NewValue(tftypes.String, "pve2"), tftypes.NewValue(tftypes.String, "pve1")}),
		"comment": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
	})
	var diags diag.Diagnostics
	values, unknown := ReadTypedOptions(context.Background(), st, typedTestOptions, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := map[string]string{"flag-a": "1", "flag-b": "0", "mtu": "1450", "nodes": "pve1,pve2"}
	if diff := cmp.Diff(want, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"comment": true}, unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}

	st = typedTestState(t, map[string]tftypes.Value{"nodes": tftypes.NewValue(strs, tftypes.UnknownValue)})
	values, unknown = ReadTypedOptions(context.Background(), st, typedTestOptions, &diags)
	if len(values) != 0 || !unknown["nodes"] || len(unknown) != 1 {
		t.Errorf("unknown set: values %v unknown %v", values, unknown)
	}
}

// What PVE holds is written typed; what it lacks, and an integer that does
// not parse, is null; a list holds Split's items.
func TestSetTypedOptions(t *testing.T) {
	ctx := context.Background()
	st := typedTestState(t, map[string]tftypes.Value{"bridge": tftypes.NewValue(tftypes.String, "vmbr9")})
	var diags diag.Diagnostics
	SetTypedOptions(ctx, &st, typedTestOptions, map[string]string{"flag-a": "1", "flag-b": "0", "mtu": "many", "nodes": "pve2,pve1", "comment": "c"}, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	var got struct {
		FlagA   types.Bool   `tfsdk:"flag_a"`
		FlagB   types.Bool   `tfsdk:"flag_b"`
		MTU     types.Int64  `tfsdk:"mtu"`
		Nodes   []string     `tfsdk:"nodes"`
		Comment types.String `tfsdk:"comment"`
		Bridge  types.String `tfsdk:"bridge"`
	}
	diags.Append(st.Get(ctx, &got)...)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !got.FlagA.ValueBool() || got.FlagB.IsNull() || got.FlagB.ValueBool() || !got.MTU.IsNull() || got.Comment.ValueString() != "c" || !got.Bridge.IsNull() {
		t.Errorf("got %+v", got)
	}
	if diff := cmp.Diff([]string{"pve2", "pve1"}, got.Nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}

	SetTypedOptions(ctx, &st, typedTestOptions, map[string]string{"nodes": "", "mtu": "1500"}, &diags)
	var nodes types.Set
	var mtu types.Int64
	diags.Append(st.GetAttribute(ctx, path.Root("nodes"), &nodes)...)
	diags.Append(st.GetAttribute(ctx, path.Root("mtu"), &mtu)...)
	if diags.HasError() || nodes.IsNull() || len(nodes.Elements()) != 0 || mtu.ValueInt64() != 1500 {
		t.Errorf("an empty list is an empty set, not null: %v; mtu %v; %v", nodes, mtu, diags)
	}
}

func TestTypedWireForm(t *testing.T) {
	list := typedTestOptions[3]
	for _, c := range []struct {
		o       TypedOption
		in, out string
	}{
		{typedTestOptions[0], "1", "1"},
		{typedTestOptions[0], "0", "0"},
		{typedTestOptions[0], "true", "true"},
		{list, "b,a", "a,b"},
		{list, "", ""},
		{typedTestOptions[2], "007", "007"},
		{typedTestOptions[4], "true", "true"},
	} {
		if got := TypedWireForm(c.o, c.in); got != c.out {
			t.Errorf("TypedWireForm(%s, %q) = %q, want %q", c.o.Key, c.in, got, c.out)
		}
	}
}

func TestKindOf(t *testing.T) {
	type kind int
	const (
		str kind = iota
		boolean
		integer
		list
		other
	)
	for k, want := range map[kind]OptionKind{str: OptionString, boolean: OptionBool, integer: OptionInt, list: OptionList, other: OptionString} {
		if got := KindOf(k, boolean, integer, list); got != want {
			t.Errorf("KindOf(%d) = %d, want %d", k, got, want)
		}
	}
}
