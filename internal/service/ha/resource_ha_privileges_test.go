package ha_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// groupRulePrivileges are the privileges the feature table lists for HA
// groups and rules.
func groupRulePrivileges(t *testing.T) []string {
	t.Helper()
	for _, f := range access.Features {
		if f.Name != "ha_groups_rules" {
			continue
		}
		var privs []string
		for _, g := range f.Grants {
			privs = append(privs, g.Privileges...)
		}
		return privs
	}
	t.Fatal("no ha_groups_rules feature")
	return nil
}

// A token with only the feature table's privileges manages HA groups on
// PVE 8.4 and HA rules on PVE 9 (pve-ha-manager src/PVE/API2/HA/Groups.pm
// and Rules.pm: Sys.Audit on / to read, Sys.Console on / to write).
func TestAccHAGroupRulePrivilegesSuffice(t *testing.T) {
	t.Parallel()
	tg := acctest.NewRestricted(t, "8.4", groupRulePrivileges(t))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: groupConfig(tg, "web", "  nodes = { pve1 = 1 }\n")},
			{Config: groupConfig(tg, "web", "  nodes = { pve1 = 2 }\n  comment = \"x\"\n")},
		},
	})

	tg = acctest.NewRestricted(t, "9.1", groupRulePrivileges(t))
	ruleSeedHAResources(t, tg, "vm:100")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: ruleConfig(tg, "web", "  type = \"node-affinity\"\n  resources = [\"vm:100\"]\n  nodes = { pve1 = 1 }\n")},
			{Config: ruleConfig(tg, "web", "  type = \"node-affinity\"\n  resources = [\"vm:100\"]\n  nodes = { pve2 = 1 }\n")},
		},
	})
}

// groupRuleNeedMajor skips a test against a live node of another major
// release: the simulator serves the release the test asks for.
func groupRuleNeedMajor(t *testing.T, tg *acctest.Target, major int) {
	t.Helper()
	if tg.Sim != nil {
		return
	}
	v, err := tg.Client.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := wire.ParseRelease(v.Release); !ok || r.Major != major {
		t.Skipf("needs PVE %d, the node runs %s", major, v.Release)
	}
}
