package lxc_test

import (
	"fmt"
	"net/url"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// bindMounts is a volume mount point and a read-only bind mount.
const bindMounts = `mp0 = { storage = "local-lvm", size = 2, path = "/data" }
    mp1 = { host_path = "/srv/share", path = "/share", read_only = true }`

func TestAccContainer_rootOnlyRefusedUnderTokenW33W36(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				// W33: keyctl under an API token fails the plan, before
				// anything is created.
				Config:      ctConfig(tg, smallCT("  features = { nesting = true, keyctl = true }", "")),
				PlanOnly:    true,
				ExpectError: errorLike("Option Needs root@pam", "features.keyctl needs a password login as root@pam", "API tokens are refused"),
			},
			{
				// W36: so does a bind mount.
				Config:      ctConfig(tg, smallCT("", bindMounts)),
				PlanOnly:    true,
				ExpectError: errorLike("Option Needs root@pam", "mount_points.mp1 (a bind mount) needs a password login as root@pam"),
			},
			{
				// nesting alone, and flags declared false, are fine under a
				// token (W33).
				Config: ctConfig(tg, smallCT("  features = { nesting = true, keyctl = false, fuse = false, mknod = false }", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=1"}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("features").AtMapKey("fuse"), knownvalue.Bool(false)),
				},
			},
			{
				// Turning fuse on later is refused at plan time too.
				Config:      ctConfig(tg, smallCT("  features = { nesting = true, fuse = true }", "")),
				PlanOnly:    true,
				ExpectError: errorLike("Option Needs root@pam", "features.fuse"),
			},
			{
				Config:      ctConfig(tg, smallCT("  features = { nesting = true, mount = [\"nfs\"] }", "")),
				PlanOnly:    true,
				ExpectError: errorLike("Option Needs root@pam", "features.mount"),
			},
		},
	})
}

func TestAccContainer_bindMountAsRootW36(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	ct := newCTRef(tg)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				// Under root@pam with a password, bind mounts and root-only
				// flags are sent faithfully (W33, W36).
				Config: ctConfig(tg, smallCT("  features = { nesting = true, keyctl = true, mount = [\"nfs\", \"cifs\"] }", bindMounts)),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{
						"mp1": "/srv/share,mp=/share,ro=1", "features": "keyctl=1,mount=cifs;nfs,nesting=1",
					}),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("mount_points").AtMapKey("mp1").AtMapKey("volume"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ctAddr, tfjsonpath.New("mount_points").AtMapKey("mp1").AtMapKey("host_path"), knownvalue.StringExact("/srv/share")),
				},
			},
			{
				// A bind mount's options and guest path change in place.
				Config: ctConfig(tg, smallCT("  features = { nesting = true, keyctl = true, mount = [\"nfs\", \"cifs\"] }",
					`mp0 = { storage = "local-lvm", size = 2, path = "/data" }
    mp1 = { host_path = "/srv/share", path = "/mnt/share", shared = true }`)),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.keeps("rootfs", "mp0"),
					ct.configHas(map[string]string{"mp1": "/srv/share,mp=/mnt/share,shared=1"}),
				},
			},
			{
				// W36: a live bind mount is never re-pointed.
				Config: ctConfig(tg, smallCT("  features = { nesting = true, keyctl = true, mount = [\"nfs\", \"cifs\"] }",
					`mp0 = { storage = "local-lvm", size = 2, path = "/data" }
    mp1 = { host_path = "/srv/other", path = "/mnt/share", shared = true }`)),
				PlanOnly:    true,
				ExpectError: errorLike("Bind Mount Cannot Be Re-Pointed", "binds /srv/share of the node", "add it in a free slot"),
			},
		},
	})
}

func TestAccContainer_rootFlagsReadUnderTokenW33(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	sim := needsSim(t, tg)
	ct := newCTRef(tg)
	vmid := createOutside(t, tg, "pve1", url.Values{
		"ostemplate": {ctTemplate}, "hostname": {"tfacc-root"}, "features": {"nesting=1"}, "rootfs": {"local-lvm:4"},
	})
	// root@pam sets keyctl, which no token may write (W33).
	if err := sim.Update(func(c *pvesim.Cluster) error {
		c.Guests[vmid].Config["features"] = "keyctl=1,nesting=1"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	body := func(hostname, features string) string {
		return fmt.Sprintf(`
  node      = "pve1"
  hostname  = %q
  features  = %s
  root_disk = { storage = "local-lvm", size = 4 }
`, hostname, features)
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config:             ctConfig(tg, body("tfacc-root", "{ nesting = true, keyctl = true }")),
				ResourceName:       ctAddr,
				ImportState:        true,
				ImportStateId:      strconv.Itoa(vmid),
				ImportStatePersist: true,
			},
			{
				// Reading what root set is fine under a token, and other
				// changes leave the flags as they are.
				Config:           ctConfig(tg, body("tfacc-root-2", "{ nesting = true, keyctl = true }")),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"hostname": "tfacc-root-2", "features": "keyctl=1,nesting=1"}),
				},
			},
			{
				// Dropping keyctl would change it: refused at plan time.
				Config:      ctConfig(tg, body("tfacc-root-2", "{ nesting = true }")),
				PlanOnly:    true,
				ExpectError: errorLike("Option Needs root@pam", "features.keyctl"),
			},
		},
	})
}

// Nesting is the one flag PVE lets a token change in an unprivileged
// container, with VM.Allocate (W33), and PVE::LXC::check_ct_modify_config_perm
// takes nesting=1 to nesting=0 as a nesting change. Turning every flag off,
// or leaving nesting out of the object, sends nesting=0 and is accepted
// under a token; leaving the object out plans no change.
func TestAccContainer_nestingOffUnderTokenW33(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	ct := newCTRef(tg)
	allOff := "  features = { nesting = false, keyctl = false, fuse = false, mknod = false }"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkCTDestroyed(ct),
		Steps: []resource.TestStep{
			{
				Config: ctConfig(tg, smallCT("  features = { nesting = true }", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=1"}),
				},
			},
			{
				// Every flag off.
				Config:           ctConfig(tg, smallCT(allOff, "")),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=0"}),
				},
			},
			{
				// The features object left out after nesting was turned off:
				// no change.
				Config:   ctConfig(tg, smallCT("", "")),
				PlanOnly: true,
			},
			{
				Config:           ctConfig(tg, smallCT("  features = { nesting = true }", "")),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=1"}),
				},
			},
			{
				// nesting left out of the object, straight from on: off.
				Config:           ctConfig(tg, smallCT("  features = { keyctl = false }", "")),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=0"}),
				},
			},
			{
				Config:           ctConfig(tg, smallCT("  features = { nesting = true }", "")),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					ct.record(),
					ct.configHas(map[string]string{"features": "nesting=1"}),
				},
			},
			{
				// The features object left out entirely leaves the flags to
				// PVE: no change, nothing written.
				Config:   ctConfig(tg, smallCT("", "")),
				PlanOnly: true,
			},
		},
	})
}
