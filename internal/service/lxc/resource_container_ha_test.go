package lxc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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

// haCT is a running container on node under HA, its pve_ha_resource
// depending on it.
func haCT(tg *acctest.Target, node string) string {
	return ctConfig(tg, fmt.Sprintf(`
  node        = %q
  hostname    = "tfacc-ha"
  os_template = %q
  root_disk   = { storage = "local-lvm", size = 4 }
  network     = { net0 = { name = "eth0", bridge = "vmbr0" } }
`, node, ctTemplate)) + `
resource "pve_ha_resource" "test" {
  vmid  = pve_container.test.vmid
  type  = "ct"
  state = "started"
}
`
}

// A node change of a container under HA is requested through HA (which
// relocates it) and waited for; the destroy of the container and its
// pve_ha_resource in one apply needs no manual step.
func TestAccContainer_haNodeChangeMovesThroughHAAndDestroysWithItsHAResource(t *testing.T) {
	t.Parallel()
	testContainerHANodeChange(t, acctest.New(t))
}

// On PVE 8.4 HA's migrate request answers nothing (PVE 9 names the
// resources moving along or blocking).
func TestAccContainer_haNodeChangeMovesThroughHA_pve84(t *testing.T) {
	t.Parallel()
	testContainerHANodeChange(t, acctest.NewOnPVE(t, "8.4"))
}

func testContainerHANodeChange(t *testing.T, tg *acctest.Target) {
	t.Helper()
	sim := needsSim(t, tg)
	ct := newCTRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(state *terraform.State) error {
			if err := checkCTDestroyed(ct)(state); err != nil {
				return err
			}
			var resources []map[string]any
			if err := tg.Client.Get(context.Background(), "/cluster/ha/resources", nil, &resources); err != nil {
				return err
			}
			if len(resources) != 0 {
				return fmt.Errorf("HA resources left after the destroy: %v", resources)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:            haCT(tg, "pve1"),
				ConfigStateChecks: []statecheck.StateCheck{ct.record()},
			},
			{
				PreConfig: func() { sim.ResetCounters() },
				Config:    haCT(tg, "pve2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					ct.Check(func() error {
						viaHA, direct := 0, 0
						for _, r := range sim.Requests() {
							switch {
							case r.Method != http.MethodPost:
							case r.Path == fmt.Sprintf("/cluster/ha/resources/ct:%d/migrate", ct.VMID):
								viaHA++
							case strings.HasSuffix(r.Path, fmt.Sprintf("/lxc/%d/migrate", ct.VMID)):
								direct++
							}
						}
						if viaHA != 1 || direct != 0 {
							return fmt.Errorf("%d HA migrate requests and %d direct migrations, want 1 and 0", viaHA, direct)
						}
						guest, found, err := tg.Client.FindGuest(context.Background(), ct.VMID)
						if err != nil || !found || guest.Node != "pve2" || guest.HAState != "started" {
							return fmt.Errorf("cluster lists container %d as %+v (found=%v, err=%w)", ct.VMID, guest, found, err)
						}
						return nil
					}),
				},
			},
		},
	})
}

// Without Sys.Console on / (HA's migrate request refused), the node change
// goes through the container's own migrate endpoint, which PVE turns into
// the same HA request (an hamigrate task), and is waited for as well.
func TestAccContainer_haNodeChangeWithoutSysConsole(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ct := newCTRef(tg)
	if err := sim.InjectFault(pvesim.Fault{Method: http.MethodPost, Path: "/cluster/ha/resources/{sid}/migrate", Action: pvesim.FaultRespond,
		Status: http.StatusForbidden, Message: "Permission check failed (/, Sys.Console)"}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: haCT(tg, "pve1"), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				PreConfig: func() { sim.ResetCounters() },
				Config:    haCT(tg, "pve2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					ct.Check(func() error {
						tasks := 0
						for _, r := range sim.Requests() {
							if r.Method == http.MethodPost && r.Path == fmt.Sprintf("/nodes/pve1/lxc/%d/migrate", ct.VMID) && r.Status == http.StatusOK {
								tasks++
							}
						}
						if tasks != 1 {
							return fmt.Errorf("%d migrations through the container's endpoint, want 1", tasks)
						}
						guest, found, err := tg.Client.FindGuest(context.Background(), ct.VMID)
						if err != nil || !found || guest.Node != "pve2" || guest.HAState != "started" {
							return fmt.Errorf("cluster lists container %d as %+v (found=%v, err=%w)", ct.VMID, guest, found, err)
						}
						return nil
					}),
				},
			},
		},
	})
}

// A node change HA refuses because another resource keeps the container
// off the target (PVE 9 negative resource affinity) fails at once, naming
// that resource, and changes nothing.
func TestAccContainer_haNodeChangeBlockedByResourceAffinity(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ct := newCTRef(tg)
	ctx := context.Background()
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: haCT(tg, "pve1"), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				// A VM under HA on pve2 that the container must keep apart from.
				PreConfig: func() {
					upid, err := tg.Client.CreateGuest(ctx, "pve2", pveapi.GuestTypeQemu, 900, url.Values{"name": {"apart"}})
					if err == nil {
						_, err = tg.Client.WaitTask(ctx, upid)
					}
					if err == nil {
						err = tg.Client.Post(ctx, "/cluster/ha/resources", url.Values{"sid": {"vm:900"}}, nil)
					}
					if err == nil {
						err = sim.Update(func(c *pvesim.Cluster) error {
							c.HA.Rules["apart"] = &pvesim.HARule{ID: "apart", Type: "resource-affinity", Props: map[string]string{
								"resources": fmt.Sprintf("ct:%d,vm:900", ct.VMID), "affinity": "negative",
							}}
							return nil
						})
					}
					if err != nil {
						t.Fatal(err)
					}
					for range 4 {
						sim.HAStep()
					}
				},
				Config:      haCT(tg, "pve2"),
				ExpectError: errorLike("HA will not move container", "to pve2: vm:900 (resource-affinity) keep it from that node"),
			},
			{
				// HA's manager drops the request too: the container stays.
				PreConfig: func() {
					for range 4 {
						sim.HAStep()
					}
					sim.View(func(c *pvesim.Cluster) {
						if g := c.Guests[ct.VMID]; g == nil || g.Node != "pve1" {
							t.Fatalf("container %d should have stayed on pve1: %+v", ct.VMID, g)
						}
					})
				},
				Config: haCT(tg, "pve1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve1")),
				},
			},
		},
	})
}
