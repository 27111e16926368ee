package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// An action attached to a guest's lifecycle: a snapshot before each
// update of the VM. Creating the VM takes none; changing its description
// takes one before the update, and the next plan is empty.
func TestAccActions_snapshotBeforeUpdate(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc-action")
	config := func(description string) string {
		return tg.Config(fmt.Sprintf(`
# The action cannot refer to the resource that triggers it (a cycle):
# both take the VMID from one local.
locals {
  vmid = 150
}

action "pve_guest_snapshot" "before_update" {
  config {
    vmid        = local.vmid
    operation   = "create"
    name        = "before_update"
    description = "taken by Terraform before an update"
  }
}

resource "pve_vm" "test" {
  node        = "pve1"
  vmid        = local.vmid
  name        = %q
  description = %q
  started     = false
  disks       = { scsi0 = { storage = "local-lvm", size = 1 } }

  lifecycle {
    action_trigger {
      events  = [before_update]
      actions = [action.pve_guest_snapshot.before_update]
    }
  }
}
`, name, description))
	}
	snapshotTaken := func(want bool) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			rs := s.RootModule().Resources["pve_vm.test"]
			var vmid int
			if _, err := fmt.Sscan(rs.Primary.Attributes["vmid"], &vmid); err != nil {
				return err
			}
			_, found, err := tg.Client.FindSnapshot(context.Background(), "pve1", pveapi.GuestTypeQemu, vmid, "before_update")
			if err != nil {
				return err
			}
			if found != want {
				return fmt.Errorf("snapshot before_update of VM %d: found = %v, want %v", vmid, found, want)
			}
			return nil
		}
	}
	tg.Run(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			acctest.NeedsTerraform("1.14.0", "An action triggered by a resource's lifecycle"),
		},
		Steps: []resource.TestStep{
			{Config: config("first"), Check: snapshotTaken(false)},
			{
				Config: config("second"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("pve_vm.test", plancheck.ResourceActionUpdate)},
				},
				Check: snapshotTaken(true),
			},
		},
	})
}

// `terraform apply -invoke` runs the snapshot action on demand: it takes
// a snapshot of a guest Terraform does not manage, and the plan stays
// empty.
func TestAccActions_invokeSnapshot(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	guest(t, tg, pveapi.GuestTypeQemu, 151, true)
	cli := tg.CLI(t, "1.14.0", "terraform apply -invoke", tg.Config(`
action "pve_guest_snapshot" "x" {
  config {
    vmid        = 151
    operation   = "create"
    name        = "on_demand"
    description = "taken with terraform apply -invoke"
    vmstate     = true
  }
}
`))
	out := cli.Run(t, "apply", "-invoke", "action.pve_guest_snapshot.x", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(string(out), "Took snapshot on_demand of VM 151 on node pve1.") {
		t.Errorf("apply -invoke shows no progress of the action:\n%s", out)
	}
	snap, found, err := tg.Client.FindSnapshot(context.Background(), "pve1", pveapi.GuestTypeQemu, 151, "on_demand")
	if err != nil || !found {
		t.Fatalf("snapshot after apply -invoke: found=%v err=%v\n%s", found, err, out)
	}
	if !snap.VMState || snap.Description != "taken with terraform apply -invoke" {
		t.Errorf("snapshot after apply -invoke: %+v", snap)
	}
	// Nothing managed changed: the plan is empty.
	cli.Run(t, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}

// A power action leaves what Terraform manages alone: shutting down with
// `terraform apply -invoke` a VM whose started is true says that the next
// plan starts it again, and that plan does.
func TestAccActions_invokePowerOnManagedGuest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	cli := tg.CLI(t, "1.14.0", "terraform apply -invoke", tg.Config(fmt.Sprintf(`
resource "pve_vm" "test" {
  node    = "pve1"
  vmid    = 152
  name    = %q
  started = true
  disks   = { scsi0 = { storage = "local-lvm", size = 1 } }
}

action "pve_guest_power" "stop" {
  config {
    vmid      = 152
    operation = "shutdown"
    timeout   = 5
  }
}
`, acctest.Name("tfacc-power"))))
	cli.Run(t, "apply", "-auto-approve", "-input=false", "-no-color")
	out := cli.Run(t, "apply", "-invoke", "action.pve_guest_power.stop", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(string(out), "started = true (the default) plans to start it again") {
		t.Errorf("apply -invoke does not say what the next plan does:\n%s", out)
	}
	status, err := tg.Client.GuestStatus(context.Background(), "pve1", pveapi.GuestTypeQemu, 152)
	if err != nil || status.PowerState() != pveapi.PowerStopped {
		t.Fatalf("VM after the shutdown action: %v %v", status, err)
	}
	// The next plan starts it again, as the action said.
	plan, err := cli.Try("plan", "-detailed-exitcode", "-input=false", "-no-color")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("the plan after the shutdown action: %v; want changes (exit status 2)", err)
	}
	if !strings.Contains(string(plan), "started") {
		t.Errorf("the plan after the shutdown action does not change started:\n%s", plan)
	}
	cli.Run(t, "apply", "-auto-approve", "-input=false", "-no-color")
	cli.Run(t, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	cli.Run(t, "destroy", "-auto-approve", "-input=false", "-no-color")
}
