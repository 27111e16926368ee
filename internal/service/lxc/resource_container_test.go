package lxc_test

import (
	"context"
	"fmt"
	"regexp"
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
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

const ctAddr = "pve_container.test"

// ctTemplate is the container template the simulator holds on every node.
const ctTemplate = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

// ctConfig wraps attribute lines into the test container resource.
func ctConfig(tg *acctest.Target, body string) string {
	return tg.Config("resource \"pve_container\" \"test\" {\n" + body + "\n}\n")
}

// ctBase is the container most tests start from: a volume mount point and
// a NIC with addresses.
const ctBase = `
  node        = "pve1"
  hostname    = "tfacc-db"
  os_template = "` + ctTemplate + `"
  cpu    = { cores = 2 }
  memory = { size = 1024, swap = 512 }
  root_disk = { storage = "local-lvm", size = 4 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 2, path = "/data", backup = true }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", firewall = true,
             ipv4 = { address = "10.0.0.6/24", gateway = "10.0.0.1" },
             ipv6 = { address = "auto" } }
  }
`

// ctRef follows the container a test created: its vmid and node come from
// state (acctest.Guest), its volumes from PVE.
type ctRef struct {
	*acctest.Guest
	tg      *acctest.Target
	volumes map[string]string // rootfs/mpN -> volid, as last recorded
}

func newCTRef(tg *acctest.Target) *ctRef {
	return &ctRef{Guest: acctest.NewGuest(ctAddr), tg: tg, volumes: map[string]string{}}
}

func (c *ctRef) config() (pveapi.GuestConfig, error) {
	return c.tg.Client.GuestConfig(context.Background(), c.Node, pveapi.GuestTypeLXC, c.VMID)
}

// volumeIDs lists the volid of the root disk and every volume mount point.
func (c *ctRef) volumeIDs() (map[string]string, error) {
	config, err := c.config()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for key, value := range config {
		if key != "rootfs" && !strings.HasPrefix(key, "mp") {
			continue
		}
		drive, err := wire.ParseDrive(value)
		if err != nil || drive.VolumeID() == "" {
			continue
		}
		out[key] = drive.VolumeID()
	}
	return out, nil
}

// record remembers the volids of the container's volumes.
func (c *ctRef) record() statecheck.StateCheck {
	return c.Check(func() error {
		vols, err := c.volumeIDs()
		if err != nil {
			return err
		}
		c.volumes = vols
		return nil
	})
}

// keeps asserts that the listed volumes still have the volids recorded
// before, then records the current ones: an update never gives a kept
// volume a new id (W21, W37).
func (c *ctRef) keeps(slots ...string) statecheck.StateCheck {
	return c.Check(func() error {
		vols, err := c.volumeIDs()
		if err != nil {
			return err
		}
		for _, slot := range slots {
			if vols[slot] == "" || vols[slot] != c.volumes[slot] {
				return fmt.Errorf("volume %s: was %q, now %q", slot, c.volumes[slot], vols[slot])
			}
		}
		c.volumes = vols
		return nil
	})
}

// configHas asserts config keys of the container in PVE; "" wants a key
// absent.
func (c *ctRef) configHas(want map[string]string) statecheck.StateCheck {
	return c.Check(func() error {
		config, err := c.config()
		if err != nil {
			return err
		}
		for k, w := range want {
			got, ok := config[k]
			switch {
			case w == "" && ok:
				return fmt.Errorf("config key %s = %q, want it absent", k, got)
			case w != "" && got != w:
				return fmt.Errorf("config key %s = %q, want %q", k, got, w)
			}
		}
		return nil
	})
}

func checkCTDestroyed(c *ctRef) resource.TestCheckFunc {
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
		return fmt.Errorf("container %d still exists after destroy", c.VMID)
	}
}

func expectUpdate() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)}}
}

func TestAccContainer_createWithVolumeAndNetworkAndImport(t *testing.T) {
	t.Parallel()
	testContainerCreateAndImport(t, acctest.New(t))
}

// testContainerCreateAndImport is TestAccContainer_createWithVolumeAndNetworkAndImport on a given target; the PVE 8.4 smoke tests run it too.
func testContainerCreateAndImport(t *testing.T, tg *acctest.Target) {
	ct := newCTRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, ctBase),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{
						"hostname": "tfacc-db", "cores": "2", "memory": "1024", "swap": "512", "unprivileged": "1",
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("unprivileged"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("root_disk").AtMapKey("volume"),
						knownvalue.StringRegexp(regexp.MustCompile(`^local-lvm:vm-\d+-disk-0$`))),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("mount_points").AtMapKey("mp0").AtMapKey("volume"),
						knownvalue.StringRegexp(regexp.MustCompile(`^local-lvm:vm-\d+-disk-1$`))),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("network").AtMapKey("net0").AtMapKey("mac_address"),
						knownvalue.StringRegexp(regexp.MustCompile(`^[0-9A-F]{2}(:[0-9A-F]{2}){5}$`))),
				},
			},
			{
				ResourceName:      ctAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// W33: an import reads features as every flag off, which is
				// what this container's undeclared features (null) mean.
				ImportStateVerifyIgnore: []string{"os_template", "features"},
			},
		},
	})
}
