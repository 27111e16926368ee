package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const ctTemplate = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

// fleet writes vms VMs and cts containers named prefix-vm-N and
// prefix-ct-N, spread over the simulator's three nodes, each with a data
// disk besides its boot disk. firstVMID > 0 pins the guests' ids to
// firstVMID, firstVMID+1, ...; 0 leaves them to allocation.
func fleet(prefix string, vms, cts, firstVMID int) string {
	var b strings.Builder
	vmidLine := func(i int) string {
		if firstVMID == 0 {
			return ""
		}
		return fmt.Sprintf("  vmid = %d\n", firstVMID+i)
	}
	for i := range vms {
		fmt.Fprintf(&b, `
resource "pve_vm" "%[1]s_vm_%[2]d" {
%[4]s  node          = "pve%[3]d"
  name          = "%[1]s-vm-%[2]d"
  started       = false
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 512 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 2 }
    scsi1 = { storage = "local-lvm", size = 1, backup = false }
  }
  network = {
    net0 = { bridge = "vmbr0" }
  }
}
`, prefix, i, i%3+1, vmidLine(i))
	}
	for i := range cts {
		fmt.Fprintf(&b, `
resource "pve_container" "%[1]s_ct_%[2]d" {
%[5]s  node        = "pve%[3]d"
  hostname    = "%[1]s-ct-%[2]d"
  started     = false
  os_template = %[4]q
  memory      = { size = 256, swap = 0 }
  root_disk   = { storage = "local-lvm", size = 2 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 1, path = "/data" }
  }
}
`, prefix, i, i%3+1, ctTemplate, vmidLine(vms+i))
	}
	return b.String()
}

// guestName is a guest's name (VM) or hostname (container).
func guestName(g *pvesim.Guest) string {
	if g.Type == pvesim.LXC {
		return g.Config["hostname"]
	}
	return g.Config["name"]
}

// guestsByName lists the simulator's guests by name.
func guestsByName(sim *pvesim.Sim) map[string][]int {
	out := map[string][]int{}
	sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			out[guestName(g)] = append(out[guestName(g)], g.VMID)
		}
	})
	return out
}

// checkExactlyOnce fails unless every wanted name names exactly one guest
// and no other guest exists.
func checkExactlyOnce(t *testing.T, sim *pvesim.Sim, wanted []string) {
	t.Helper()
	byName := guestsByName(sim)
	for _, name := range wanted {
		if ids := byName[name]; len(ids) != 1 {
			t.Errorf("guest %s exists %d times (vmids %v)", name, len(ids), ids)
		}
		delete(byName, name)
	}
	for name, ids := range byName {
		t.Errorf("unexpected guest %s (vmids %v)", name, ids)
	}
}

// guestVolumeStorages are the storages that hold guest disks.
var guestVolumeStorages = []string{"local-lvm", "shared-nfs"}

// checkNoOrphanedVolumes fails when a disk volume is in no guest's
// configuration, and when a guest's configuration names a disk volume that
// does not exist.
func checkNoOrphanedVolumes(t *testing.T, sim *pvesim.Sim) {
	t.Helper()
	referenced := map[string]bool{} // node + " " + volid; node "" on shared storage
	sim.View(func(c *pvesim.Cluster) {
		for _, g := range c.Guests {
			for key, value := range g.Config {
				volid, ok := guestVolume(value)
				if !ok {
					continue
				}
				v := c.Volume(g.Node, volid)
				if v == nil {
					t.Errorf("guest %d %s = %s: the volume does not exist (lost)", g.VMID, key, value)
					continue
				}
				referenced[v.Node+" "+volid] = true
			}
		}
	})
	for _, storage := range guestVolumeStorages {
		for _, v := range sim.Volumes(storage) {
			if !referenced[v.Node+" "+v.VolID] {
				t.Errorf("volume %s on node %q (owner %d) is in no guest's configuration (orphaned)", v.VolID, v.Node, v.Owner)
			}
		}
	}
}

// guestVolume returns the volume on a guest-disk storage that a
// configuration value names first, as disks, mount points, unusedN and
// cloud-init drives do.
func guestVolume(value string) (string, bool) {
	volid, _, _ := strings.Cut(value, ",")
	volid = strings.TrimPrefix(volid, "file=")
	volid = strings.TrimPrefix(volid, "volume=")
	for _, storage := range guestVolumeStorages {
		if strings.HasPrefix(volid, storage+":") {
			return volid, true
		}
	}
	return "", false
}
