package lxc_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// smallCT is a container with one volume mount point; extra adds lines.
func smallCT(extra, mounts string) string {
	if mounts == "" {
		mounts = `mp0 = { storage = "local-lvm", size = 2, path = "/data" }`
	}
	return fmt.Sprintf(`
  node        = "pve1"
  hostname    = "tfacc-small"
  os_template = %q
%s
  root_disk    = { storage = "local-lvm", size = 4 }
  mount_points = { %s }
  network      = { net0 = { name = "eth0", bridge = "vmbr0" } }
`, ctTemplate, extra, mounts)
}

func TestAccContainer_dataLossGuardAtPlanW22(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: ctConfig(tg, smallCT("", "")), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				// W22: neither the root disk nor a mount point shrinks.
				Config: ctConfig(tg, `
  node        = "pve1"
  hostname    = "tfacc-small"
  os_template = "`+ctTemplate+`"
  root_disk    = { storage = "local-lvm", size = 2 }
  mount_points = { mp0 = { storage = "local-lvm", size = 1, path = "/data" } }
  network      = { net0 = { name = "eth0", bridge = "vmbr0" } }
`),
				PlanOnly:    true,
				ExpectError: errorLike("Root Disk Cannot Shrink", "Root disk rootfs is 4 GiB in PVE; the configuration asks for 2 GiB"),
			},
			{
				Config:      ctConfig(tg, smallCT("", `mp0 = { storage = "local-lvm", size = "1G", path = "/data" }`)),
				PlanOnly:    true,
				ExpectError: errorLike("Mount Point Cannot Shrink", "Mount point mp0 is 2 GiB", "grow"),
			},
			{
				// The same volume cannot move to another slot (W21, W37).
				Config:      ctConfig(tg, smallCT("", `mp3 = { storage = "local-lvm", size = 2, path = "/data" }`)),
				PlanOnly:    true,
				ExpectError: errorLike("Mount Point Cannot Move Between Slots", "Keep the mount point in mp0"),
			},
			{
				// A volume slot does not turn into a bind mount.
				Config:      ctConfig(tg, smallCT("", `mp0 = { host_path = "/srv/share", path = "/data" }`)),
				PlanOnly:    true,
				ExpectError: errorLike("Mount Point Cannot Change Kind", "volume mount point", "bind mount"),
			},
			{
				// W34: unprivileged is fixed at create: a replacement.
				Config: ctConfig(tg, smallCT("  unprivileged = false", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// W35: another known template is only recorded: it
				// affects only a container created from now on.
				Config: ctConfig(tg, `
  node        = "pve1"
  hostname    = "tfacc-small"
  os_template = "local:vztmpl/other-template.tar.zst"
  root_disk    = { storage = "local-lvm", size = 4 }
  mount_points = { mp0 = { storage = "local-lvm", size = 2, path = "/data" } }
  network      = { net0 = { name = "eth0", bridge = "vmbr0" } }
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

func TestAccContainer_removedMountPointDetachesW24AndProtection(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	twoMounts := `mp0 = { storage = "local-lvm", size = 2, path = "/data" }
    mp1 = { storage = "local-lvm", size = 1, path = "/logs" }
    mp2 = { storage = "local-lvm", size = "512M", path = "/cache" }`
	var detached, purged string

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, smallCT("  reboot_after_update = true", twoMounts)),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					acctest.CheckState(func(*tfjson.State) error {
						detached, purged = ct.volumes["mp1"], ct.volumes["mp2"]
						return nil
					}),
				},
			},
			{
				// W24: without purge, mp1's volume stays as unusedN. A
				// running container drops a mount point only when it
				// restarts, which reboot_after_update does.
				Config: ctConfig(tg, smallCT("  reboot_after_update = true", `mp0 = { storage = "local-lvm", size = 2, path = "/data" }
    mp2 = { storage = "local-lvm", size = "512M", path = "/cache" }`)),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0", "mp2"),
					ct.hasUnused(&detached, true),
				},
			},
			{
				// With purge_removed_disks the removed volume is destroyed.
				Config:           ctConfig(tg, smallCT("  reboot_after_update = true\n  purge_removed_disks = true", `mp0 = { storage = "local-lvm", size = 2, path = "/data" }`)),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					ct.hasUnused(&purged, false),
					ct.volumeExists(&purged, false),
					ct.hasUnused(&detached, true),
				},
			},
			{
				Config: ctConfig(tg, smallCT("  started = false\n  purge_removed_disks = true\n  protection = true", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					ct.configHas(map[string]string{"protection": "1"}),
				},
			},
			{
				// A protected container is not destroyed.
				Config:      tg.Config(""),
				ExpectError: regexp.MustCompile(`(?s)Container Is Protected.*Set\s+protection\s+=\s+false\s+and\s+apply`),
			},
			{
				Config:            ctConfig(tg, smallCT("  started = false\n  purge_removed_disks = true\n  protection = false", "")),
				ConfigPlanChecks:  expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{ct.keeps("rootfs", "mp0")},
			},
		},
	})
}

// hasUnused asserts whether an unusedN key holds *volid, read when the
// check runs.
func (c *ctRef) hasUnused(volidAt *string, want bool) statecheck.StateCheck {
	return acctest.CheckState(func(s *tfjson.State) error {
		volid := *volidAt
		if err := c.Load(s); err != nil {
			return err
		}
		config, err := c.config()
		if err != nil {
			return err
		}
		found := false
		for key, value := range config {
			if wire.IsUnusedSlot(key) && value == volid {
				found = true
			}
		}
		if found != want {
			return fmt.Errorf("volume %s kept as unusedN: %v, want %v (config %v)", volid, found, want, config)
		}
		return nil
	})
}

// volumeExists asserts whether the volume *volidAt is on its storage.
func (c *ctRef) volumeExists(volidAt *string, want bool) statecheck.StateCheck {
	return acctest.CheckState(func(s *tfjson.State) error {
		volid := *volidAt
		if err := c.Load(s); err != nil {
			return err
		}
		storage, _, _ := cutVolid(volid)
		vols, err := c.tg.Client.StorageContent(context.Background(), c.Node, storage, "")
		if err != nil {
			return err
		}
		found := false
		for _, v := range vols {
			if v.VolID == volid {
				found = true
			}
		}
		if found != want {
			return fmt.Errorf("volume %s exists: %v, want %v", volid, found, want)
		}
		return nil
	})
}

func cutVolid(volid string) (storage, name string, ok bool) {
	for i := 0; i < len(volid); i++ {
		if volid[i] == ':' {
			return volid[:i], volid[i+1:], true
		}
	}
	return volid, "", false
}

func TestAccContainer_storageMoveKeepsDataW23(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	// A second storage for container volumes; a live node needs one named
	// the same.
	if tg.Sim != nil {
		if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
			c.Storages = append(c.Storages, &pvesim.Storage{ID: "local-zfs", Type: "zfspool", Content: []string{"images", "rootdir"}, Capacity: 100 << 30})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: ctConfig(tg, smallCT("", "")), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				// W23: the volume moves with its data; PVE moves a
				// container's volumes only while it is stopped, so it is
				// stopped and started again.
				Config:           ctConfig(tg, smallCT("", `mp0 = { storage = "local-zfs", size = 2, path = "/data" }`)),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs"),
					acctest.CheckState(func(s *tfjson.State) error {
						vols, err := ct.volumeIDs()
						if err != nil {
							return err
						}
						if storage, _, _ := cutVolid(vols["mp0"]); storage != "local-zfs" {
							return fmt.Errorf("mp0 is %s after the move", vols["mp0"])
						}
						return nil
					}),
					ct.mountOption("mp0", "mp", "/data"),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				},
			},
		},
	})
}
