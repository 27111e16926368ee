package acctest

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PlanResponse runs PlanResourceChange of config (nil: a destroy) against
// prior and returns the whole answer, diagnostics and replacement paths
// included, as Terraform receives it.
func (p *Protocol) PlanResponse(tb testing.TB, typeName string, prior, config *tfprotov6.DynamicValue) *tfprotov6.PlanResourceChangeResponse {
	tb.Helper()
	proposed := config
	if config == nil {
		null, err := tfprotov6.NewDynamicValue(p.resourceTypes[typeName], tftypes.NewValue(p.resourceTypes[typeName], nil))
		if err != nil {
			tb.Fatalf("null value: %v", err)
		}
		proposed, config = &null, &null
	}
	resp, err := p.Server.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName:         typeName,
		PriorState:       prior,
		ProposedNewState: proposed,
		Config:           config,
	})
	if err != nil {
		tb.Fatalf("plan %s: %v", typeName, err)
	}
	return resp
}

// WithAttribute is value (a state or configuration of typeName) with the
// top-level attribute name set to v.
func (p *Protocol) WithAttribute(tb testing.TB, typeName string, value *tfprotov6.DynamicValue, name string, v tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	decoded := p.StateValue(tb, typeName, value)
	changed, err := tftypes.Transform(decoded, func(path *tftypes.AttributePath, old tftypes.Value) (tftypes.Value, error) {
		if len(path.Steps()) == 1 && path.Steps()[0] == tftypes.AttributeName(name) {
			return v, nil
		}
		return old, nil
	})
	if err != nil {
		tb.Fatalf("set %s: %v", name, err)
	}
	dv, err := tfprotov6.NewDynamicValue(p.resourceTypes[typeName], changed)
	if err != nil {
		tb.Fatalf("encode: %v", err)
	}
	return &dv
}

// Warning is the detail of the warning summary names among diags, "" when
// there is none.
func Warning(diags []*tfprotov6.Diagnostic, summary string) string {
	var details []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Summary == summary {
			details = append(details, d.Detail)
		}
	}
	return strings.Join(details, "\n")
}

// WantAll fails tb for each of parts that text, the message called what,
// does not contain.
func WantAll(tb testing.TB, what, text string, parts ...string) {
	tb.Helper()
	for _, part := range parts {
		if !strings.Contains(text, part) {
			tb.Errorf("%s does not say %q:\n%s", what, part, text)
		}
	}
}

// PlanDiagnostics runs what `terraform plan` asks of the provider for one
// resource: ValidateResourceConfig of config and, when that finds no
// error, PlanResourceChange of config against prior (NullState for a
// create). It returns the diagnostics of the step that stopped or of the
// plan, for tests of what a plan refuses or warns about.
func (p *Protocol) PlanDiagnostics(tb testing.TB, typeName string, prior, config *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	tb.Helper()
	validation, err := p.Server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: typeName,
		Config:   config,
	})
	if err != nil {
		tb.Fatalf("validate %s: %v", typeName, err)
	}
	if hasErrors(validation.Diagnostics) {
		return validation.Diagnostics
	}
	return p.PlanResponse(tb, typeName, prior, config).Diagnostics
}

// WantError fails tb unless diags hold an error whose summary and detail
// (as "SUMMARY: DETAIL") match want and, when attribute is not empty,
// that names the top-level attribute of that name: the refusal Terraform
// shows at plan time.
func WantError(tb testing.TB, diags []*tfprotov6.Diagnostic, attribute string, want *regexp.Regexp) {
	tb.Helper()
	var texts []string
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		text := d.Summary + ": " + d.Detail
		if !want.MatchString(text) {
			texts = append(texts, text)
			continue
		}
		if attribute != "" && !d.Attribute.Equal(tftypes.NewAttributePath().WithAttributeName(attribute)) {
			tb.Errorf("the error %q names %v, want attribute %s", text, d.Attribute, attribute)
		}
		return
	}
	tb.Errorf("no error matches %q; errors:\n%s", want, strings.Join(texts, "\n"))
}
