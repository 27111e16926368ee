package access_test

import (
	"fmt"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

// entryOf finds the element of a data source's list attribute whose key
// attribute is id.
func entryOf(state *tfjson.State, addr, list, key, id string) (map[string]any, error) {
	for _, rs := range state.Values.RootModule.Resources {
		if rs.Address != addr {
			continue
		}
		items, _ := rs.AttributeValues[list].([]any)
		for _, item := range items {
			if entry, ok := item.(map[string]any); ok && entry[key] == id {
				return entry, nil
			}
		}
		return nil, fmt.Errorf("%s.%s has no entry %s", addr, list, id)
	}
	return nil, fmt.Errorf("%s not in state", addr)
}

func stringsOf(v any) []string {
	items, _ := v.([]any)
	out := make([]string, 0, len(items))
	for _, item := range items {
		out = append(out, fmt.Sprint(item))
	}
	return out
}

func TestAccUsersAndGroupsDataSources(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	n := newUserTestNames()
	disabled := acctest.Name("tfacc-off") + "@pve"
	config := n.config(tg, hcl("first_name", "Alice", "email", "alice@example.com",
		"expire", "2030-01-01T00:00:00Z", "groups", expr("[pve_group.ops.groupid]"))) + fmt.Sprintf(`
resource "pve_user" "off" {
  userid  = %q
  enabled = false
}

data "pve_users" "all" {
  depends_on = [pve_user.test, pve_user.off]
}

data "pve_users" "enabled" {
  enabled    = true
  depends_on = [pve_user.test, pve_user.off]
}

data "pve_groups" "all" {
  depends_on = [pve_user.test]
}
`, disabled)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkUserDestroyed(tg, n.userid, disabled),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(state *tfjson.State) error {
					alice, err := entryOf(state, "data.pve_users.all", "users", "userid", n.userid)
					if err != nil {
						return err
					}
					if alice["first_name"] != "Alice" || alice["email"] != "alice@example.com" || alice["enabled"] != true ||
						alice["expire"] != "2030-01-01T00:00:00Z" || alice["realm_type"] != "pve" || alice["comment"] != nil {
						return fmt.Errorf("users entry: %v", alice)
					}
					if groups := stringsOf(alice["groups"]); len(groups) != 1 || groups[0] != n.ops {
						return fmt.Errorf("users entry groups: %v", groups)
					}
					if _, err := entryOf(state, "data.pve_users.all", "users", "userid", disabled); err != nil {
						return err
					}
					if _, err := entryOf(state, "data.pve_users.enabled", "users", "userid", disabled); err == nil {
						return fmt.Errorf("the enabled filter lists disabled user %s", disabled)
					}
					if _, err := entryOf(state, "data.pve_users.enabled", "users", "userid", n.userid); err != nil {
						return err
					}
					ops, err := entryOf(state, "data.pve_groups.all", "groups", "groupid", n.ops)
					if err != nil {
						return err
					}
					if members := stringsOf(ops["members"]); ops["comment"] != "operations" || len(members) != 1 || members[0] != n.userid {
						return fmt.Errorf("groups entry: %v", ops)
					}
					return nil
				}),
			},
		}},
	})
}

// A token holding only the privileges of the access feature (and read)
// manages users and groups and lists them, on PVE 9 and 8.4.
func TestAccUsersWithAccessPrivilegesOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version string
		release access.Release
	}{{"9.1", access.PVE9}, {"8.4", access.PVE84}} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			tg := acctest.NewRestricted(t, tc.version, privilegesOf(t, tc.release, "access"))
			n := newUserTestNames()
			withData := func(userAttrs string) string {
				return n.config(tg, userAttrs) + "\ndata \"pve_users\" \"all\" {\n  depends_on = [pve_user.test]\n}\n\ndata \"pve_groups\" \"all\" {\n  depends_on = [pve_user.test]\n}\n"
			}
			tg.Run(t, resource.TestCase{
				CheckDestroy: checkUserDestroyed(tg, n.userid),
				Steps: []resource.TestStep{
					{Config: withData(hcl("groups", expr("[pve_group.dev.groupid]"), "password_wo", testPassword))},
					{Config: withData(hcl("groups", expr("[pve_group.ops.groupid]"), "comment", "moved", "password_wo", testPassword))},
				},
			})
		})
	}
}
