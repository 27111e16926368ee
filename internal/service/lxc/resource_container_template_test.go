package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const ctTemplateAddr = "pve_container_template.test"

// ctTemplateConfig is the test container template with cores cores and a
// root disk of rootSize GiB; extra is appended as is.
func ctTemplateConfig(tg *acctest.Target, cores, rootSize int, extra string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_container_template" "test" {
  node        = "pve1"
  hostname    = "tfacc-ct-tpl"
  os_template = %q
  cpu         = { cores = %d }
  root_disk   = { storage = "local-lvm", size = %d }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 1, path = "/data" }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", ipv4 = { address = "dhcp" } }
  }
}
`, ctTemplate, cores, rootSize) + extra)
}

// ctTemplateRef follows the container template a test created.
type ctTemplateRef struct {
	*acctest.Guest
	tg *acctest.Target
}

func (c *ctTemplateRef) config() (pveapi.GuestConfig, error) {
	return c.tg.Client.GuestConfig(context.Background(), c.Node, pveapi.GuestTypeLXC, c.VMID)
}

// isBaseTemplate checks, W9 and W17, that PVE holds the container as a
// template whose rootfs and volume mount point were renamed to base
// volumes, and that state follows the new volume ids.
func (c *ctTemplateRef) isBaseTemplate() statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		if err := c.Load(state); err != nil {
			return err
		}
		config, err := c.config()
		if err != nil {
			return err
		}
		if config["template"] != "1" {
			return fmt.Errorf("CT %d is not a template", c.VMID)
		}
		root := fmt.Sprintf("local-lvm:base-%d-disk-0", c.VMID)
		if !strings.HasPrefix(config["rootfs"], root+",") {
			return fmt.Errorf("rootfs = %q, want %s", config["rootfs"], root)
		}
		got, err := acctest.StringAt(state, c.Addr, tfjsonpath.New("root_disk").AtMapKey("volume"))
		if err != nil {
			return err
		}
		if got != root {
			return fmt.Errorf("state root_disk.volume = %q, want %s", got, root)
		}
		mp0 := fmt.Sprintf("local-lvm:base-%d-disk-1", c.VMID)
		got, err = acctest.StringAt(state, c.Addr, tfjsonpath.New("mount_points").AtMapKey("mp0").AtMapKey("volume"))
		if err != nil {
			return err
		}
		if got != mp0 || !strings.HasPrefix(config["mp0"], mp0+",") {
			return fmt.Errorf("mp0: state %q, PVE %q, want %s", got, config["mp0"], mp0)
		}
		return nil
	})
}

func checkCTTemplateDestroyed(c *ctTemplateRef) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if c.VMID == 0 {
			return nil
		}
		_, err := c.config()
		if pveapi.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("CT %d still exists after destroy", c.VMID)
	}
}

// W9, W17: a container template is created stopped and marked a template
// (synchronously, no UPID); its volumes are renamed base-ID-disk-N and
// state follows. Options change and the base volume grows in place, the
// import round trip plans empty, and a container that is not a template
// cannot be imported as one.
func TestAccContainerTemplate_basicW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tpl := &ctTemplateRef{Guest: acctest.NewGuest(ctTemplateAddr), tg: tg}
	plainCT := fmt.Sprintf(`
resource "pve_container" "plain" {
  node        = "pve1"
  hostname    = "tfacc-plain"
  os_template = %q
  started     = false
  root_disk   = { storage = "local-lvm", size = 1 }
}
`, ctTemplate)
	// Import targets, never applied.
	others := `
resource "pve_container_template" "other" {
  node      = "pve1"
  root_disk = { storage = "local-lvm", size = 1 }
}
resource "pve_container" "other" {
  node      = "pve1"
  root_disk = { storage = "local-lvm", size = 1 }
}
`
	var plainID int

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTTemplateDestroyed(tpl),
		Steps: []resource.TestStep{
			{
				Config:            ctTemplateConfig(tg, 1, 2, ""),
				ConfigStateChecks: []statecheck.StateCheck{tpl.isBaseTemplate()},
			},
			{
				Config: ctTemplateConfig(tg, 2, 2, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctTemplateAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					tpl.isBaseTemplate(),
					acctest.CheckState(func(*tfjson.State) error {
						config, err := tpl.config()
						if err != nil {
							return err
						}
						if config["cores"] != "2" {
							return fmt.Errorf("cores = %q", config["cores"])
						}
						return nil
					}),
				},
			},
			{
				// A template's root disk grows in place: pve-container
				// API2/LXC.pm resize_vm checks no template flag and
				// pve-storage's volume_resize grows the base volume.
				Config: ctTemplateConfig(tg, 2, 3, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctTemplateAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					tpl.isBaseTemplate(),
					acctest.CheckState(func(*tfjson.State) error {
						config, err := tpl.config()
						if err != nil {
							return err
						}
						if !strings.HasSuffix(config["rootfs"], ",size=3G") {
							return fmt.Errorf("rootfs = %q, want the base volume grown to 3G", config["rootfs"])
						}
						return nil
					}),
				},
			},
			{
				ResourceName:            ctTemplateAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"os_template"}, // W35: PVE does not tell the archive
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return fmt.Sprintf("%s/%d", tpl.Node, tpl.VMID), nil },
			},
			{
				Config: ctTemplateConfig(tg, 2, 3, plainCT),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(state *tfjson.State) error {
						var err error
						_, plainID, err = acctest.GuestFromState(state, "pve_container.plain")
						return err
					}),
				},
			},
			{
				Config:            ctTemplateConfig(tg, 2, 3, plainCT+others),
				ResourceName:      "pve_container.other",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(tpl.VMID), nil },
				ExpectError:       regexp.MustCompile(`(?s)Container Is A Template.*pve_container_template`),
			},
			{
				Config:            ctTemplateConfig(tg, 2, 3, plainCT+others),
				ResourceName:      "pve_container_template.other",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(plainID), nil },
				ExpectError:       regexp.MustCompile(`(?s)Not A Container Template.*import it as pve_container`),
			},
		},
	})
}

// W17: destroying a container template whose base volume backs a linked
// clone fails with PVE's error (pve-storage src/PVE/Storage.pm vdisk_free:
// "base volume 'NAME' is still in use by linked clones") and says what to
// do; once the clone is gone it works.
func TestAccContainerTemplate_deleteWithLinkedCloneW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tpl := &ctTemplateRef{Guest: acctest.NewGuest(ctTemplateAddr), tg: tg}
	config := ctTemplateConfig(tg, 1, 1, "")
	var cloneID int

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTTemplateDestroyed(tpl),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					tpl.isBaseTemplate(),
					acctest.CheckState(func(*tfjson.State) error {
						ctx := context.Background()
						id, err := tg.Client.NextID(ctx)
						if err != nil {
							return err
						}
						cloneID = id
						upid, err := tg.Client.CloneGuest(ctx, tpl.Node, pveapi.GuestTypeLXC, tpl.VMID, url.Values{"newid": {strconv.Itoa(id)}, "hostname": {"tfacc-linked"}})
						if err == nil {
							_, err = tg.Client.WaitTask(ctx, upid)
						}
						return err
					}),
				},
			},
			{
				Config:      config,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)still in use by linked\s+clones.*Container Template Still Has Linked\s+Clones`),
			},
			{
				PreConfig: func() {
					upid, err := tg.Client.DeleteGuest(context.Background(), tpl.Node, pveapi.GuestTypeLXC, cloneID, true, false)
					if err == nil {
						_, err = tg.Client.WaitTask(context.Background(), upid)
					}
					if err != nil {
						t.Fatalf("delete linked clone %d: %v", cloneID, err)
					}
				},
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{tpl.isBaseTemplate()},
			},
		},
	})
}
