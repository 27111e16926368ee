package access_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const aclAddr = "pve_acl.test"

// aclConfig is one pve_acl; member is `user = "..."`, `group = "..."` or
// `token = "..."`, extra more attribute lines.
func aclConfig(tg *acctest.Target, path, role, member, extra string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_acl\" \"test\" {\n  path = %q\n  role = %q\n  %s\n%s}\n", path, role, member, extra))
}

func TestAccACL_lifecycle(t *testing.T) {
	skipLive(t)
	t.Parallel()
	tg := acctest.New(t)
	group := acctest.Name("tfacc")
	createGroup(t, tg, group)
	member := fmt.Sprintf("group = %q", group)
	id := "/vms|group|" + group + "|PVEAuditor"
	watch := acctest.NewPathWriteWatch(tg, "/access/acl")

	tg.Run(t, resource.TestCase{
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkACL(tg, false, "/vms", "group", group, "PVEAuditor"),
			checkACL(tg, false, "/pool", "group", group, "PVEAuditor"),
		),
		Steps: []resource.TestStep{
			{
				PreConfig:        watch.Mark,
				Config:           aclConfig(tg, "/vms", "PVEAuditor", member, ""),
				ConfigPlanChecks: expectPlanAction(aclAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aclAddr, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					statecheck.ExpectKnownValue(aclAddr, tfjsonpath.New("propagate"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(aclAddr, tfjsonpath.New("user"), knownvalue.Null()),
					watch.Exactly("PUT /access/acl"),
				},
				Check: checkACL(tg, true, "/vms", "group", group, "PVEAuditor"),
			},
			{
				// propagate changes in place: the same PUT sets it.
				PreConfig:        watch.Mark,
				Config:           aclConfig(tg, "/vms", "PVEAuditor", member, "  propagate = false\n"),
				ConfigPlanChecks: expectPlanAction(aclAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aclAddr, tfjsonpath.New("propagate"), knownvalue.Bool(false)),
					watch.Exactly("PUT /access/acl"),
				},
				Check: func(*terraform.State) error {
					e, found, err := findACL(tg, "/vms", "group", group, "PVEAuditor")
					if err != nil {
						return err
					}
					if !found || bool(e.Propagate) {
						return fmt.Errorf("PVE entry %+v found=%t, want it without propagation", e, found)
					}
					return nil
				},
			},
			{
				ResourceName:      aclAddr,
				ImportState:       true,
				ImportStateId:     id,
				ImportStateVerify: true,
			},
			{
				// Any spelling of the path imports; an import block plans
				// no change.
				Config:          aclConfig(tg, "/vms", "PVEAuditor", member, "  propagate = false\n"),
				ResourceName:    aclAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "vms/|group|" + group + "|PVEAuditor",
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(aclAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				// Another path is another entry: the old one is removed,
				// exactly it, and the new one added.
				PreConfig:        watch.Mark,
				Config:           aclConfig(tg, "/pool", "PVEAuditor", member, "  propagate = false\n"),
				ConfigPlanChecks: expectPlanAction(aclAddr, plancheck.ResourceActionDestroyBeforeCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.Exactly("PUT /access/acl", "PUT /access/acl"),
				},
				Check: resource.ComposeTestCheckFunc(
					checkACL(tg, false, "/vms", "group", group, "PVEAuditor"),
					checkACL(tg, true, "/pool", "group", group, "PVEAuditor"),
					checkLastWrite(tg, "PUT", "/access/acl", map[string]string{"path": "/pool", "roles": "PVEAuditor", "groups": group, "propagate": "0"}),
					// The removal named exactly the old entry.
					func(*terraform.State) error {
						for _, rec := range tg.Sim.Requests() {
							if rec.Method == "PUT" && rec.Path == "/access/acl" && len(rec.Params["delete"]) > 0 {
								want := fmt.Sprint(map[string][]string{"delete": {"1"}, "groups": {group}, "path": {"/vms"}, "roles": {"PVEAuditor"}})
								if got := fmt.Sprint(rec.Params); got != want {
									return fmt.Errorf("removal sent %s, want %s", got, want)
								}
								return nil
							}
						}
						return fmt.Errorf("no removal was sent")
					},
				),
			},
		},
	})
}

// Entries for a user and for a token; the user's, removed outside
// Terraform, is added again by the next apply.
func TestAccACL_userAndToken(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	user := acctest.Name("tfacc") + "@pve"
	createUser(t, tg, user)
	self := tg.Client.Principal()
	if !strings.Contains(self, "!") {
		t.Skip("the provider logs in as a user, not a token")
	}
	config := tg.Config(fmt.Sprintf(`
resource "pve_acl" "user" {
  path = "/storage"
  role = "PVEDatastoreUser"
  user = %q
}

resource "pve_acl" "token" {
  path  = "/nodes"
  role  = "PVEAuditor"
  token = %q
  # The provider's own token: removing the entry is opted in.
  allow_self_lockout = true
}
`, user, self))

	tg.Run(t, resource.TestCase{
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkACL(tg, false, "/storage", "user", user, "PVEDatastoreUser"),
			checkACL(tg, false, "/nodes", "token", self, "PVEAuditor"),
		),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					checkACL(tg, true, "/storage", "user", user, "PVEDatastoreUser"),
					checkACL(tg, true, "/nodes", "token", self, "PVEAuditor"),
				),
			},
			{
				ResourceName:      "pve_acl.user",
				ImportState:       true,
				ImportStateId:     "/storage|user|" + user + "|PVEDatastoreUser",
				ImportStateVerify: true,
			},
			{
				ResourceName:            "pve_acl.token",
				ImportState:             true,
				ImportStateId:           "/nodes|token|" + self + "|PVEAuditor",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"allow_self_lockout"},
			},
			{
				// Removed outside Terraform: the next apply adds the
				// entry again.
				PreConfig: func() {
					change := pveapi.ACLChange{Path: "/storage", Roles: []string{"PVEDatastoreUser"}, Users: []string{user}, Delete: true}
					if err := tg.Client.UpdateACL(context.Background(), change); err != nil {
						t.Fatalf("remove the entry outside Terraform: %v", err)
					}
				},
				Config:           config,
				ConfigPlanChecks: expectPlanAction("pve_acl.user", plancheck.ResourceActionCreate),
				Check:            checkACL(tg, true, "/storage", "user", user, "PVEDatastoreUser"),
			},
		},
	})
}

// Bad input is refused at plan time, naming the attribute.
func TestACLPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range []struct {
		attrs     map[string]any
		attribute string
		want      *regexp.Regexp
	}{
		{map[string]any{"path": "/vms/100/", "role": "PVEAuditor", "group": "ops"}, "path",
			wrapped(`Attribute path: write ACL path "/vms/100/" as "/vms/100", the form PVE stores.`)},
		{map[string]any{"path": "/vms/abc", "role": "PVEAuditor", "group": "ops"}, "path",
			wrapped(`Attribute path: ACL path "/vms/abc" is not a path PVE grants permissions on`)},
		{map[string]any{"path": "/", "role": "PVEAuditor", "group": "ops", "user": "alice@pve"}, "",
			regexp.MustCompile(`(?s)Invalid Attribute Combination.*Exactly one of these attributes must be configured:\s+\[user,group,token\]`)},
		{map[string]any{"path": "/", "role": "PVEAuditor"}, "",
			regexp.MustCompile(`(?s)Missing Attribute Configuration.*Exactly one of these attributes must be configured:\s+\[user,group,token\]`)},
		{map[string]any{"path": "/", "role": "PVEAuditor", "user": "root@pam"}, "user",
			wrapped(`Attribute user: root@pam holds every privilege on every path, and PVE does not store ACL entries for it.`)},
		{map[string]any{"path": "/", "role": "PVEAuditor", "token": "alice@pve"}, "token",
			wrapped(`Attribute token: token id "alice@pve" must be USER@REALM!TOKEN`)},
	} {
		acctest.WantError(t, p.PlanCreate(t, "pve_acl", c.attrs), c.attribute, c.want)
	}
}

// /sdn/fabrics exists from PVE 9.0 on.
func TestACLPathPerRelease(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "8.4")
	diags := p.PlanCreate(t, "pve_acl", map[string]any{"path": "/sdn/fabrics", "role": "PVEAuditor", "group": "ops"})
	acctest.WantError(t, diags, "path", wrapped(`Attribute path: ACL path "/sdn/fabrics" needs PVE 9.0 or later; this is PVE 8.4.`))
}

// PUT /access/acl accepts an entry that exists; the provider looks first
// and refuses to take it over.
func TestACLExistingEntryIsNotTakenOver(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	group := acctest.Name("tfacc")
	if err := p.Client.CreateGroup(ctx, group, ""); err != nil {
		t.Fatal(err)
	}
	if err := p.Client.UpdateACL(ctx, pveapi.ACLChange{Path: "/vms", Roles: []string{"PVEAuditor"}, Groups: []string{group}}); err != nil {
		t.Fatal(err)
	}

	diags := p.ApplyCreate(t, "pve_acl", map[string]any{"path": "/vms", "role": "PVEAuditor", "group": group, "propagate": false})
	acctest.WantError(t, diags, "", wrapped(fmt.Sprintf(`PVE already has the ACL entry role PVEAuditor for group %s on /vms, and Terraform does not take over an entry it did not create. Import it (terraform import or an import block with id "/vms|group|%s|PVEAuditor")`,
		group, group)))
	entries, err := p.Client.ACL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		if e.Path == "/vms" && e.Type == "group" && e.UGID == group && e.RoleID == "PVEAuditor" {
			found = true
			if !bool(e.Propagate) {
				t.Errorf("the entry was changed: %+v", e)
			}
		}
	}
	if !found {
		t.Error("the entry is gone")
	}
}

// Twenty entries in one apply all land: every write queues on user.cfg's
// lock in PVE, and each resource adds and later removes exactly its own.
// The first writes find the lock taken for longer than PVE waits, and are
// sent again (PVE changed nothing).
func TestAccACL_parallelCreates(t *testing.T) {
	skipLive(t)
	t.Parallel()
	tg := acctest.New(t)
	group := acctest.Name("tfacc")
	createGroup(t, tg, group)
	const n, lockTimeouts = 20, 8
	if err := tg.Sim.InjectFault(pvesim.Fault{
		Method: "PUT", Path: "/access/acl", Action: pvesim.FaultRespond, Count: lockTimeouts,
		Message: "ACL update failed: cfs-lock 'file-user_cfg' error: got lock request timeout",
	}); err != nil {
		t.Fatal(err)
	}
	config := tg.Config(fmt.Sprintf(`
resource "pve_acl" "many" {
  count = %d
  path  = "/vms/${1000 + count.index}"
  role  = "PVEVMUser"
  group = %q
}
`, n, group))
	watch := acctest.NewPathWriteWatch(tg, "/access/acl")
	countEntries := func(want int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			entries, err := tg.Client.ACL(context.Background())
			if err != nil {
				return err
			}
			got := 0
			for _, e := range entries {
				if e.Type == "group" && e.UGID == group {
					got++
				}
			}
			if got != want {
				return fmt.Errorf("PVE has %d entries for group %s, want %d", got, group, want)
			}
			return nil
		}
	}
	puts := make([]string, n+lockTimeouts)
	for i := range puts {
		puts[i] = "PUT /access/acl"
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: countEntries(0),
		Steps: []resource.TestStep{
			{
				PreConfig:         watch.Mark,
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{watch.Exactly(puts...)},
				Check:             countEntries(n),
			},
		},
	})
}

// An entry made with pve_acl changes what another identity may do: before
// it, the identity cannot read a node's status; after it, it can, and
// pve_permissions shows the privilege.
func TestAccACL_grantReachesAnotherIdentity(t *testing.T) {
	t.Parallel()
	const other = "probe@pve!check"
	tg, otherClient := acctest.NewWithOtherIdentity(t, "", other)
	ctx := context.Background()
	nodes, err := tg.Client.NodeNames(ctx)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("nodes: %v %v", nodes, err)
	}
	node := nodes[0]
	if _, err := otherClient.NodeStatus(ctx, node); err == nil {
		t.Fatal("the other identity reads the node's status before any grant")
	}
	config := tg.Config(fmt.Sprintf(`
resource "pve_acl" "test" {
  path = "/nodes"
  role = "PVEAuditor"
  user = "probe@pve"
}

data "pve_permissions" "other" {
  userid = %q
  path   = "/nodes/%s"

  depends_on = [pve_acl.test]
}

data "pve_permissions" "self" {
  path = "/nodes/%s"
}
`, other, node, node))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkACL(tg, false, "/nodes", "user", "probe@pve", "PVEAuditor"),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.pve_permissions.other", tfjsonpath.New("permissions").AtMapKey("/nodes/"+node),
						knownvalue.SetPartial([]knownvalue.Check{knownvalue.StringExact("Sys.Audit")})),
					statecheck.ExpectKnownValue("data.pve_permissions.other", tfjsonpath.New("propagating").AtMapKey("/nodes/"+node),
						knownvalue.SetPartial([]knownvalue.Check{knownvalue.StringExact("Sys.Audit")})),
					statecheck.ExpectKnownValue("data.pve_permissions.self", tfjsonpath.New("userid"), knownvalue.StringExact(tg.Client.Principal())),
					statecheck.ExpectKnownValue("data.pve_permissions.self", tfjsonpath.New("permissions").AtMapKey("/nodes/"+node),
						knownvalue.SetPartial([]knownvalue.Check{knownvalue.StringExact("Sys.Modify")})),
				},
				Check: func(*terraform.State) error {
					_, err := otherClient.NodeStatus(ctx, node)
					return err
				},
			},
		},
	})
	if _, err := otherClient.NodeStatus(ctx, node); err == nil {
		t.Error("the other identity still reads the node's status after destroy")
	}
}

// Removing or replacing an entry that gives the provider's own identity
// its rights is refused at plan time unless allow_self_lockout is set: its
// token, its user, or a group its user is in.
func TestAccACL_selfLockoutRefused(t *testing.T) {
	skipLive(t) // the provider's user joins a group through the simulator's model
	t.Parallel()
	tg := acctest.New(t)
	self := tg.Client.Principal()
	selfUser, _, _ := strings.Cut(self, "!")
	group := acctest.Name("tfacc")
	createGroup(t, tg, group, selfUser)
	config := func(path, extra string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_acl" "token" {
  path  = %q
  role  = "PVEAuditor"
  token = %q
%s}

resource "pve_acl" "group" {
  path  = %q
  role  = "PVEAuditor"
  group = %q
%s}
`, path, self, extra, path, group, extra))
	}
	refusal := func(kind string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)ACL Entry Grants The Provider Its Own Rights.*` + kind + `.*` + wrapped("allow_self_lockout = true").String())
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkACL(tg, false, "/storage", "token", self, "PVEAuditor"),
			checkACL(tg, false, "/storage", "group", group, "PVEAuditor"),
		),
		Steps: []resource.TestStep{
			{Config: config("/vms", "")},
			{
				Config:      tg.Config(""),
				ExpectError: refusal(wrapped(fmt.Sprintf("Deleting the ACL entry role PVEAuditor for token %s on /vms would take rights from the provider's own identity (%s): the entry is for the provider's own API token", self, self)).String()),
			},
			{
				Config:      tg.Config(""),
				ExpectError: refusal(wrapped(fmt.Sprintf("the entry is for group %s, which the provider's user %s is in", group, selfUser)).String()),
			},
			{
				// A new path replaces the entry: refused the same way.
				Config:      config("/storage", ""),
				ExpectError: refusal(wrapped("Replacing the ACL entry").String()),
			},
			{
				// Opted in: the replacement goes through.
				Config: config("/storage", "  allow_self_lockout = true\n"),
				Check: resource.ComposeTestCheckFunc(
					checkACL(tg, false, "/vms", "token", self, "PVEAuditor"),
					checkACL(tg, true, "/storage", "token", self, "PVEAuditor"),
					checkACL(tg, true, "/storage", "group", group, "PVEAuditor"),
				),
			},
		},
	})
}

// An import block with generated configuration plans no change, for each
// kind of member.
func TestAccACL_importBlockGeneratedConfig(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	group := acctest.Name("tfacc")
	createGroup(t, tg, group)
	user := acctest.Name("tfacc") + "@pve"
	createUser(t, tg, user)
	noPropagate := false
	ctx := context.Background()
	for _, change := range []pveapi.ACLChange{
		{Path: "/vms", Roles: []string{"PVEVMUser"}, Groups: []string{group}},
		{Path: "/storage", Roles: []string{"PVEDatastoreUser"}, Users: []string{user}, Propagate: &noPropagate},
	} {
		if err := tg.Client.UpdateACL(ctx, change); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = tg.Client.DeleteGroup(ctx, group) })

	for _, id := range []string{"/vms|group|" + group + "|PVEVMUser", "/storage|user|" + user + "|PVEDatastoreUser"} {
		tg.Run(t, resource.TestCase{
			Steps: []resource.TestStep{{
				Config:          tg.Config(""),
				ResourceName:    aclAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   id,
				GenerateConfig:  true,
			}},
		})
	}
}
