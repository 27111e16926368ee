package access_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// wrapped matches text however Terraform wraps its lines.
func wrapped(text string) *regexp.Regexp {
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(strings.Join(words, `\s+`))
}

func expectPlanAction(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)}}
}

// skipLive skips a test that watches the simulator's requests.
func skipLive(t *testing.T) {
	t.Helper()
	if acctest.IsLive() {
		t.Skip("watches the simulator's requests")
	}
}

// createGroup makes a group outside Terraform, removed when the test ends.
func createGroup(t *testing.T, tg *acctest.Target, groupid string, members ...string) {
	t.Helper()
	ctx := context.Background()
	if err := tg.Client.CreateGroup(ctx, groupid, ""); err != nil {
		t.Fatalf("create group %s: %v", groupid, err)
	}
	t.Cleanup(func() { _ = tg.Client.DeleteGroup(context.Background(), groupid) })
	if len(members) == 0 {
		return
	}
	if tg.Sim == nil {
		t.Fatal("group members are set through the simulator's model")
	}
	if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
		c.Access.Groups[groupid].Users = append(c.Access.Groups[groupid].Users, members...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// createUser makes a user of realm pve outside Terraform.
func createUser(t *testing.T, tg *acctest.Target, userid string) {
	t.Helper()
	if tg.Sim != nil {
		if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
			c.Access.Users[userid] = &pvesim.User{Enable: true}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := tg.Client.CreateUser(context.Background(), pveapi.UserCreate{UserID: userid}); err != nil {
		t.Fatalf("create user %s: %v", userid, err)
	}
	t.Cleanup(func() { _ = tg.Client.DeleteUser(context.Background(), userid) })
}

// findACL returns PVE's entry, if any.
func findACL(tg *acctest.Target, path, entryType, ugid, role string) (pveapi.ACLEntry, bool, error) {
	entries, err := tg.Client.ACL(context.Background())
	if err != nil {
		return pveapi.ACLEntry{}, false, err
	}
	for _, e := range entries {
		if e.Path == path && e.Type == entryType && e.UGID == ugid && e.RoleID == role {
			return e, true, nil
		}
	}
	return pveapi.ACLEntry{}, false, nil
}

// checkACL fails unless PVE has the entry (want) or has not.
func checkACL(tg *acctest.Target, want bool, path, entryType, ugid, role string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := findACL(tg, path, entryType, ugid, role)
		if err != nil {
			return err
		}
		if found != want {
			return fmt.Errorf("ACL entry %s|%s|%s|%s: present %t, want %t", path, entryType, ugid, role, found, want)
		}
		return nil
	}
}

// checkRoleGone fails while PVE has the role.
func checkRoleGone(tg *acctest.Target, roleid string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := tg.Client.GetRole(context.Background(), roleid)
		if err == nil {
			return fmt.Errorf("role %s still exists", roleid)
		}
		if !pveapi.IsNoSuchRole(err) {
			return err
		}
		return nil
	}
}

// roleName is a role name unique to the run (roles take no '-' at the
// start and no "PVE" prefix, so the prefix is fixed).
func roleName() string { return strings.ReplaceAll(acctest.Name("tfacc"), "-", "_") }

// checkLastWrite fails unless the last METHOD PATH the simulator received
// carried exactly want as its parameters (one value each).
func checkLastWrite(tg *acctest.Target, method, path string, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var last *pvesim.RequestRecord
		requests := tg.Sim.Requests()
		for i := range requests {
			if requests[i].Method == method && requests[i].Path == path {
				last = &requests[i]
			}
		}
		if last == nil {
			return fmt.Errorf("no %s %s was sent", method, path)
		}
		got := map[string]string{}
		for k, v := range last.Params {
			got[k] = strings.Join(v, "\x00")
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("%s %s sent %v, want %v", method, path, got, want)
		}
		return nil
	}
}
