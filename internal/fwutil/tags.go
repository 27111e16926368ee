package fwutil

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ basetypes.SetTypable                    = TagSetType{}
	_ basetypes.SetValuableWithSemanticEquals = TagSetValue{}
)

// TagSetType is a set of guest tags compared in PVE's normalised form
// (W19): PVE folds tags to lowercase, so {"Web"} and {"web"} are the same
// set and plan no change.
type TagSetType struct {
	basetypes.SetType
}

// NewTagSetType is the type to put in a schema's CustomType.
func NewTagSetType() TagSetType {
	return TagSetType{SetType: basetypes.SetType{ElemType: types.StringType}}
}

// String implements attr.Type.
func (t TagSetType) String() string { return "fwutil.TagSetType" }

// Equal implements attr.Type.
func (t TagSetType) Equal(o attr.Type) bool {
	other, ok := o.(TagSetType)
	return ok && t.SetType.Equal(other.SetType)
}

// ValueType implements attr.Type.
func (t TagSetType) ValueType(context.Context) attr.Value {
	return TagSetValue{SetValue: basetypes.NewSetNull(types.StringType)}
}

// ValueFromSet implements basetypes.SetTypable.
func (t TagSetType) ValueFromSet(_ context.Context, in basetypes.SetValue) (basetypes.SetValuable, diag.Diagnostics) {
	return TagSetValue{SetValue: in}, nil
}

// ValueFromTerraform implements attr.Type.
func (t TagSetType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.SetType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.SetValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return TagSetValue{SetValue: s}, nil
}

// TagSetValue is a value of TagSetType.
type TagSetValue struct {
	basetypes.SetValue
}

// TagSetNull is a null tag set.
func TagSetNull() TagSetValue {
	return TagSetValue{SetValue: basetypes.NewSetNull(types.StringType)}
}

// TagSetOf is a known tag set holding tags as given.
func TagSetOf(tags []string) TagSetValue {
	elems := make([]attr.Value, len(tags))
	for i, t := range tags {
		elems[i] = types.StringValue(t)
	}
	return TagSetValue{SetValue: basetypes.NewSetValueMust(types.StringType, elems)}
}

// Type implements attr.Value.
func (v TagSetValue) Type(context.Context) attr.Type { return NewTagSetType() }

// Equal implements attr.Value: exact equality, as Terraform compares.
func (v TagSetValue) Equal(o attr.Value) bool {
	other, ok := o.(TagSetValue)
	return ok && v.SetValue.Equal(other.SetValue)
}

// Tags returns the known, non-null elements as written.
func (v TagSetValue) Tags() []string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	var out []string
	for _, e := range v.Elements() {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// Normalized returns the tags in PVE's stored form (lowercase, sorted,
// without repeats), or an error naming an invalid tag (W19).
func (v TagSetValue) Normalized() ([]string, error) {
	return wire.NormalizeTags(v.Tags())
}

// SetSemanticEquals implements basetypes.SetValuableWithSemanticEquals:
// equal when both name the same tags in PVE's normalised form. An empty set
// and a null one differ: PVE has no tags either way, but configuration
// wrote them differently and Terraform compares exactly.
func (v TagSetValue) SetSemanticEquals(_ context.Context, prior basetypes.SetValuable) (bool, diag.Diagnostics) {
	other, ok := prior.(TagSetValue)
	if !ok || v.IsNull() != other.IsNull() || v.IsUnknown() || other.IsUnknown() {
		return false, nil
	}
	return wire.SameTags(v.Tags(), other.Tags()), nil
}

// KeepEquivalentTags plans the prior state's tags when the configured tags
// are the same set in PVE's normalised form (W19), so that {"Web"} in
// configuration and {"web"} read from PVE plan no change.
func KeepEquivalentTags() planmodifier.Set { return keepEquivalentTags{} }

type keepEquivalentTags struct{}

func (keepEquivalentTags) Description(context.Context) string {
	return "Keeps the prior tags when the configured tags are the same set once normalised as PVE stores them."
}

func (m keepEquivalentTags) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (keepEquivalentTags) PlanModifySet(ctx context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		return
	}
	configured := TagSetValue{SetValue: req.ConfigValue}
	prior := TagSetValue{SetValue: req.StateValue}
	if equal, _ := configured.SetSemanticEquals(ctx, prior); equal {
		resp.PlanValue = req.StateValue
	}
}

// ValidTag is a set-element validator for PVE tags (W19): letters, digits,
// "-", "_", "+" and "." only, not starting with "-", "+" or ".".
func ValidTag() validator.String { return validTag{} }

type validTag struct{}

func (validTag) Description(context.Context) string {
	return "must be a PVE tag: letters, digits, '-', '_', '+' and '.', starting with a letter, digit or '_'"
}

func (v validTag) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (validTag) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	tag := req.ConfigValue.ValueString()
	if _, err := wire.NormalizeTags([]string{tag}); err != nil || tag == "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Tag",
			fmt.Sprintf("Tag %q is not valid in PVE: use letters, digits, '-', '_', '+' and '.', starting with a letter, digit or '_'. PVE stores tags in lowercase.", tag))
	}
}
