package access_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func TestAccRolesDataSource(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	roleid := roleName()
	if err := tg.Client.CreateRole(context.Background(), roleid, []string{"VM.Audit", "VM.PowerMgmt"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Client.DeleteRole(context.Background(), roleid) })
	roles := func(string) tfjsonpath.Path { return tfjsonpath.New("roles") }

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: tg.Config(`
data "pve_roles" "all" {}

data "pve_roles" "custom" {
  builtin = false
}

data "pve_roles" "power" {
  builtin   = true
  privilege = "VM.PowerMgmt"
}

data "pve_roles" "custom_power" {
  builtin   = false
  privilege = "VM.PowerMgmt"
}

data "pve_roles" "custom_modify" {
  builtin   = false
  privilege = "Sys.Modify"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.pve_roles.all", roles("all").AtMapKey(roleid), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"privileges": privSet("VM.Audit", "VM.PowerMgmt"),
						"builtin":    knownvalue.Bool(false),
					})),
					statecheck.ExpectKnownValue("data.pve_roles.all", roles("all").AtMapKey("NoAccess"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"privileges": knownvalue.SetSizeExact(0),
						"builtin":    knownvalue.Bool(true),
					})),
					statecheck.ExpectKnownValue("data.pve_roles.all", roles("all").AtMapKey("PVETemplateUser"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"privileges": privSet("VM.Audit", "VM.Clone"),
						"builtin":    knownvalue.Bool(true),
					})),
					statecheck.ExpectKnownValue("data.pve_roles.custom", roles("custom"), knownvalue.MapExact(map[string]knownvalue.Check{
						roleid: knownvalue.ObjectPartial(map[string]knownvalue.Check{"builtin": knownvalue.Bool(false)}),
					})),
					// The built-in roles holding VM.PowerMgmt, not the custom one.
					statecheck.ExpectKnownValue("data.pve_roles.power", roles("power"), knownvalue.MapPartial(map[string]knownvalue.Check{
						"PVEVMUser":     knownvalue.ObjectPartial(map[string]knownvalue.Check{"builtin": knownvalue.Bool(true)}),
						"PVEVMAdmin":    knownvalue.ObjectPartial(map[string]knownvalue.Check{"builtin": knownvalue.Bool(true)}),
						"Administrator": knownvalue.ObjectPartial(map[string]knownvalue.Check{"builtin": knownvalue.Bool(true)}),
					})),
					statecheck.ExpectKnownValue("data.pve_roles.custom_power", roles("custom_power"), knownvalue.MapExact(map[string]knownvalue.Check{
						roleid: knownvalue.ObjectPartial(map[string]knownvalue.Check{"builtin": knownvalue.Bool(false)}),
					})),
					statecheck.ExpectKnownValue("data.pve_roles.custom_modify", roles("custom_modify"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
			},
		},
	})
}
