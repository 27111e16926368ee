package acctest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// PlanResponseWithPrivate is PlanResponse with the private state the last
// refresh returned, as Terraform passes it to the plan.
func (p *Protocol) PlanResponseWithPrivate(tb testing.TB, typeName string, prior, config *tfprotov6.DynamicValue, private []byte) *tfprotov6.PlanResourceChangeResponse {
	tb.Helper()
	resp, err := p.Server.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName:         typeName,
		PriorState:       prior,
		ProposedNewState: config,
		Config:           config,
		PriorPrivate:     private,
	})
	if err != nil {
		tb.Fatalf("plan %s: %v", typeName, err)
	}
	return resp
}
