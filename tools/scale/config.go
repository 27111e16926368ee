package main

import (
	"fmt"
	"strings"
)

// scaleNodes is the simulated cluster the guests are spread across.
const scaleNodes = 3

// vmidBase is the start of the provider's vmid_range; the range is sized to
// the estate so allocation is exercised, not PVE's nextid.
const vmidBase = 10000

// guestMix splits n guests into VMs and containers: every even guest is a
// VM, every odd one a container, so both kinds scale together.
func guestMix(n int) (vms, containers int) {
	vms = (n + 1) / 2
	return vms, n - vms
}

// providerBlock configures the provider with a VMID range large enough for
// n guests; the connection comes from the environment (PVE_ENDPOINT,
// PVE_API_TOKEN, PVE_CA_FILE).
func providerBlock(n int) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

provider "pve" {
  vmid_range = { min = %d, max = %d }
}
`, vmidBase, vmidBase+2*n+100)
}

// guestsConfig is the configuration of n stopped guests across the nodes:
// VMs with two blank disks and two NICs, containers with a root disk and a
// NIC. Guests are kept stopped so the measure is the provider's API work,
// not the simulated boot, and small so 1000 of them fit the simulator's
// 500 GiB local-lvm per node. With pools > 0 the configuration manages that
// many pools (pve_pool) and spreads the guests over them, VM i and
// container i in pool i mod pools.
func guestsConfig(n, pools int) string {
	vms, containers := guestMix(n)
	var b strings.Builder
	// poolAttr is the guest's pool line, padded to align with the block's
	// other attributes.
	poolAttr := func(padding string) string {
		if pools == 0 {
			return ""
		}
		return fmt.Sprintf("\n  pool%s= pve_pool.scale[count.index %% %d].poolid", padding, pools)
	}
	if pools > 0 {
		fmt.Fprintf(&b, `
resource "pve_pool" "scale" {
  count  = %d
  poolid = "scale-pool-${count.index}"
}
`, pools)
	}
	if vms > 0 {
		fmt.Fprintf(&b, `
resource "pve_vm" "scale" {
  count   = %d
  node    = "pve${count.index %% %d + 1}"
  name    = "scale-vm-${count.index}"
  started = false%s

  scsi_hardware = "virtio-scsi-single"
  cpu           = { cores = 1 }
  memory        = { size = 512 }

  disks = {
    scsi0 = { storage = "local-lvm", size = "256M" }
    scsi1 = { storage = "local-lvm", size = "256M", backup = false }
  }

  network = {
    net0 = { bridge = "vmbr0" }
    net1 = { bridge = "vmbr0", firewall = true }
  }
}
`, vms, scaleNodes, poolAttr("    "))
	}
	if containers > 0 {
		fmt.Fprintf(&b, `
resource "pve_container" "scale" {
  count       = %d
  node        = "pve${(count.index + 1) %% %d + 1}"
  hostname    = "scale-ct-${count.index}"
  started     = false%s
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

  memory    = { size = 256, swap = 0 }
  root_disk = { storage = "local-lvm", size = "512M" }

  network = {
    net0 = { name = "eth0", bridge = "vmbr0", ipv4 = { address = "dhcp" } }
  }
}
`, containers, scaleNodes, poolAttr("        "))
	}
	return b.String()
}
