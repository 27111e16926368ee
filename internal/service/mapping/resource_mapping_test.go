package mapping_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// lifecycle runs create, an in-place update, the import round trip, a
// change made by another mapping of the same file between plan and apply
// (the digest covers the file), and a mapping deleted outside Terraform.
func lifecycle(t *testing.T, tg *acctest.Target, kind, typ, first, second, other string, checks []statecheck.StateCheck) {
	t.Helper()
	addr := typ + ".test"
	cfg := func(body string) string {
		return tg.Config(fmt.Sprintf("resource %q \"test\" {\n  id = \"acc-map\"\n%s}\n", typ, body))
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if _, found, err := tg.Client.GetMapping(context.Background(), kind, "acc-map"); err != nil || found {
				return fmt.Errorf("mapping still there after destroy (err %w)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg(first),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
			},
			{
				// Another mapping of the kind changes the file's digest
				// between the plan and the update's read: no effect.
				PreConfig: func() {
					if err := tg.Client.CreateMapping(context.Background(), kind, "other", url.Values{"map": {other}}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(second),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: checks,
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     "acc-map",
				ImportStateVerify: true,
			},
			{
				// Back to the first form: options dropped are deleted.
				Config: cfg(first),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.Null()),
				},
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteMapping(context.Background(), kind, "acc-map"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(first),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

func TestAccPCIMapping_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	addr := "pve_pci_mapping.test"
	lifecycle(t, tg, "pci", "pve_pci_mapping",
		"  map = {\n    pve1 = { path = \"0000:01:00.0\", id = \"10de:2204\" }\n  }\n",
		"  description = \"GPUs\"\n  mdev = true\n  live_migration_capable = false\n"+
			"  map = {\n    pve1 = { path = \"0000:01:00\", id = \"10de:2204\", iommu_group = 12, description = \"slot 1\" }\n"+
			"    pve2 = { path = \"0000:41:00.0;0000:42:00.0\", id = \"10de:2204\", subsystem_id = \"1458:403b\" }\n  }\n",
		"node=pve3,path=0000:05:00.0,id=8086:1521",
		[]statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("mdev"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("live_migration_capable"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("map").AtMapKey("pve1").AtMapKey("iommu_group"), knownvalue.Int64Exact(12)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("map").AtMapKey("pve2").AtMapKey("subsystem_id"), knownvalue.StringExact("1458:403b")),
		})
}

func TestAccUSBMapping_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	addr := "pve_usb_mapping.test"
	lifecycle(t, tg, "usb", "pve_usb_mapping",
		"  map = {\n    pve1 = { id = \"0529:0001\" }\n  }\n",
		"  description = \"dongle\"\n  map = {\n    pve1 = { id = \"0529:0001\", path = \"1-2.3\" }\n"+
			"    pve2 = { id = \"0529:0001\", description = \"front port\" }\n  }\n",
		"node=pve1,id=046d:c52b",
		[]statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("map").AtMapKey("pve1").AtMapKey("path"), knownvalue.StringExact("1-2.3")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("map").AtMapKey("pve2").AtMapKey("path"), knownvalue.Null()),
		})
}

func TestAccDirMapping_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	addr := "pve_dir_mapping.test"
	lifecycle(t, tg, "dir", "pve_dir_mapping",
		"  map = {\n    pve1 = { path = \"/srv/data\" }\n  }\n",
		"  description = \"datasets\"\n  map = {\n    pve1 = { path = \"/srv/data\" }\n    pve2 = { path = \"/mnt/data\" }\n  }\n",
		"node=pve1,path=/srv/other",
		[]statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("map").AtMapKey("pve2").AtMapKey("path"), knownvalue.StringExact("/mnt/data")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("datasets")),
		})
}

// PVE 8.4 has the same mapping API as 9.x; an API token holding only
// Mapping.Modify manages mappings (pve-manager
// PVE/API2/Cluster/Mapping/Dir.pm: Mapping.Modify on /mapping/dir, and on
// /mapping/dir/<id> for updates; reads with any mapping privilege).
func TestAccDirMapping_pve84TokenWithMappingModify(t *testing.T) {
	t.Parallel()
	tg := acctest.NewRestricted(t, "8.4", []string{"Mapping.Modify"})
	lifecycle(t, tg, "dir", "pve_dir_mapping",
		"  map = {\n    pve1 = { path = \"/srv/data\" }\n  }\n",
		"  description = \"datasets\"\n  map = {\n    pve1 = { path = \"/srv/data\" }\n    pve2 = { path = \"/mnt/data\" }\n  }\n",
		"node=pve1,path=/srv/other", nil)
}
