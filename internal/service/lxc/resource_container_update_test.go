package lxc_test

import (
	"context"
	"fmt"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// mountOption asserts one option of a mount point as PVE reports it; ""
// wants it absent.
func (c *ctRef) mountOption(slot, key, want string) statecheck.StateCheck {
	return c.Check(func() error {
		config, err := c.config()
		if err != nil {
			return err
		}
		drive, err := wire.ParseDrive(config[slot])
		if err != nil {
			return fmt.Errorf("%s %q: %w", slot, config[slot], err)
		}
		if got := drive.Options[key]; got != want {
			return fmt.Errorf("%s: %s = %q, want %q (%s)", slot, key, got, want, config[slot])
		}
		return nil
	})
}

// nicOption asserts one key of a NIC as PVE reports it; "" wants it absent.
func (c *ctRef) nicOption(slot, key, want string) statecheck.StateCheck {
	return c.Check(func() error {
		config, err := c.config()
		if err != nil {
			return err
		}
		props, err := wire.ParsePropertyString(config[slot], "")
		if err != nil {
			return fmt.Errorf("%s %q: %w", slot, config[slot], err)
		}
		if got := props[key]; got != want {
			return fmt.Errorf("%s: %s = %q, want %q (%s)", slot, key, got, want, config[slot])
		}
		return nil
	})
}

// noPending asserts that PVE holds no change for the next start: an
// update that needed a restart got one (reboot_after_update).
func (c *ctRef) noPending() statecheck.StateCheck {
	return c.Check(func() error {
		entries, err := c.tg.Client.GuestPending(context.Background(), c.Node, pveapi.GuestTypeLXC, c.VMID)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.HasPending || e.DeletePending() {
				return fmt.Errorf("key %s still pending", e.Key)
			}
		}
		return nil
	})
}

// inPool asserts the container's pool membership as the pools API reports
// it.
func (c *ctRef) inPool(poolID string, want bool) statecheck.StateCheck {
	return c.Check(func() error {
		p, found, err := c.tg.Client.GetPool(context.Background(), poolID)
		if err != nil || !found {
			return fmt.Errorf("pool %s: found=%v err=%w", poolID, found, err)
		}
		member := false
		for _, m := range p.Members {
			if m.VMID.Int() == c.VMID {
				member = true
			}
		}
		if member != want {
			return fmt.Errorf("container %d in pool %s: %v, want %v", c.VMID, poolID, member, want)
		}
		return nil
	})
}

func TestAccContainer_inPlaceUpdates(t *testing.T) {
	t.Parallel()
	testContainerInPlaceUpdates(t, acctest.New(t))
}

// testContainerInPlaceUpdates is TestAccContainer_inPlaceUpdates on a given target; the PVE 8.4 smoke tests run it too.
func testContainerInPlaceUpdates(t *testing.T, tg *acctest.Target) {
	ct := newCTRef(tg)
	pool := acctest.Name("tfacc")
	withPool := func(body string) string {
		return tg.Config(fmt.Sprintf("resource \"pve_pool\" \"a\" {\n  poolid = %q\n}\nresource \"pve_container\" \"test\" {\n%s\n}\n", pool, body))
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{Config: withPool(ctBase), ConfigStateChecks: []statecheck.StateCheck{ct.record()}},
			{
				// CPU, memory and swap, identity, tags (W19), DNS, console,
				// nesting (W33). A running container applies some of them
				// only at its next start: reboot_after_update restarts it.
				Config: withPool(`
  node        = "pve1"
  hostname    = "tfacc-db-2"
  description = "managed by terraform\n"
  tags        = ["DB", "prod"]
  on_boot     = true
  os_template = "` + ctTemplate + `"
  reboot_after_update = true
  cpu      = { cores = 4, limit = 1.5, units = 100 }
  memory   = { size = 2048, swap = 256 }
  features = { nesting = true, keyctl = false, fuse = false }
  dns      = { domain = "lan", servers = ["10.0.0.1", "10.0.0.2"] }
  console  = { enabled = true, mode = "tty", ttys = 3 }
  root_disk = { storage = "local-lvm", size = 4 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 2, path = "/data", backup = true }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", firewall = true,
             ipv4 = { address = "10.0.0.6/24", gateway = "10.0.0.1" },
             ipv6 = { address = "auto" } }
  }
`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					ct.noPending(),
					ct.configHas(map[string]string{
						"hostname": "tfacc-db-2", "onboot": "1", "tags": "db;prod", "cores": "4", "cpulimit": "1.5", "cpuunits": "100",
						"memory": "2048", "swap": "256", "features": "nesting=1", "searchdomain": "lan", "nameserver": "10.0.0.1 10.0.0.2",
						"console": "1", "cmode": "tty", "tty": "3",
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("features").AtMapKey("keyctl"), knownvalue.Bool(false)),
				},
			},
			{
				// NIC changed, NIC added; mount point options and path in
				// place (W37, same volume); a new mount point; attributes
				// removed from configuration return to PVE's defaults.
				Config: withPool(`
  node        = "pve1"
  hostname    = "tfacc-db-2"
  os_template = "` + ctTemplate + `"
  reboot_after_update = true
  cpu    = { cores = 4 }
  memory = { size = 2048, swap = 256 }
  root_disk = { storage = "local-lvm", size = 4 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 2, path = "/srv/data", backup = false, read_only = true }
    mp1 = { storage = "local-lvm", size = "512M", path = "/logs" }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", vlan_tag = 20, mtu = 1400, ipv4 = { address = "dhcp" } }
    net1 = { name = "eth1", bridge = "vmbr1", rate = 12.5 }
  }
`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					ct.noPending(),
					ct.mountOption("mp0", "mp", "/srv/data"),
					ct.mountOption("mp0", "backup", "0"),
					ct.mountOption("mp0", "ro", "1"),
					ct.mountOption("mp1", "mp", "/logs"),
					ct.mountOption("mp1", "size", "512M"),
					ct.nicOption("net0", "tag", "20"),
					ct.nicOption("net0", "ip", "dhcp"),
					ct.nicOption("net0", "gw", ""),
					ct.nicOption("net0", "ip6", ""),
					ct.nicOption("net0", "firewall", ""),
					ct.nicOption("net1", "rate", "12.5"),
					ct.configHas(map[string]string{
						"tags": "", "onboot": "", "searchdomain": "", "nameserver": "", "console": "", "tty": "",
						"cpulimit": "", "cpuunits": "", "description": "",
						// features left out are left to PVE: nesting stays on.
						"features": "nesting=1",
					}),
					acctest.CheckState(func(*tfjson.State) error {
						if ct.volumes["mp1"] == "" || ct.volumes["mp1"] == ct.volumes["mp0"] {
							return fmt.Errorf("mp1 needs a volume of its own: %v", ct.volumes)
						}
						return nil
					}),
				},
			},
			{
				// W22: growth is a resize of the same volume; a NIC goes;
				// the pool (W48).
				Config: withPool(`
  node        = "pve1"
  hostname    = "tfacc-db-2"
  os_template = "` + ctTemplate + `"
  pool        = pve_pool.a.poolid
  cpu    = { cores = 4 }
  memory = { size = 2048, swap = 256 }
  root_disk = { storage = "local-lvm", size = 6 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 3, path = "/srv/data", backup = false, read_only = true }
    mp1 = { storage = "local-lvm", size = "1G", path = "/logs" }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", vlan_tag = 20, mtu = 1400, ipv4 = { address = "dhcp" } }
  }
`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0", "mp1"),
					ct.inPool(pool, true),
					ct.mountOption("rootfs", "size", "6G"),
					ct.mountOption("mp0", "size", "3G"),
					ct.mountOption("mp1", "size", "1G"),
					ct.configHas(map[string]string{"net1": ""}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("pool"), knownvalue.StringExact(pool)),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("root_disk").AtMapKey("size"), knownvalue.StringExact("6")),
				},
			},
			{
				// Node change: a running container migrates in restart mode,
				// with its volumes; it leaves the pool and powers off.
				Config: withPool(`
  node        = "pve2"
  hostname    = "tfacc-db-2"
  os_template = "` + ctTemplate + `"
  started     = false
  cpu    = { cores = 4 }
  memory = { size = 2048, swap = 256 }
  root_disk = { storage = "local-lvm", size = 6 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 3, path = "/srv/data", backup = false, read_only = true }
    mp1 = { storage = "local-lvm", size = "1G", path = "/logs" }
  }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", vlan_tag = 20, mtu = 1400, ipv4 = { address = "dhcp" } }
  }
`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0", "mp1"),
					ct.inPool(pool, false),
					acctest.CheckState(func(*tfjson.State) error {
						guest, found, err := tg.Client.FindGuest(context.Background(), ct.VMID)
						if err != nil || !found || guest.Node != "pve2" {
							return fmt.Errorf("cluster lists container %d on %v (found=%v, err=%w)", ct.VMID, guest, found, err)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("node"), knownvalue.StringExact("pve2")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("status"), knownvalue.StringExact("stopped")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("pool"), knownvalue.Null()),
				},
			},
		},
	})
}
