package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// strangerCT makes, outside Terraform, a container with one NIC at vmid:
// the guest PVE's nextid leads to once the id was freed.
func strangerCT(t *testing.T, tg *acctest.Target, node string, vmid int) {
	t.Helper()
	ctx := context.Background()
	upid, err := tg.Client.CreateGuest(ctx, node, pveapi.GuestTypeLXC, vmid, url.Values{
		"ostemplate": {ctTemplate}, "hostname": {"stranger"}, "rootfs": {"local-lvm:2"},
		"net0": {"name=eth0,bridge=vmbr0"},
	})

	if err == nil {
		_, err = tg.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatalf("create container %d outside Terraform: %v", vmid, err)
	}
	t.Cleanup(func() { destroyOutside(tg, node, vmid) })
}

// strangerCTIntact checks that the container at vmid is still the
// stranger as it was made.
func strangerCTIntact(tg *acctest.Target, node string, vmid int) error {
	config, err := tg.Client.GuestConfig(context.Background(), node, pveapi.GuestTypeLXC, vmid)
	if err != nil {
		return fmt.Errorf("the container at VMID %d: %w", vmid, err)
	}
	if config["hostname"] != "stranger" {
		return fmt.Errorf("the container at VMID %d was changed: hostname %q", vmid, config["hostname"])
	}
	return nil
}

// strangerCTUntouched is strangerCTIntact after a step; *vmid is read when
// the check runs.
func strangerCTUntouched(tg *acctest.Target, node string, vmid *int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error { return strangerCTIntact(tg, node, *vmid) })
}

// strangerCTUntouchedAfterDestroy is strangerCTIntact once the test's
// resources are destroyed.
func strangerCTUntouchedAfterDestroy(tg *acctest.Target, node string, vmid *int) resource.TestCheckFunc {
	return func(*terraform.State) error { return strangerCTIntact(tg, node, *vmid) }
}

// A container deleted outside Terraform whose VMID PVE then gave to
// another container: the refresh tells the stranger by its NICs' MAC
// addresses, and the plan creates a new container instead of updating it.
func TestAccContainer_strangerAtVMIDIsNotOurs(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	var taken int

	tg.Run(t, resource.TestCase{
		CheckDestroy: resource.ComposeTestCheckFunc(checkCTDestroyed(ct), strangerCTUntouchedAfterDestroy(tg, "pve1", &taken)),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, smallCT("", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					acctest.CheckState(func(*tfjson.State) error {
						taken = ct.VMID
						destroyOutside(tg, ct.Node, ct.VMID)
						strangerCT(t, tg, "pve1", taken)
						return nil
					}),
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: ctConfig(tg, smallCT("", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					strangerCTUntouched(tg, "pve1", &taken),
					acctest.CheckState(func(*tfjson.State) error {
						if ct.VMID == taken {
							return fmt.Errorf("the new container has the stranger's VMID %d", taken)
						}
						return nil
					}),
				},
			},
		},
	})
}
