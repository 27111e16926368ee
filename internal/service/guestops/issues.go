package guestops

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// Issue is a plan-time finding about an attribute: an error that stops the
// plan, or a warning the plan shows.
type Issue struct {
	Path    path.Path
	Summary string
	Detail  string
	Warning bool
}

func (i Issue) String() string {
	kind := "error"
	if i.Warning {
		kind = "warning"
	}
	return fmt.Sprintf("%s at %s: %s: %s", kind, i.Path, i.Summary, i.Detail)
}

// AddIssues reports issues as attribute diagnostics.
func AddIssues(diags *diag.Diagnostics, issues []Issue) {
	for _, issue := range issues {
		if issue.Warning {
			diags.AddAttributeWarning(issue.Path, issue.Summary, issue.Detail)
		} else {
			diags.AddAttributeError(issue.Path, issue.Summary, issue.Detail)
		}
	}
}
