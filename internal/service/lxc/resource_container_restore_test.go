package lxc_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
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
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// ctArchive is the container archive the simulator seeds on every node:
// rootfs of 4G, mp0 of 2G at /var/cache/app, 512 MiB memory, hostname
// cache-130, description "cache container".
const ctArchive = pvesim.SeedLXCBackup

// archiveKept checks that what the archive brought and the configuration
// does not declare is still on the container.
func archiveKept(tg *acctest.Target, wantCores string) statecheck.StateCheck {
	return acctest.CheckState(func(s *tfjson.State) error {
		c, err := ctLiveConfig(tg, s)
		if err != nil {
			return err
		}
		if c["cores"] != wantCores {
			return fmt.Errorf("declared cores not written: %q", c["cores"])
		}
		if c["memory"] != "512" || c["description"] != "cache container\n" || c["features"] != "nesting=1" || c["tags"] != "cache" {
			return fmt.Errorf("archive values not kept: memory=%q description=%q features=%q tags=%q",
				c["memory"], c["description"], c["features"], c["tags"])
		}
		if !strings.Contains(c["mp0"], "mp=/var/cache/app") || !strings.Contains(c["mp0"], "size=2G") {
			return fmt.Errorf("archive mount point not kept: mp0=%q", c["mp0"])
		}
		return nil
	})
}

// restoreSentEveryMount checks the restore request (W40): it named rootfs
// and mp0 explicitly, in create form.
func restoreSentEveryMount(tg *acctest.Target, rootfs, mp0 string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		for _, rec := range tg.Sim.Requests() {
			if rec.Method != "POST" || rec.Template != "/nodes/{node}/lxc" {
				continue
			}
			p := rec.Params
			if len(p["restore"]) != 1 || p["restore"][0] != "1" || len(p["rootfs"]) != 1 || len(p["mp0"]) != 1 {
				return fmt.Errorf("restore request params = %v, want restore=1 with rootfs and mp0 (W40)", p)
			}
			if p["rootfs"][0] != rootfs || p["mp0"][0] != mp0 {
				return fmt.Errorf("rootfs=%q mp0=%q, want %q and %q (W40)", p["rootfs"][0], p["mp0"][0], rootfs, mp0)
			}
			return nil
		}
		return fmt.Errorf("no restore request recorded")
	})
}

// W40: a restore without a declared root disk takes the root disk's size
// from the archive's config, restores its mount point with it, and keeps
// every undeclared setting of the archive through an update; each plan
// afterwards is empty.
func TestAccContainerRestoreArchiveSizeW40(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	config := func(cores int) string {
		return ctConfig(tg, fmt.Sprintf(`
  node     = "pve1"
  hostname = "ct-restored"
  restore  = { archive = %q, storage = "local-lvm" }
  cpu      = { cores = %d }
`, ctArchive, cores))
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(2),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("hostname"), knownvalue.StringExact("ct-restored")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("root_disk"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("mount_points"), acctest.NullOrLacks("mp0")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("description"), knownvalue.Null()),
					archiveKept(tg, "2"),
					acctest.CheckState(func(s *tfjson.State) error {
						c, err := ctLiveConfig(tg, s)
						if err != nil {
							return err
						}
						if !strings.HasPrefix(c["rootfs"], "local-lvm:") || !strings.Contains(c["rootfs"], "size=4G") {
							return fmt.Errorf("rootfs = %q, want the archive's 4G on local-lvm (W40)", c["rootfs"])
						}
						return nil
					}),
					restoreSentEveryMount(tg, "local-lvm:4", "local-lvm:2,backup=1,mp=/var/cache/app"),
				},
			},
			{
				Config: config(3),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{archiveKept(tg, "3")},
			},
		},
	})
}

// W40: a declared root disk sets the rootfs size; it is sent with every
// mount point, the archive's undeclared one and a declared new one, so
// none is lost; the declared root disk grows in place afterwards.
func TestAccContainerRestoreDeclaredRootDiskW40(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	config := func(size int) string {
		return ctConfig(tg, fmt.Sprintf(`
  node      = "pve1"
  restore   = { archive = %q }
  cpu       = { cores = 1 }
  root_disk = { storage = "local-lvm", size = %d }
  mount_points = {
    mp1 = { storage = "local-lvm", size = 1, path = "/extra" }
  }
`, ctArchive, size))
	}
	rootSize := func(want string) statecheck.StateCheck {
		return acctest.CheckState(func(s *tfjson.State) error {
			c, err := ctLiveConfig(tg, s)
			if err != nil {
				return err
			}
			if !strings.Contains(c["rootfs"], "size="+want) || !strings.Contains(c["mp1"], "mp=/extra") {
				return fmt.Errorf("rootfs=%q mp1=%q, want rootfs of %s and the declared mp1", c["rootfs"], c["mp1"], want)
			}
			return nil
		})
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config(6),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("root_disk").AtMapKey("size"), knownvalue.StringExact("6")),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("hostname"), knownvalue.StringExact("cache-130")),
					rootSize("6G"),
					archiveKept(tg, "1"),
				},
			},
			{
				Config: config(7),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ctAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					rootSize("7G"),
					archiveKept(tg, "1"),
				},
			},
		},
	})
}

// W48: a restored container joins its declared pool, and stays in it
// through an update.
func TestAccContainerRestorePoolW48(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	if err := tg.Client.CreatePool(context.Background(), "restored", ""); err != nil {
		t.Fatal(err)
	}
	config := func(cores int) string {
		return ctConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  pool    = "restored"
  restore = { archive = %q, storage = "local-lvm", unique = true }
  cpu     = { cores = %d }
`, ctArchive, cores))
	}
	inPool := acctest.CheckState(func(s *tfjson.State) error {
		pool, found, err := tg.Client.GetPool(context.Background(), "restored")
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("pool restored is gone")
		}
		if len(pool.Members) != 1 {
			return fmt.Errorf("pool members = %+v, want the restored container", pool.Members)
		}
		c, err := ctLiveConfig(tg, s)
		if err != nil {
			return err
		}
		if strings.Contains(c["net0"], "BC:24:11:5E:13:00") {
			return fmt.Errorf("unique restore kept the archive's MAC: %q", c["net0"])
		}
		return nil
	})
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(2), ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("pool"), knownvalue.StringExact("restored")), inPool, archiveKept(tg, "2")}},
			{Config: config(1), ConfigStateChecks: []statecheck.StateCheck{inPool, archiveKept(tg, "1")}},
		},
	})
}

// A bad archive is refused at plan time with a message naming
// restore.archive; restore and os_template exclude each other.
func TestAccContainerRestoreValidation(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	step := func(body string, want *regexp.Regexp) resource.TestStep {
		return resource.TestStep{Config: ctConfig(tg, "  node = \"pve1\"\n"+body), PlanOnly: true, ExpectError: want}
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			step(`  restore = { archive = "local:iso/debian-13-netinst.iso" }`,
				errorLike("Invalid Backup Archive", "not a vzdump backup archive", "restore.archive takes a volume id")),
			step(`  restore = { archive = "`+pvesim.SeedQemuBackup+`" }`,
				errorLike("Invalid Backup Archive", "is a qemu backup", "pve_container restores only lxc archives")),
			step(`  restore = { archive = "`+ctArchive+`" }
  os_template = "`+ctTemplate+`"`, errorLike("Invalid Attribute Combination", `"os_template" cannot be specified when "restore" is specified`)),
			step(`  restore = { archive = "`+ctArchive+`" }
  ssh_public_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIC app@example"]`,
				errorLike("Not Applied On Restore", "keeps those of its backup", "Remove ssh_public_keys")),
		},
	})
}

// W13: the answer to the restore is lost after PVE ran it: the retry
// finds the container on the VMID and adopts it; exactly one is made.
func TestAccContainerRestoreLostAnswerW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	if err := sim.InjectFault(pvesim.Fault{Method: "POST", Path: "/nodes/{node}/lxc", Action: pvesim.FaultDropAfter, Count: 1}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, fmt.Sprintf(`
  node     = "pve1"
  hostname = "lost-restore"
  restore  = { archive = %q, storage = "local-lvm" }
`, ctArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(s *tfjson.State) error {
					resources, err := tg.Client.ClusterResources(context.Background(), "vm")
					if err != nil {
						return err
					}
					guests := 0
					for _, r := range resources {
						if r.IsGuest() {
							guests++
						}
					}
					if guests != 1 {
						return fmt.Errorf("want exactly one restored container, PVE has %d", guests)
					}
					if n := sim.Count("POST", "/nodes/{node}/lxc"); n != 1 {
						return fmt.Errorf("want one restore request (the lost one, then adoption), got %d", n)
					}
					c, err := ctLiveConfig(tg, s)
					if err != nil {
						return err
					}
					if c["description"] != "cache container\n" { // W20: PVE's read-back form
						return fmt.Errorf("description = %q: the marker was not removed", c["description"])
					}
					return nil
				}),
			},
		}},
	})
}

// W13: a configured vmid that is taken is an error: the restore is never
// sent with force, so the guest there is left as it was.
func TestAccContainerRestoreTakenVMIDW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	if err := sim.AddGuest(pvesim.Guest{VMID: 150, Node: "pve1", Type: pvesim.LXC,
		Config: map[string]string{"hostname": "someone-else", "rootfs": "local-lvm:vm-150-disk-0,size=1G"}}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, fmt.Sprintf(`
  node    = "pve1"
  vmid    = 150
  restore = { archive = %q, storage = "local-lvm" }
`, ctArchive)),
			ExpectError: errorLike("VMID Already In Use", "CT 150 already exists on node 'pve1'", "VMID 150 is taken"),
		}},
	})
	if g, ok := sim.Guest(150); !ok || g.Config["hostname"] != "someone-else" || g.Config["rootfs"] != "local-lvm:vm-150-disk-0,size=1G" {
		t.Errorf("the other container must stay untouched: %+v", g)
	}
	if n := sim.Count("POST", "/nodes/{node}/lxc"); n != 1 {
		t.Errorf("restore requests = %d, want the one PVE refused", n)
	}
}

// W9, W17: a container template can be made from a backup archive: the
// restore, then the template call, which renames the volumes to base-.
func TestAccContainerTemplateFromRestoreW17(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	needsSim(t, tg)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(fmt.Sprintf(`
resource "pve_container_template" "test" {
  node    = "pve1"
  restore = { archive = %q, storage = "local-lvm" }
}
`, ctArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CheckState(func(state *tfjson.State) error {
					_, vmid, err := acctest.GuestFromState(state, ctTemplateAddr)
					if err != nil {
						return err
					}
					c, err := tg.Client.GuestConfig(context.Background(), "pve1", pveapi.GuestTypeLXC, vmid)
					if err != nil {
						return err
					}
					if c["template"] != "1" || !strings.Contains(c["rootfs"], fmt.Sprintf("base-%d-disk-", vmid)) || c["hostname"] != "cache-130" {
						return fmt.Errorf("template = %q rootfs = %q hostname = %q", c["template"], c["rootfs"], c["hostname"])
					}
					return nil
				}),
			},
		}},
	})
}

// W11, W13: an apply killed while PVE restored a container onto an id it
// had allocated leaves a container with the planned hostname and the
// restore marker that no state records. The next apply, with no vmid
// configured, takes it up (marker removed) instead of restoring again.
func TestAccContainerRestoreAdoptsHalfMadeW13(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ctx := context.Background()
	const halfMade = 270
	marker := guestops.RestoreMarker(guestops.Container, ctArchive)
	upid, err := tg.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, halfMade, url.Values{
		"restore":     {"1"},
		"ostemplate":  {ctArchive},
		"storage":     {"local-lvm"},
		"hostname":    {"killed-restore"},
		"description": {guestops.WithCloneMarker("", marker)},
	})

	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: ctConfig(tg, fmt.Sprintf(`
  node     = "pve1"
  hostname = "killed-restore"
  restore  = { archive = %q, storage = "local-lvm" }
`, ctArchive)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("vmid"), knownvalue.Int64Exact(int64(halfMade))),
				acctest.CheckState(func(*tfjson.State) error {
					if n := sim.Count("POST", "/nodes/{node}/lxc"); n != 1 {
						return fmt.Errorf("%d restore requests: want only the planted one", n)
					}
					config, err := tg.Client.GuestConfig(ctx, "pve1", pveapi.GuestTypeLXC, halfMade)
					if err != nil {
						return err
					}
					if strings.Contains(config["description"], "not finished") {
						return fmt.Errorf("marker left in the description: %q", config["description"])
					}
					return nil
				}),
			},
		}},
	})
}
