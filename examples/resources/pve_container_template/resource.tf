# A container template: created like a pve_container from a template
# archive, never started, then marked a template. PVE renames its volumes
# to base volumes (base-9100-disk-0), which root_disk.volume follows.
resource "pve_container_template" "debian" {
  node         = "pve1"
  vmid         = 9100
  hostname     = "debian-13-base"
  description  = "Debian 13 base container, managed by Terraform"
  tags         = ["template", "debian"]
  os_template  = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
  unprivileged = true

  cpu    = { cores = 1 }
  memory = { size = 512, swap = 512 }

  # Sized here: a template's volumes do not grow afterwards.
  root_disk = { storage = "local-lvm", size = 4 }

  network = {
    net0 = {
      name   = "eth0"
      bridge = "vmbr0"
      ipv4   = { address = "dhcp" }
    }
  }

  features = { nesting = true }
}
