package ha_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// groupsAndRulesConfig is n groups (PVE 8.4) or n rules (PVE 9), each
// with the given comment.
func groupsAndRulesConfig(tg *acctest.Target, rules bool, n int, comment string) string {
	var b strings.Builder
	for i := range n {
		if rules {
			fmt.Fprintf(&b, "resource \"pve_ha_rule\" \"r%d\" {\n  rule = \"rule%d\"\n  type = \"node-affinity\"\n  resources = [\"vm:%d\"]\n  nodes = { pve1 = 1 }\n  comment = %q\n}\n", i, i, 100+i, comment)
		} else {
			fmt.Fprintf(&b, "resource \"pve_ha_group\" \"g%d\" {\n  group = \"group%d\"\n  nodes = { pve1 = 1 }\n  comment = %q\n}\n", i, i, comment)
		}
	}
	return tg.Config(b.String())
}

// Groups share one file and one digest (ha/groups.cfg), rules another
// (ha/rules.cfg): updating several in one apply must not fail on the
// digest that a sibling's update changed.
func TestAccHAGroupsAndRulesUpdatedTogether(t *testing.T) {
	t.Parallel()
	const n = 6
	tg := acctest.NewOnPVE(t, "8.4")
	groupRuleNeedMajor(t, tg, 8)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: groupsAndRulesConfig(tg, false, n, "one")},
			{Config: groupsAndRulesConfig(tg, false, n, "two")},
		},
	})

	tg = acctest.NewOnPVE(t, "9.1")
	var sids []string
	for i := range n {
		sids = append(sids, fmt.Sprintf("vm:%d", 100+i))
	}
	ruleSeedHAResources(t, tg, sids...)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: groupsAndRulesConfig(tg, true, n, "one")},
			{Config: groupsAndRulesConfig(tg, true, n, "two")},
		},
	})
}
