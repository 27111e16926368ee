package access_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

// These tests hold the feature table against the simulator, whose privilege
// checks follow PVE's: a token holding only the privileges the data source
// computes must be able to do what the features promise, and must be
// refused what they leave out.

// guestsConfig is a pool, a VM and a container in it: what the vm,
// container and pools features are for.
func guestsConfig(tg *acctest.Target, unprivileged bool) string {
	return guestsConfigWith(tg, unprivileged, 2)
}

func guestsConfigWith(tg *acctest.Target, unprivileged bool, cores int) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_pool" "team" {
  poolid = "tfacc-privs"
}

resource "pve_vm" "web" {
  node    = "pve1"
  name    = "tfacc-privs"
  pool    = pve_pool.team.poolid
  started = false
  cpu     = { cores = %d }
  memory  = { size = 1024 }
  disks   = { scsi0 = { storage = "local-lvm", size = 4 } }
  network = { net0 = { bridge = "vmbr0" } }
}

resource "pve_container" "db" {
  node         = "pve1"
  hostname     = "tfacc-privs"
  pool         = pve_pool.team.poolid
  os_template  = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
  unprivileged = %t
  root_disk    = { storage = "local-lvm", size = 4 }
  network      = { net0 = { name = "eth0", bridge = "vmbr0" } }
}
`, cores, unprivileged))
}

func privilegesOf(t *testing.T, release access.Release, features ...string) []string {
	t.Helper()
	res, err := access.Compute(release, features)
	if err != nil {
		t.Fatal(err)
	}
	return res.Privileges
}

// A token holding just the default features' privileges creates, changes
// and destroys guests and pools; a privileged container needs the
// privileged_containers feature on PVE 9.
func TestAccProviderPrivilegesSufficeOnPVE9(t *testing.T) {
	t.Parallel()
	tg := acctest.NewRestricted(t, "9.1", privilegesOf(t, access.PVE9, access.DefaultFeatureNames()...))

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: guestsConfig(tg, true),
		}, {
			Config: guestsConfigWith(tg, true, 4),
		}, {
			Config:      guestsConfig(tg, false),
			ExpectError: regexp.MustCompile(`Sys\.Modify`),
		}},
	})

	withPrivileged := append(access.DefaultFeatureNames(), "privileged_containers")
	tg = acctest.NewRestricted(t, "9.1", privilegesOf(t, access.PVE9, withPrivileged...))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: guestsConfig(tg, false),
		}},
	})
}

// PVE 8.4 creates privileged containers with the default features.
func TestAccProviderPrivilegesSufficeOnPVE84(t *testing.T) {
	t.Parallel()
	tg := acctest.NewRestricted(t, "8.4", privilegesOf(t, access.PVE84, access.DefaultFeatureNames()...))

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: guestsConfig(tg, false),
		}},
	})
}

// cloneFirewallImageConfig is a VM template, a clone of it with its own
// firewall options, and an ISO downloaded from a URL; cluster adds the
// cluster's firewall options.
func cloneFirewallImageConfig(tg *acctest.Target, isoURL string, cluster bool) string {
	config := fmt.Sprintf(`
resource "pve_vm_template" "base" {
  node  = "pve1"
  name  = "tfacc-base"
  disks = { scsi0 = { storage = "local-lvm", size = 4 } }
}

resource "pve_vm" "app" {
  node    = "pve1"
  name    = "tfacc-app"
  clone   = { source_vmid = pve_vm_template.base.vmid }
  started = false
}

resource "pve_firewall_options" "app" {
  vmid    = pve_vm.app.vmid
  enabled = true
}

resource "pve_iso" "netinst" {
  node      = "pve1"
  storage   = "local"
  file_name = "tfacc-netinst.iso"
  url       = %q
}
`, isoURL)
	if cluster {
		config += `
resource "pve_firewall_options" "cluster" {
  ebtables = true
}
`
	}
	return tg.Config(config)
}

// Clones, a guest's firewall and downloaded images are default features;
// the cluster's firewall needs the firewall feature.
func TestAccProviderPrivilegesCloneFirewallImages(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("an iso image"))
	}))
	t.Cleanup(srv.Close)
	isoURL := srv.URL + "/netinst.iso"

	tg := acctest.NewRestricted(t, "9.1", privilegesOf(t, access.PVE9, access.DefaultFeatureNames()...))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: cloneFirewallImageConfig(tg, isoURL, false),
		}, {
			Config:      cloneFirewallImageConfig(tg, isoURL, true),
			ExpectError: regexp.MustCompile(`Sys\.Modify`),
		}},
	})

	withFirewall := append(access.DefaultFeatureNames(), "firewall")
	tg = acctest.NewRestricted(t, "9.1", privilegesOf(t, access.PVE9, withFirewall...))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: cloneFirewallImageConfig(tg, isoURL, true),
		}},
	})
}
