resource "pve_container" "db" {
  node         = "pve1"
  hostname     = "db-1"
  description  = "PostgreSQL, managed by Terraform"
  tags         = ["db"]
  on_boot      = true
  os_template  = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
  unprivileged = true

  cpu    = { cores = 2, limit = 1.5 }
  memory = { size = 1024, swap = 512 }

  root_disk = { storage = "local-lvm", size = 8 }
  mount_points = {
    mp0 = { storage = "local-lvm", size = 10, path = "/var/lib/postgresql", backup = true }
  }

  network = {
    net0 = {
      name     = "eth0"
      bridge   = "vmbr0"
      firewall = true
      ipv4     = { address = "10.0.0.6/24", gateway = "10.0.0.1" }
      ipv6     = { address = "auto" }
    }
  }

  features = { nesting = true }
  dns      = { domain = "lan", servers = ["10.0.0.1"] }

  # Write-only: never stored in state. Bump the version to record a new one.
  password_wo         = var.root_password
  password_wo_version = 1

  # Written into root's authorized_keys when the container is created, and
  # never again.
  ssh_public_keys = [
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINwRDavxAe7i0Mj7PAiumqNjzq63vNtiuYGsrHpappVV admin@example.com",
  ]
}

variable "root_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

# Host devices passed through to a container. PVE lets only root@pam, logged
# in with a password, add, change or remove them.
resource "pve_container" "zigbee" {
  node        = "pve1"
  hostname    = "zigbee2mqtt"
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"

  root_disk = { storage = "local-lvm", size = 4 }
  network   = { net0 = { name = "eth0", bridge = "vmbr0" } }

  devices = {
    dev0 = { path = "/dev/ttyUSB0", mode = "0660", gid = 20 }
  }
}
