package fwutil

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestParseSizeAttributeBareNumberIsGiB(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"32":     32 << 30,
		"32G":    32 << 30,
		"32768M": 32 << 30,
		"1.5":    3 << 29,
		"2252M":  2252 << 20,
		"1T":     1 << 40,
	} {
		got, err := ParseSizeAttribute(in)
		if err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "-1", "32GB", "1,5"} {
		if _, err := ParseSizeAttribute(bad); err == nil {
			t.Errorf("%q must be refused", bad)
		}
	}
}

func TestFormatSizeAttributeRoundTrips(t *testing.T) {
	t.Parallel()
	for _, bytes := range []int64{32 << 30, 2252 << 20, 1 << 40, 1536 << 10, 1000, 4194305, 10898479513} {
		s := FormatSizeAttribute(bytes)
		back, err := ParseSizeAttribute(s)
		if err != nil || back != bytes {
			t.Errorf("%d -> %q -> %d %v", bytes, s, back, err)
		}
	}
	for bytes, want := range map[int64]string{32 << 30: "32", 1 << 40: "1024", 2252 << 20: "2252M", 1000: "0.9765625K"} {
		if got := FormatSizeAttribute(bytes); got != want {
			t.Errorf("%d spelled %q, want %q", bytes, got, want)
		}
	}
}

func TestSizeSemanticEquality(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	equal, _ := SizeFromString("32").StringSemanticEquals(ctx, SizeFromString("32768M"))
	if !equal {
		t.Error("32 and 32768M are the same size")
	}
	equal, _ = SizeFromString("32").StringSemanticEquals(ctx, SizeFromString("33G"))
	if equal {
		t.Error("32 and 33G differ")
	}
	equal, _ = SizeFromString("32").StringSemanticEquals(ctx, SizeNull())
	if equal {
		t.Error("a size is not equal to null")
	}
}

func TestSizeValidation(t *testing.T) {
	t.Parallel()
	for in, wantErr := range map[string]bool{"32": false, "512M": false, "0": true, "lots": true, "1.5X": true} {
		resp := &xattr.ValidateAttributeResponse{}
		SizeFromString(in).ValidateAttribute(context.Background(), xattr.ValidateAttributeRequest{Path: path.Root("size")}, resp)
		if resp.Diagnostics.HasError() != wantErr {
			t.Errorf("%q: error=%v, want %v (%v)", in, resp.Diagnostics.HasError(), wantErr, resp.Diagnostics)
		}
	}
}

func TestKeepEquivalentSize(t *testing.T) {
	t.Parallel()
	run := func(config, state string) types.String {
		req := planmodifier.StringRequest{
			ConfigValue: types.StringValue(config),
			PlanValue:   types.StringValue(config),
			StateValue:  types.StringValue(state),
		}
		resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
		KeepEquivalentSize().PlanModifyString(context.Background(), req, resp)
		return resp.PlanValue
	}
	if got := run("32", "32G"); got.ValueString() != "32G" {
		t.Errorf("equal sizes keep the state spelling, got %v", got)
	}
	if got := run("40", "32G"); got.ValueString() != "40" {
		t.Errorf("a new size is planned as configured, got %v", got)
	}
}

func TestTagSetSemanticEqualityW19(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	equal, _ := TagSetOf([]string{"Web", "prod"}).SetSemanticEquals(ctx, TagSetOf([]string{"prod", "web"}))
	if !equal {
		t.Error("W19: tags differing in case are the same set")
	}
	equal, _ = TagSetOf([]string{"web"}).SetSemanticEquals(ctx, TagSetOf([]string{"web", "db"}))
	if equal {
		t.Error("different tag sets are not equal")
	}
	got, err := TagSetOf([]string{"Web", "web", "prod"}).Normalized()
	if err != nil || len(got) != 2 || got[0] != "prod" || got[1] != "web" {
		t.Errorf("normalised %v %v", got, err)
	}
	if _, err := TagSetOf([]string{"bad tag"}).Normalized(); err == nil {
		t.Error("W19: a tag with a space is invalid")
	}
}
