package fwutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Problem is a string validator for a check of internal/wire that explains
// what is wrong with a value (UserIDProblem, TokenNameProblem, ...): a
// non-empty problem becomes the error, pinned to the attribute. describe
// says what a valid value looks like, for the schema's description.
func Problem(problem func(string) string, describe string) validator.String {
	return problemValidator{problem: problem, describe: describe}
}

type problemValidator struct {
	problem  func(string) string
	describe string
}

func (v problemValidator) Description(context.Context) string { return v.describe }

func (v problemValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v problemValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.problem(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			"Attribute "+req.Path.String()+": "+problem+".")
	}
}
