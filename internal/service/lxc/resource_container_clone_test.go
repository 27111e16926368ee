package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// ctTemplateVMID is the container template the clone tests start from.
const ctTemplateVMID = 9100

// makeContainerTemplate creates a container template directly through the
// API, so the tests depend on no template resource.
func makeContainerTemplate(t *testing.T, tg *acctest.Target, node string) {
	t.Helper()
	makeContainerTemplateOn(t, tg, node, "local-lvm")
}

// makeContainerTemplateOn is makeContainerTemplate with both volumes on
// storage.
func makeContainerTemplateOn(t *testing.T, tg *acctest.Target, node, storage string) {
	t.Helper()
	ctx := context.Background()
	form := url.Values{
		"ostemplate":  {ctTemplate},
		"hostname":    {"tmpl-ct"},
		"description": {"golden container"},
		"cores":       {"2"},
		"memory":      {"1024"},
		"rootfs":      {storage + ":2"},
		"mp0":         {storage + ":1,mp=/srv"},
		"net0":        {"name=eth0,bridge=vmbr0,ip=dhcp"},
	}
	upid, err := tg.Client.CreateGuest(ctx, node, pveapi.GuestTypeLXC, ctTemplateVMID, form)
	if err != nil {
		t.Fatalf("create template container: %v", err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatalf("create template container: %v", err)
	}
	if err := tg.Client.TemplateLXC(ctx, node, ctTemplateVMID); err != nil {
		t.Fatalf("mark template: %v", err)
	}
}

// ctLiveConfig is the config PVE holds for the container in state.
func ctLiveConfig(tg *acctest.Target, state *tfjson.State) (map[string]string, error) {
	node, vmid, err := acctest.GuestFromState(state, ctAddr)
	if err != nil {
		return nil, err
	}
	return tg.Client.GuestConfig(context.Background(), node, pveapi.GuestTypeLXC, vmid)
}

// W14: a container clone takes its declared hostname and cores, inherits
// the rest (memory, root disk, the undeclared mount point) and keeps them
// through updates; the plan after each step is empty.
func TestAccContainerCloneW14(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	makeContainerTemplate(t, tg, "pve1")
	config := func(cores int) string {
		return ctConfig(tg, fmt.Sprintf(`
  node     = "pve2"
  hostname = "ct-clone"
  clone    = { source_vmid = %d, source_node = "pve1" }
  cpu      = { cores = %d }
`, ctTemplateVMID, cores))
	}
	inherited := func(wantCores string) statecheck.StateCheck {
		return acctest.CheckState(func(s *tfjson.State) error {
			c, err := ctLiveConfig(tg, s)
			if err != nil {
				return err
			}
			if c["hostname"] != "ct-clone" || c["cores"] != wantCores {
				return fmt.Errorf("declared values not written: hostname=%q cores=%q", c["hostname"], c["cores"])
			}
			if c["memory"] != "1024" || c["description"] != "golden container\n" { // W20: PVE's read-back form
				return fmt.Errorf("inherited values not kept: memory=%q description=%q", c["memory"], c["description"])
			}
			if !strings.Contains(c["mp0"], "mp=/srv") || c["rootfs"] == "" {
				return fmt.Errorf("inherited volumes not kept: rootfs=%q mp0=%q", c["rootfs"], c["mp0"])
			}
			return nil
		})
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(4),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("mount_points"), acctest.NullOrLacks("mp0")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("root_disk"), knownvalue.Null()),
					inherited("4"),
				},
			},
			{
				Config: config(3),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{inherited("3")},
			},
		},
	})
}
