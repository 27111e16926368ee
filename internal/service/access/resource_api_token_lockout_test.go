package access_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// The token the provider itself runs on is not destroyed, replaced,
// rotated or separated without allow_self_lockout: the plan refuses. The
// test adopts the simulator's own token with an import block and lets go
// of it with a removed block, so it never destroys it.
func TestAccAPIToken_selfLockout(t *testing.T) {
	t.Parallel()
	tg := pinnedRelease(t, "9.2")
	self := tg.Client.Principal()
	userid, name, ok := strings.Cut(self, "!")
	if !ok {
		t.Skip("the provider does not run on an API token")
	}
	// The simulator's test token has no privilege separation, no comment
	// and no expiry.
	own := tokenConf{userid: userid, name: name, privsep: boolPtr(false)}
	adopt := fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", tokenAddr, self)
	rotated, separated, replaced, allowed := own, own, own, own
	rotated.secretVersion = "1"
	separated.privsep = boolPtr(true)
	replaced.name = name + "2"
	allowed.allowLockout = true
	allowedSeparated := allowed
	allowedSeparated.privsep = boolPtr(true)
	refused := func(config, verb string) resource.TestStep {
		return resource.TestStep{
			Config:      tg.Config(config),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + verb + ` The Provider's Own API Token.*` + regexp.QuoteMeta(self) + `.*allow_self_lockout\s+=\s+true`),
		}
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:           tg.Config(adopt + own.hcl()),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop),
			},
			refused(rotated.hcl(), "Rotating"),
			refused(separated.hcl(), "Separating"),
			refused(replaced.hcl(), "Replacing"),
			refused("", "Destroying"),
			{
				// Allowed, the change plans.
				Config:             tg.Config(allowedSeparated.hcl()),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: tg.Config(fmt.Sprintf("removed {\n  from = %s\n  lifecycle {\n    destroy = false\n  }\n}\n", tokenAddr)),
			},
		},
	})
}
