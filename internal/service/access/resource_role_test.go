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
)

const roleAddr = "pve_role.test"

func roleConfig(tg *acctest.Target, roleid string, privs ...string) string {
	return roleConfigWith(tg, roleid, "", privs...)
}

func roleConfigWith(tg *acctest.Target, roleid, extra string, privs ...string) string {
	quoted := make([]string, len(privs))
	for i, p := range privs {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	return tg.Config(fmt.Sprintf("resource \"pve_role\" \"test\" {\n  roleid     = %q\n  privileges = [%s]\n%s}\n",
		roleid, strings.Join(quoted, ", "), extra))
}

func privSet(privs ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(privs))
	for i, p := range privs {
		checks[i] = knownvalue.StringExact(p)
	}
	return knownvalue.SetExact(checks)
}

func checkRolePrivileges(tg *acctest.Target, roleid string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := tg.Client.GetRole(context.Background(), roleid)
		if err != nil {
			return err
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return fmt.Errorf("PVE has role %s with %v, want %v", roleid, got, want)
		}
		return nil
	}
}

func TestAccRole_lifecycle(t *testing.T) {
	skipLive(t)
	t.Parallel()
	tg := acctest.New(t)
	roleid := roleName()
	watch := acctest.NewPathWriteWatch(tg, "/access/roles")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRoleGone(tg, roleid),
		Steps: []resource.TestStep{
			{
				PreConfig:        watch.Mark,
				Config:           roleConfig(tg, roleid, "VM.PowerMgmt", "VM.Audit"),
				ConfigPlanChecks: expectPlanAction(roleAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(roleAddr, tfjsonpath.New("id"), knownvalue.StringExact(roleid)),
					statecheck.ExpectKnownValue(roleAddr, tfjsonpath.New("privileges"), privSet("VM.Audit", "VM.PowerMgmt")),
					watch.Exactly("POST /access/roles"),
				},
				Check: checkRolePrivileges(tg, roleid, "VM.Audit", "VM.PowerMgmt"),
			},
			{
				// A change replaces the privileges in place, in one PUT.
				PreConfig:        watch.Mark,
				Config:           roleConfig(tg, roleid, "VM.Audit", "Datastore.Audit"),
				ConfigPlanChecks: expectPlanAction(roleAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(roleAddr, tfjsonpath.New("privileges"), privSet("Datastore.Audit", "VM.Audit")),
					watch.Exactly("PUT /access/roles/" + roleid),
				},
				Check: resource.ComposeTestCheckFunc(
					checkRolePrivileges(tg, roleid, "Datastore.Audit", "VM.Audit"),
					// Without append: PVE replaces the privileges.
					checkLastWrite(tg, "PUT", "/access/roles/"+roleid, map[string]string{"privs": "Datastore.Audit,VM.Audit"}),
				),
			},
			{
				// No privileges at all: the role stays, empty.
				PreConfig:        watch.Mark,
				Config:           roleConfig(tg, roleid),
				ConfigPlanChecks: expectPlanAction(roleAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(roleAddr, tfjsonpath.New("privileges"), knownvalue.SetSizeExact(0)),
					watch.Exactly("PUT /access/roles/" + roleid),
				},
				Check: checkRolePrivileges(tg, roleid),
			},
			{
				// Opting in to self-lockout changes nothing in PVE.
				PreConfig:         watch.Mark,
				Config:            roleConfigWith(tg, roleid, "  allow_self_lockout = true\n"),
				ConfigPlanChecks:  expectPlanAction(roleAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{watch.None()},
			},
			{
				ResourceName:            roleAddr,
				ImportState:             true,
				ImportStateId:           roleid,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"allow_self_lockout"},
			},
			{
				// An import block plans no changes after adoption.
				Config:          roleConfig(tg, roleid),
				ResourceName:    roleAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   roleid,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(roleAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

// A role deleted outside Terraform is created again by the next apply; a
// new roleid replaces the role.
func TestAccRole_disappearsAndRenameReplaces(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	first, second := roleName(), roleName()

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRoleGone(tg, second),
		Steps: []resource.TestStep{
			{Config: roleConfig(tg, first, "VM.Audit")},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteRole(context.Background(), first); err != nil {
						t.Fatalf("delete role outside Terraform: %v", err)
					}
				},
				Config:           roleConfig(tg, first, "VM.Audit"),
				ConfigPlanChecks: expectPlanAction(roleAddr, plancheck.ResourceActionCreate),
				Check:            checkRolePrivileges(tg, first, "VM.Audit"),
			},
			{
				Config:           roleConfig(tg, second, "VM.Audit"),
				ConfigPlanChecks: expectPlanAction(roleAddr, plancheck.ResourceActionDestroyBeforeCreate),
				Check:            resource.ComposeTestCheckFunc(checkRoleGone(tg, first), checkRolePrivileges(tg, second, "VM.Audit")),
			},
		},
	})
}

// A role that exists is not taken over: the create fails and leaves it as
// it was.
func TestRoleExistingIsNotTakenOver(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	roleid := roleName()
	if err := p.Client.CreateRole(context.Background(), roleid, []string{"VM.Audit"}); err != nil {
		t.Fatal(err)
	}
	diags := p.ApplyCreate(t, "pve_role", map[string]any{"roleid": roleid, "privileges": []string{"VM.Audit", "VM.Console"}})
	acctest.WantError(t, diags, "", wrapped(fmt.Sprintf("Role %s already exists in PVE, and Terraform does not take over a role it did not create. Import it", roleid)))
	if got, err := p.Client.GetRole(context.Background(), roleid); err != nil || strings.Join(got, ",") != "VM.Audit" {
		t.Errorf("the failed create changed the role: %v %v", got, err)
	}
}

// Bad names and privileges are refused at plan time, naming the
// attribute.
func TestRolePlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range []struct {
		roleid, privilege string
		attribute         string
		want              *regexp.Regexp
	}{
		{"PVEVMUser", "VM.Audit", "roleid",
			wrapped(`Attribute roleid: role "PVEVMUser" is one of PVE's built-in roles, which cannot be created or changed; read a built-in role's privileges with the pve_roles data source`)},
		{"pveOps", "VM.Audit", "roleid", wrapped(`Attribute roleid: role name "pveOps" starts with "pve": PVE reserves names starting with PVE`)},
		{"ops team", "VM.Audit", "roleid", wrapped(`Attribute roleid: role name "ops team" must be letters, digits`)},
		{"ops", "VM.Audit,VM.Console", "privileges", wrapped(`Attribute privileges: "VM.Audit,VM.Console" is not a privilege name: one name per element`)},
		{"ops", "vm.audit", "privileges", wrapped(`Attribute privileges: privilege "vm.audit" does not exist on PVE`)},
	} {
		diags := p.PlanCreate(t, "pve_role", map[string]any{"roleid": c.roleid, "privileges": []string{c.privilege}})
		acctest.WantError(t, diags, c.attribute, c.want)
	}
}

func TestRoleImportBuiltinRefused(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	acctest.WantError(t, p.ImportDiagnostics(t, "pve_role", "PVEAuditor"), "",
		wrapped(`Import pve_role by its roleid: role "PVEAuditor" is one of PVE's built-in roles`))
}

// PVE 9.0 dropped VM.Monitor: the plan names the attribute, the privilege
// and what replaces it.
func TestRoleVMMonitorRefusedOnPVE9(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "9.1")
	diags := p.PlanCreate(t, "pve_role", map[string]any{"roleid": roleName(), "privileges": []string{"VM.Audit", "VM.Monitor"}})
	acctest.WantError(t, diags, "privileges", regexp.MustCompile(`(?s)Unknown Privilege.*`+wrapped(`Attribute privileges: privilege "VM.Monitor" does not exist on PVE 9.1 (PVE 9.0 dropped it): for the guest agent use VM.GuestAgent.Audit,`).String()+
		`.*`+wrapped(`for the QEMU monitor Sys.Audit`).String()))
}

// PVE 8.4 has no VM.GuestAgent.* privileges.
func TestRoleGuestAgentPrivilegeRefusedOnPVE84(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocolOnPVE(t, "8.4")
	diags := p.PlanCreate(t, "pve_role", map[string]any{"roleid": roleName(), "privileges": []string{"VM.GuestAgent.Audit"}})
	acctest.WantError(t, diags, "privileges",
		wrapped(`Attribute privileges: privilege "VM.GuestAgent.Audit" does not exist on PVE 8.4 (PVE 9.0 added it): on PVE 8 VM.Monitor grants guest agent access`))
}

// VM.Monitor is what PVE 8.4 takes.
func TestAccRole_vmMonitorOnPVE84(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	roleid := roleName()

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRoleGone(tg, roleid),
		Steps: []resource.TestStep{
			{
				Config: roleConfig(tg, roleid, "VM.Monitor", "VM.Audit"),
				Check:  checkRolePrivileges(tg, roleid, "VM.Audit", "VM.Monitor"),
			},
		},
	})
}

// Deleting a role deletes the ACL entries that use it; one of them gives
// the provider's own token its rights, so the plan is refused until
// allow_self_lockout is set.
func TestAccRole_selfLockoutRefused(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	roleid := roleName()
	self := tg.Client.Principal()
	ctx := context.Background()

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkRoleGone(tg, roleid),
		Steps: []resource.TestStep{
			{
				Config: roleConfig(tg, roleid, "VM.Audit"),
				Check: func(*terraform.State) error {
					// Granted outside Terraform, as an operator would.
					return tg.Client.UpdateACL(ctx, grantTo(self, "/vms", roleid))
				},
			},
			{
				Config: tg.Config(""),
				ExpectError: regexp.MustCompile(`(?s)Role Grants The Provider Its Own Rights.*` +
					wrapped(fmt.Sprintf("Deleting role %s would delete the ACL entries that use it, and these give the provider's own identity (%s) its rights:", roleid, self)).String() +
					`.*` + wrapped(fmt.Sprintf("role %s for", roleid)).String() + `.*` + wrapped("allow_self_lockout = true").String()),
			},
			{
				// Renaming is deleting the old role too.
				Config:      roleConfig(tg, roleName(), "VM.Audit"),
				ExpectError: regexp.MustCompile(`Role Grants The Provider Its Own Rights`),
			},
			{
				Config:           roleConfigWith(tg, roleid, "  allow_self_lockout = true\n", "VM.Audit"),
				ConfigPlanChecks: expectPlanAction(roleAddr, plancheck.ResourceActionUpdate),
			},
			{
				// Opted in: the role goes, and PVE takes its entries with it.
				Config: tg.Config(""),
				Check:  checkRoleEntriesGone(tg, roleid),
			},
		},
	})
}

// grantTo is the PUT that grants role on path to a user or token id.
func grantTo(id, path, role string) pveapi.ACLChange {
	change := pveapi.ACLChange{Path: path, Roles: []string{role}}
	if strings.Contains(id, "!") {
		change.Tokens = []string{id}
	} else {
		change.Users = []string{id}
	}
	return change
}

func checkRoleEntriesGone(tg *acctest.Target, roleid string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		entries, err := tg.Client.ACL(context.Background())
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.RoleID == roleid {
				return fmt.Errorf("ACL entry %+v outlived its role", e)
			}
		}
		return nil
	}
}

// An import block with generated configuration plans no change.
func TestAccRole_importBlockGeneratedConfig(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	roleid := roleName()
	if err := tg.Client.CreateRole(context.Background(), roleid, []string{"Datastore.Audit", "VM.Audit"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Client.DeleteRole(context.Background(), roleid) })

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:          tg.Config(""),
			ResourceName:    roleAddr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			ImportStateId:   roleid,
			GenerateConfig:  true,
		}},
	})
}
