package fwutil

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ basetypes.StringTypable                    = SizeType{}
	_ basetypes.StringValuableWithSemanticEquals = SizeValue{}
	_ xattr.ValidateableAttribute                = SizeValue{}
)

// bareNumberPattern is a size without a unit, which a size attribute reads
// as GiB: HCL's `size = 32` reaches the provider as the string "32".
var bareNumberPattern = regexp.MustCompile(`^\d+(?:\.\d+)?$`)

// ParseSizeAttribute reads a disk size as written in configuration: a bare
// number is GiB ("32"), anything else is PVE's disk-size format ("32G",
// "2252M", "1.5T"). It returns bytes.
func ParseSizeAttribute(s string) (int64, error) {
	if bareNumberPattern.MatchString(s) {
		return wire.ParseSize(s + "G")
	}
	return wire.ParseSize(s)
}

// FormatSizeAttribute spells bytes for a size attribute the way
// configuration usually writes it: whole GiB as a bare number ("32", as
// from HCL's size = 32), else PVE's unit form ("2252M"), or KiB with
// decimals when the size is not whole KiB, so that it never reads back as a
// bare number of GiB.
func FormatSizeAttribute(bytes int64) string {
	if bytes%wire.GiB == 0 {
		return strconv.FormatInt(bytes/wire.GiB, 10)
	}
	if bytes%wire.KiB == 0 {
		return wire.FormatSize(bytes)
	}
	return exactKiB(bytes) + "K"
}

// exactKiB spells bytes/1024 in decimal with every digit: n/1024 is
// n*9765625/10^10, so ten decimals are always enough. Float formatting
// would round large values and read back one byte short.
func exactKiB(bytes int64) string {
	const fractionDigits = 10
	whole, rem := bytes/wire.KiB, bytes%wire.KiB
	fraction := fmt.Sprintf("%0*d", fractionDigits, rem*9765625)
	return strconv.FormatInt(whole, 10) + "." + strings.TrimRight(fraction, "0")
}

// SizeType is a string attribute holding a disk size. Values that mean the
// same number of bytes are equal ("32" == "32G" == "32768M"), so state keeps
// the configuration's spelling while PVE reports its own.
type SizeType struct {
	basetypes.StringType
}

// String implements attr.Type.
func (t SizeType) String() string { return "fwutil.SizeType" }

// Equal implements attr.Type.
func (t SizeType) Equal(o attr.Type) bool {
	_, ok := o.(SizeType)
	return ok
}

// ValueType implements attr.Type.
func (t SizeType) ValueType(context.Context) attr.Value { return SizeValue{} }

// ValueFromString implements basetypes.StringTypable.
func (t SizeType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return SizeValue{StringValue: in}, nil
}

// ValueFromTerraform implements attr.Type.
func (t SizeType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return SizeValue{StringValue: s}, nil
}

// SizeValue is a value of SizeType.
type SizeValue struct {
	basetypes.StringValue
}

// SizeNull is a null size.
func SizeNull() SizeValue { return SizeValue{StringValue: basetypes.NewStringNull()} }

// SizeUnknown is an unknown size.
func SizeUnknown() SizeValue { return SizeValue{StringValue: basetypes.NewStringUnknown()} }

// SizeFromBytes is a known size in FormatSizeAttribute's spelling.
func SizeFromBytes(bytes int64) SizeValue {
	return SizeValue{StringValue: basetypes.NewStringValue(FormatSizeAttribute(bytes))}
}

// SizeFromString is a known size as written.
func SizeFromString(s string) SizeValue {
	return SizeValue{StringValue: basetypes.NewStringValue(s)}
}

// Type implements attr.Value.
func (v SizeValue) Type(context.Context) attr.Type { return SizeType{} }

// Equal implements attr.Value: exact equality, as Terraform compares.
func (v SizeValue) Equal(o attr.Value) bool {
	other, ok := o.(SizeValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

// Bytes returns the size in bytes; ok is false for a null, unknown or
// malformed value.
func (v SizeValue) Bytes() (bytes int64, ok bool) {
	if v.IsNull() || v.IsUnknown() {
		return 0, false
	}
	b, err := ParseSizeAttribute(v.ValueString())
	return b, err == nil
}

// StringSemanticEquals implements basetypes.StringValuableWithSemanticEquals.
func (v SizeValue) StringSemanticEquals(_ context.Context, prior basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := prior.(SizeValue)
	if !ok {
		return false, nil
	}
	a, okA := v.Bytes()
	b, okB := other.Bytes()
	return okA && okB && a == b, nil
}

// ValidateAttribute implements xattr.ValidateableAttribute: a size must be a
// positive PVE disk size.
func (v SizeValue) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	bytes, err := ParseSizeAttribute(v.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Disk Size",
			fmt.Sprintf("%q is not a disk size. Write a number of GiB (32) or a number with a unit K, M, G or T (\"512M\", \"1.5T\").", v.ValueString()))
		return
	}
	if bytes <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Disk Size",
			fmt.Sprintf("%q is not a usable disk size: it must be greater than zero.", v.ValueString()))
	}
}

// KeepEquivalentSize plans the prior state's spelling of a size when the
// configuration means the same bytes, so that "32" in configuration and
// "32G" read from PVE (after an import) plan no change. Terraform accepts a
// planned value equal to the prior one as the provider's statement that
// both are equivalent.
func KeepEquivalentSize() planmodifier.String { return keepEquivalentSize{} }

type keepEquivalentSize struct{}

func (keepEquivalentSize) Description(context.Context) string {
	return "Keeps the prior spelling of a size when the configured size means the same number of bytes."
}

func (m keepEquivalentSize) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (keepEquivalentSize) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	configured, errC := ParseSizeAttribute(req.ConfigValue.ValueString())
	prior, errS := ParseSizeAttribute(req.StateValue.ValueString())
	if errC == nil && errS == nil && configured == prior {
		resp.PlanValue = req.StateValue
	}
}
