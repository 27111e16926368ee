package pool_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func poolConfig(tg *acctest.Target, poolID, comment string) string {
	commentLine := ""
	if comment != "" {
		commentLine = fmt.Sprintf("  comment = %q\n", comment)
	}
	return tg.Config(fmt.Sprintf("resource \"pve_pool\" \"test\" {\n  poolid = %q\n%s}\n", poolID, commentLine))
}

func checkPoolDestroyed(tg *acctest.Target, poolID string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := tg.Client.GetPool(context.Background(), poolID)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("pool %s still exists after destroy", poolID)
		}
		return nil
	}
}

func TestAccPool_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	poolID := acctest.Name("tfacc")
	addr := "pve_pool.test"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkPoolDestroyed(tg, poolID),
		Steps: []resource.TestStep{
			{
				Config: poolConfig(tg, poolID, "web servers"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(poolID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("comment"), knownvalue.StringExact("web servers")),
				},
			},
			{
				Config: poolConfig(tg, poolID, "web and api servers"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("comment"), knownvalue.StringExact("web and api servers")),
				},
			},
			{
				// Dropping the comment clears it in PVE, in place.
				Config: poolConfig(tg, poolID, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("comment"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					p, found, err := tg.Client.GetPool(context.Background(), poolID)
					if err != nil {
						return fmt.Errorf("read pool: %w", err)
					}
					if !found {
						return fmt.Errorf("pool %s not found", poolID)
					}
					if p.Comment != "" {
						return fmt.Errorf("PVE still has comment %q", p.Comment)
					}
					return nil
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     poolID,
				ImportStateVerify: true,
			},
			{
				// An import block plans no changes after adoption.
				Config:          poolConfig(tg, poolID, ""),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   poolID,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

func TestAccPool_importWithComment(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	poolID := acctest.Name("tfacc")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkPoolDestroyed(tg, poolID),
		Steps: []resource.TestStep{
			{Config: poolConfig(tg, poolID, "imported")},
			{
				ResourceName:      "pve_pool.test",
				ImportState:       true,
				ImportStateId:     poolID,
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccPool_renameInPlace(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	first, second := acctest.Name("tfacc"), acctest.Name("tfacc")
	addr := "pve_pool.test"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkPoolDestroyed(tg, second),
		Steps: []resource.TestStep{
			{Config: poolConfig(tg, first, "x")},
			{
				// PVE cannot rename a pool: the resource makes the new one
				// and deletes the old one, in place.
				Config: poolConfig(tg, second, "x"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				Check: checkPoolDestroyed(tg, first),
			},
		},
	})
}

func TestAccPool_disappears(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	poolID := acctest.Name("tfacc")
	addr := "pve_pool.test"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkPoolDestroyed(tg, poolID),
		Steps: []resource.TestStep{
			{Config: poolConfig(tg, poolID, "gone soon")},
			{
				// Deleted outside Terraform: the next plan creates it again.
				PreConfig: func() {
					if err := tg.Client.DeletePool(context.Background(), poolID); err != nil {
						t.Fatalf("delete pool outside Terraform: %v", err)
					}
				},
				Config: poolConfig(tg, poolID, "gone soon"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

func TestAccPool_badInput(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      poolConfig(tg, "web servers", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Attribute poolid must be letters,\s+digits`),
			},
			{
				Config:      poolConfig(tg, "a/b/c/d", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute poolid must be letters.*at most three\s+levels.*got: a/b/c/d`),
			},
			{
				Config:      tg.Config("resource \"pve_pool\" \"test\" {\n  poolid  = \"ok\"\n  comment = \"\"\n}\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Attribute comment string length must be at least\s+1`),
			},
		},
	})
}

func TestAccPool_nested(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	parent := acctest.Name("tfacc")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkPoolDestroyed(tg, parent),
		Steps: []resource.TestStep{
			{
				Config: tg.Config(fmt.Sprintf(`
resource "pve_pool" "parent" {
  poolid = %q
}

resource "pve_pool" "child" {
  poolid  = "${pve_pool.parent.poolid}/web"
  comment = "nested"
}
`, parent)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("pve_pool.child", tfjsonpath.New("id"), knownvalue.StringExact(parent+"/web")),
				},
			},
		},
	})
}
