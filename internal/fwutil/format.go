package fwutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/helpers/validatordiag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Format is a string validator for one of PVE's formats or slot ranges in
// internal/wire: it refuses a value for which valid reports false, saying
// message. The diagnostic is the one stringvalidator.RegexMatches gives
// ("Invalid Attribute Value Match", "Attribute PATH MESSAGE, got: VALUE"),
// so a format can move from a pattern to wire without changing what users
// read.
func Format(valid func(string) bool, message string) validator.String {
	return formatValidator{valid: valid, message: message}
}

type formatValidator struct {
	valid   func(string) bool
	message string
}

func (v formatValidator) Description(context.Context) string { return v.message }

func (v formatValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v formatValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if value := req.ConfigValue.ValueString(); !v.valid(value) {
		resp.Diagnostics.Append(validatordiag.InvalidAttributeValueMatchDiagnostic(req.Path, v.Description(ctx), value))
	}
}
