package access

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// wireProblemValidator refuses a string for which problem, one of the wire
// package's checks, returns a text; the error names the attribute and
// carries the text.
func wireProblemValidator(description string, problem func(string) string) validator.String {
	return wireProblemCheck{description: description, problem: problem}
}

type wireProblemCheck struct {
	description string
	problem     func(string) string
}

func (v wireProblemCheck) Description(context.Context) string { return v.description }

func (v wireProblemCheck) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v wireProblemCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if text := v.problem(req.ConfigValue.ValueString()); text != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+v.description, fmt.Sprintf("Attribute %s: %s.", req.Path, text))
	}
}

// normalizedACLPathProblem refuses an ACL path PVE would store in another
// spelling ("/vms/100/", "vms//100"): state holds PVE's form, so a
// different spelling in configuration would show as a change on every
// plan. The message gives the form to write.
func normalizedACLPathProblem(path string) string {
	normalized, ok := wire.NormalizeACLPath(path)
	if !ok {
		return fmt.Sprintf("ACL path %q must be a path like /, /vms/100, /storage/local or /pool/dev, of letters, digits, '.', '-', '_' and '/'", path)
	}
	if normalized != path {
		return fmt.Sprintf("write ACL path %q as %q, the form PVE stores", path, normalized)
	}
	return ""
}
