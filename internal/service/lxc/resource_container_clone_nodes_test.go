package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// allowContainersOnSharedNFS lets the simulator's shared NFS storage hold
// container volumes, as an NFS storage configured with rootdir content
// does on PVE.
func allowContainersOnSharedNFS(t *testing.T, sim *pvesim.Sim) {
	t.Helper()
	err := sim.Update(func(c *pvesim.Cluster) error {
		st := c.Storage("shared-nfs")
		if st == nil {
			return fmt.Errorf("no shared-nfs storage")
		}
		st.Content = append(st.Content, "rootdir")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// containersBesideTemplate counts the containers PVE holds, the template
// aside, and where they are.
func containersBesideTemplate(tg *acctest.Target) (map[int]string, error) {
	resources, err := tg.Client.ClusterResources(context.Background(), "vm")
	if err != nil {
		return nil, err
	}
	found := map[int]string{}
	for _, r := range resources {
		if r.IsGuest() && r.VMID.Int() != ctTemplateVMID {
			found[r.VMID.Int()] = r.Node
		}
	}
	return found, nil
}

// W14: across nodes. From shared storage PVE clones the container straight
// to the target node; from local storage it is cloned on the source node
// and migrated. Either way it ends on node, and the next plan is empty.
func TestAccContainerCloneAcrossNodesW14(t *testing.T) {
	t.Parallel()
	for _, storage := range []string{"shared-nfs", "local-lvm"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			tg := acctest.New(t)
			if storage == "shared-nfs" {
				allowContainersOnSharedNFS(t, needsSim(t, tg))
			}
			makeContainerTemplateOn(t, tg, "pve1", storage)
			tg.Run(t, resource.TestCase{
				Steps: []resource.TestStep{{
					Config: ctConfig(tg, fmt.Sprintf(`
  node     = "pve2"
  hostname = "far-ct"
  clone    = { source_vmid = %d, source_node = "pve1" }
`, ctTemplateVMID)),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
						acctest.CheckState(func(s *tfjson.State) error {
							c, err := ctLiveConfig(tg, s)
							if err != nil {
								return err
							}
							if c["hostname"] != "far-ct" || !strings.HasPrefix(c["rootfs"], storage+":") {
								return fmt.Errorf("clone on pve2: hostname=%q rootfs=%q", c["hostname"], c["rootfs"])
							}
							if tg.Sim == nil {
								return nil
							}
							migrations := tg.Sim.Count("POST", "/nodes/{node}/lxc/{vmid}/migrate")
							if storage == "shared-nfs" && migrations != 0 {
								return fmt.Errorf("a clone from shared storage was migrated (%d requests), want a straight clone", migrations)
							}
							if storage == "local-lvm" && migrations != 1 {
								return fmt.Errorf("a clone from local storage needs one migration, saw %d", migrations)
							}
							return nil
						}),
					},
				}},
			})
		})
	}
}

// W13: the answer to the container clone request is lost after PVE ran
// it: the retry finds the clone on the new VMID and adopts it; exactly one
// container is made and the next plan is empty.
func TestAccContainerCloneLostAnswerW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	makeContainerTemplate(t, tg, "pve1")
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: "/nodes/{node}/lxc/{vmid}/clone", Action: pvesim.FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, fmt.Sprintf(`
  node     = "pve1"
  hostname = "lost-ct"
  clone    = { source_vmid = %d }
`, ctTemplateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(s *tfjson.State) error {
					guests, err := containersBesideTemplate(tg)
					if err != nil {
						return err
					}
					if len(guests) != 1 {
						return fmt.Errorf("want exactly one clone, PVE has %v", guests)
					}
					if n := sim.Count("POST", "/nodes/{node}/lxc/{vmid}/clone"); n != 1 {
						return fmt.Errorf("want one clone request (the lost one, then adoption), got %d", n)
					}
					c, err := ctLiveConfig(tg, s)
					if err != nil {
						return err
					}
					if c["description"] != "golden container\n" { // W20: PVE's read-back form
						return fmt.Errorf("description %q: want the template's, without the clone marker", c["description"])
					}
					return nil
				}),
			},
		}},
	})
}

// W13, W14: a cross-node container clone whose migration fails is left
// out of the state instead of tainted; the next apply finds it by its
// marker, migrates it and finishes it without a second clone.
func TestAccContainerCloneFailedMigrationResumesW13W14(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	makeContainerTemplate(t, tg, "pve1")
	const migrate = "/nodes/{node}/lxc/{vmid}/migrate"
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: migrate, Action: pvesim.FaultRespond,
		Status: 500, Message: "migration aborted: target node unreachable", Count: 1}); err != nil {
		t.Fatal(err)
	}
	config := ctConfig(tg, fmt.Sprintf(`
  node     = "pve2"
  hostname = "far-ct-2"
  clone    = { source_vmid = %d, source_node = "pve1" }
`, ctTemplateVMID))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config, ExpectError: errorLike("migration aborted")},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(s *tfjson.State) error {
						return oneFinishedContainerOn(tg, s, "pve2", map[string]int{
							"/nodes/{node}/lxc/{vmid}/clone": 1, migrate: 2,
						})
					}),
				},
			},
		},
	})
}

// W11, W13: an apply killed after the migration, while it configured the
// clone, left it on the target node with its marker and nothing in state.
// The next apply takes it up: no clone, no migration.
func TestAccContainerCloneAdoptsHalfMadeOnTargetNodeW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeContainerTemplate(t, tg, "pve1")
	ctx := context.Background()
	const halfMade = 160
	upid, err := tg.Client.CloneGuest(ctx, "pve1", pveapi.GuestTypeLXC, ctTemplateVMID, url.Values{
		"newid":       {strconv.Itoa(halfMade)},
		"hostname":    {"crash-ct"},
		"full":        {"1"},
		"description": {guestops.WithCloneMarker("golden container", guestops.CloneMarker(guestops.Container, ctTemplateVMID))},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	if upid, err = tg.Client.MigrateLXC(ctx, "pve1", halfMade, "pve2", false, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	tg.Sim.ResetCounters()
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, fmt.Sprintf(`
  node     = "pve2"
  hostname = "crash-ct"
  clone    = { source_vmid = %d, source_node = "pve1" }
  cpu      = { cores = 3 }
`, ctTemplateVMID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(int64(halfMade))),
				acctest.CheckState(func(s *tfjson.State) error {
					return oneFinishedContainerOn(tg, s, "pve2", map[string]int{
						"/nodes/{node}/lxc/{vmid}/clone": 0, "/nodes/{node}/lxc/{vmid}/migrate": 0,
					})
				}),
			},
		}},
	})
}

// oneFinishedContainerOn checks that PVE holds exactly the state's
// container besides the template, on node, without the clone marker, and
// that the simulator saw the given number of requests per POST path.
func oneFinishedContainerOn(tg *acctest.Target, s *tfjson.State, node string, posts map[string]int) error {
	guests, err := containersBesideTemplate(tg)
	if err != nil {
		return err
	}
	c, err := ctLiveConfig(tg, s)
	if err != nil {
		return err
	}
	if len(guests) != 1 {
		return fmt.Errorf("want exactly one clone, PVE has %v", guests)
	}
	for _, at := range guests {
		if at != node {
			return fmt.Errorf("clone on %s, want %s", at, node)
		}
	}
	if c["description"] != "golden container\n" { // W20: PVE's read-back form
		return fmt.Errorf("description %q: want the template's, without the clone marker", c["description"])
	}
	for path, want := range posts {
		if n := tg.Sim.Count("POST", path); n != want {
			return fmt.Errorf("POST %s: want %d requests, saw %d", path, want, n)
		}
	}
	return nil
}
