package lxc_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// createOutside makes a running container the way an operator would,
// without Terraform, and returns its VMID. It is unprivileged unless params
// say otherwise, on every PVE release (PVE 8 would make it privileged).
func createOutside(t *testing.T, tg *acctest.Target, node string, params url.Values) int {
	t.Helper()
	if _, given := params["unprivileged"]; !given {
		params.Set("unprivileged", "1")
	}
	return createOutsideAsGiven(t, tg, node, params)
}

// createOutsideAsGiven is createOutside sending params as they are.
func createOutsideAsGiven(t *testing.T, tg *acctest.Target, node string, params url.Values) int {
	t.Helper()
	ctx := context.Background()
	vmid, err := tg.Client.AllocateVMID(ctx, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	upid, err := tg.Client.CreateGuest(ctx, node, pveapi.GuestTypeLXC, vmid, params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	upid, err = tg.Client.GuestStatusAction(ctx, node, pveapi.GuestTypeLXC, vmid, pveapi.LXCStart, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	return vmid
}

// importedBody declares the container createOutside makes in
// TestAccContainer_importThenEmptyPlanW35, without its template.
const importedBody = `
  node     = "pve1"
  hostname = "tfacc-imported"
  features = { nesting = true }
  root_disk = { storage = "local-lvm", size = 4 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 2, path = "/data" }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", ipv4 = { address = "dhcp" } }
  }
`

func TestAccContainer_importThenEmptyPlanW35(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	vmid := createOutside(t, tg, "pve1", url.Values{
		"ostemplate": {ctTemplate},
		"hostname":   {"tfacc-imported"},
		"features":   {"nesting=1"},
		"rootfs":     {"local-lvm:4"},
		"mp0":        {"local-lvm:2,mp=/data"},
		"net0":       {"name=eth0,bridge=vmbr0,ip=dhcp"},
	})
	id := strconv.Itoa(vmid)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				// Import by VMID: PVE does not report the template (W35),
				// so state has none.
				Config:             ctConfig(tg, importedBody),
				ResourceName:       ctAddr,
				ImportState:        true,
				ImportStateId:      id,
				ImportStatePersist: true,
			},
			{
				// The configuration that describes the container plans
				// nothing: memory, swap and unprivileged are PVE's values.
				Config: ctConfig(tg, importedBody),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("os_template"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(int64(vmid))),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("memory").AtMapKey("size"), knownvalue.Int64Exact(512)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("unprivileged"), knownvalue.Bool(true)),
				},
			},
			{
				// W35: setting the template afterwards records it; it does
				// not replace the container.
				Config:           ctConfig(tg, importedBody+"  os_template = \""+ctTemplate+"\"\n"),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("os_template"), knownvalue.StringExact(ctTemplate)),
				},
			},
			{
				// Import by NODE/VMID gives the same state, but for the
				// template PVE does not know.
				Config:                  ctConfig(tg, importedBody+"  os_template = \""+ctTemplate+"\"\n"),
				ResourceName:            ctAddr,
				ImportState:             true,
				ImportStateId:           "pve1/" + id,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"os_template"},
			},
		},
	})
}

func TestAccContainer_importErrors(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vmid := createOutside(t, tg, "pve1", url.Values{"ostemplate": {ctTemplate}, "rootfs": {"local-lvm:4"}})
	t.Cleanup(func() { destroyOutside(tg, "pve1", vmid) })
	body := `
  node = "pve1"
  root_disk = { storage = "local-lvm", size = 4 }
`
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: ctConfig(tg, body), ResourceName: ctAddr, ImportState: true, ImportStateId: "pve1/abc",
				ExpectError: errorLike("Invalid Import ID", `import pve_container by VMID`)},
			{Config: ctConfig(tg, body), ResourceName: ctAddr, ImportState: true, ImportStateId: "pve2/" + strconv.Itoa(vmid),
				ExpectError: errorLike("Container On Another Node", "is on node pve1, not pve2")},
			{Config: ctConfig(tg, body), ResourceName: ctAddr, ImportState: true, ImportStateId: "999999",
				ExpectError: errorLike("Container Not Found", "No guest with VMID 999999")},
		},
	})
}

// destroyOutside removes a container a test made without Terraform.
func destroyOutside(tg *acctest.Target, node string, vmid int) {
	ctx := context.Background()
	if upid, err := tg.Client.GuestStatusAction(ctx, node, pveapi.GuestTypeLXC, vmid, pveapi.LXCStop, nil); err == nil {
		_, _ = tg.Client.WaitTask(ctx, upid)
	}
	if upid, err := tg.Client.DeleteGuest(ctx, node, pveapi.GuestTypeLXC, vmid, true, true); err == nil {
		_, _ = tg.Client.WaitTask(ctx, upid)
	}
}
