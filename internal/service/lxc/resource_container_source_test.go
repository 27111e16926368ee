package lxc_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func expectCTUpdate() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
	}
}

// A clone source that changes or goes is only recorded: an update that
// sends nothing to PVE; the inherited volumes and settings stay, and the
// plan after each apply is empty.
func TestAccContainerCloneSourceOnlyRecorded(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	makeContainerTemplate(t, tg, "pve1")
	ct := newCTRef(tg)
	watch := acctest.NewWriteWatch(tg, func() string { return fmt.Sprintf("/nodes/%s/lxc/%d", ct.Node, ct.VMID) })
	config := func(clone string) string {
		return ctConfig(tg, fmt.Sprintf(`
  node     = "pve1"
  hostname = "ct-clone"
  cpu      = { cores = 3 }
%s`, clone))
	}
	inherited := ct.configHas(map[string]string{"memory": "1024", "description": "golden container\n"})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(fmt.Sprintf("  clone = { source_vmid = %d }", ctTemplateVMID)),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					inherited,
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(fmt.Sprintf("  clone = { source_vmid = %d, full = false }", ctTemplateVMID+1)),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					ct.keeps("rootfs", "mp0"),
					inherited,
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(""),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					ct.keeps("rootfs", "mp0"),
					inherited,
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("mount_points"), acctest.NullOrLacks("mp0")),
				},
			},
			{
				Config:           config("  memory = { size = 2048 }"),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					ct.configHas(map[string]string{"memory": "2048", "description": "golden container\n"}),
				},
			},
		},
	})
}

// A restored container whose archive changes or goes is only recorded
// the same way.
func TestAccContainerRestoreSourceOnlyRecorded(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	ct := newCTRef(tg)
	watch := acctest.NewWriteWatch(tg, func() string { return fmt.Sprintf("/nodes/%s/lxc/%d", ct.Node, ct.VMID) })
	config := func(restore string) string {
		return ctConfig(tg, fmt.Sprintf(`
  node     = "pve1"
  hostname = "ct-restored"
  cpu      = { cores = 2 }
%s`, restore))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(fmt.Sprintf("  restore = { archive = %q, storage = \"local-lvm\" }", ctArchive)),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					archiveKept(tg, "2"),
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(`  restore = { archive = "local:backup/vzdump-lxc-130-2026_12_01-00_00_00.tar.zst" }`),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					ct.keeps("rootfs", "mp0"),
					archiveKept(tg, "2"),
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(""),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					ct.keeps("rootfs", "mp0"),
					archiveKept(tg, "2"),
				},
			},
		},
	})
}

// os_template that changes or goes is only recorded: PVE unpacks a
// template only at create.
func TestAccContainerOSTemplateOnlyRecorded(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	ct := newCTRef(tg)
	watch := acctest.NewWriteWatch(tg, func() string { return fmt.Sprintf("/nodes/%s/lxc/%d", ct.Node, ct.VMID) })
	config := func(template string) string {
		return ctConfig(tg, fmt.Sprintf(`
  node         = "pve1"
  hostname     = "tfacc-small"
%s
  root_disk    = { storage = "local-lvm", size = 4 }
  mount_points = { mp0 = { storage = "local-lvm", size = 2, path = "/data" } }
`, template))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(fmt.Sprintf("  os_template = %q", ctTemplate)), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				PreConfig:        watch.Mark,
				Config:           config(`  os_template = "local:vztmpl/other-template.tar.zst"`),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					ct.keeps("rootfs", "mp0"),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("os_template"), knownvalue.StringExact("local:vztmpl/other-template.tar.zst")),
				},
			},
			{
				PreConfig:        watch.Mark,
				Config:           config(""),
				ConfigPlanChecks: expectCTUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					ct.keeps("rootfs", "mp0"),
				},
			},
		},
	})
}
