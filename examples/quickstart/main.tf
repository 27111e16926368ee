# A first look at the pve provider. It reads its connection from the
# environment (PVE_ENDPOINT, PVE_API_TOKEN, PVE_CA_FILE), which `make demo`
# sets for the simulator; against a real cluster, export your own.

terraform {
  required_version = ">= 1.5"
  required_providers {
    pve = {
      source = "proxops/pve"
    }
  }
}

provider "pve" {}

data "pve_version" "current" {}

data "pve_nodes" "all" {}

resource "pve_pool" "quickstart" {
  poolid  = "quickstart"
  comment = "Made by the pve provider quickstart"
}

# A small VM seeded from the Debian cloud image every node carries, in the
# pool above. It is created stopped, so the quickstart needs no guest OS.
resource "pve_vm" "quickstart" {
  node    = data.pve_nodes.all.online[0]
  name    = "quickstart-vm"
  pool    = pve_pool.quickstart.poolid
  tags    = ["quickstart"]
  started = false

  scsi_hardware = "virtio-scsi-single"
  cpu           = { cores = 1 }
  memory        = { size = 512 }

  disks = {
    scsi0 = {
      storage     = "local-lvm"
      import_from = "local:import/debian-13-genericcloud-amd64.qcow2"
      size        = 4
    }
  }

  network = {
    net0 = { bridge = "vmbr0" }
  }
}

# A container from the Debian template every node carries, also stopped.
resource "pve_container" "quickstart" {
  node        = data.pve_nodes.all.online[0]
  hostname    = "quickstart-ct"
  pool        = pve_pool.quickstart.poolid
  tags        = ["quickstart"]
  started     = false
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

  memory    = { size = 512, swap = 0 }
  root_disk = { storage = "local-lvm", size = 4 }

  network = {
    net0 = { name = "eth0", bridge = "vmbr0", ipv4 = { address = "dhcp" } }
  }
}

output "pve_version" {
  value = data.pve_version.current.version
}

output "nodes" {
  value = data.pve_nodes.all.names
}

output "pool" {
  value = pve_pool.quickstart.id
}

output "vm" {
  value = {
    vmid   = pve_vm.quickstart.vmid
    node   = pve_vm.quickstart.node
    volume = pve_vm.quickstart.disks["scsi0"].volume
  }
}

output "container" {
  value = {
    vmid   = pve_container.quickstart.vmid
    volume = pve_container.quickstart.root_disk.volume
  }
}
