# A container with the node's USB serial adapter. Only root@pam with its
# password may add, change or remove a container's devices: this resource
# uses the provider "pve.root".
resource "pve_container" "zigbee" {
  provider = pve.root

  node        = "pve1"
  hostname    = "zigbee2mqtt"
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

  memory    = { size = 512, swap = 0 }
  root_disk = { storage = pve_storage_zfspool.fast.storage, size = 4 }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", ipv4 = { address = "dhcp" } }
  }

  devices = {
    dev0 = { path = "/dev/ttyUSB0", mode = "0660", gid = 20 }
  }
}
