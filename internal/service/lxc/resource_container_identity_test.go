package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
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

func strangerCTUntouched(tg *acctest.Target, node string, vmid *int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		config, err := tg.Client.GuestConfig(context.Background(), node, pveapi.GuestTypeLXC, *vmid)
		if err != nil {
			return fmt.Errorf("the container at VMID %d: %w", *vmid, err)
		}
		if config["hostname"] != "stranger" {
			return fmt.Errorf("the container at VMID %d was changed: hostname %q", *vmid, config["hostname"])
		}
		return nil
	}
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
		CheckDestroy: resource.ComposeTestCheckFunc(checkCTDestroyed(ct), strangerCTUntouched(tg, "pve1", &taken)),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, smallCT("", "")),
				Check: resource.ComposeTestCheckFunc(ct.record(), func(*terraform.State) error {
					taken = ct.vmid
					destroyOutside(tg, ct.node, ct.vmid)
					strangerCT(t, tg, "pve1", taken)
					return nil
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: ctConfig(tg, smallCT("", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionCreate)},
				},
				Check: resource.ComposeTestCheckFunc(ct.record(), strangerCTUntouched(tg, "pve1", &taken),
					func(*terraform.State) error {
						if ct.vmid == taken {
							return fmt.Errorf("the new container has the stranger's VMID %d", taken)
						}
						return nil
					}),
			},
		},
	})
}
