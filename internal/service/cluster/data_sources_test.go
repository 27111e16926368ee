package cluster_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func TestAccVersionDataSource(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_version" "current" {}`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.pve_version.current", tfjsonpath.New("id"), knownvalue.StringExact("version")),
				statecheck.ExpectKnownValue("data.pve_version.current", tfjsonpath.New("release"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+$`))),
				statecheck.ExpectKnownValue("data.pve_version.current", tfjsonpath.New("version"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+`))),
			},
		}},
	})
}

func TestAccNodesDataSource(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	checks := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.pve_nodes.all", tfjsonpath.New("id"), knownvalue.StringExact("nodes")),
	}
	if tg.Sim != nil {
		// The simulator's default cluster has three nodes, all online.
		three := knownvalue.ListExact([]knownvalue.Check{
			knownvalue.StringExact("pve1"), knownvalue.StringExact("pve2"), knownvalue.StringExact("pve3"),
		})
		checks = append(checks,
			statecheck.ExpectKnownValue("data.pve_nodes.all", tfjsonpath.New("names"), three),
			statecheck.ExpectKnownValue("data.pve_nodes.all", tfjsonpath.New("online"), three),
			statecheck.ExpectKnownValue("data.pve_nodes.all", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("online")),
		)
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:            tg.Config(`data "pve_nodes" "all" {}`),
			ConfigStateChecks: checks,
		}},
	})
}
