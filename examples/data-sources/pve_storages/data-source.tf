# The shared storages that take ISO images, as seen from pve1.
data "pve_storages" "iso" {
  node    = "pve1"
  content = "iso"
  shared  = true
}

# Keep the installer on the first of them.
resource "pve_iso" "debian" {
  node      = "pve1"
  storage   = data.pve_storages.iso.storages[0].storage
  file_name = "debian-13.1.0-amd64-netinst.iso"
  url       = "https://cdimage.debian.org/debian-cd/current/amd64/iso-cd/debian-13.1.0-amd64-netinst.iso"
}

# Without a node: the datacenter's storage definitions, here the NFS ones,
# with where each one lives.
data "pve_storages" "nfs" {
  type = "nfs"
}

output "nfs_exports" {
  value = { for s in data.pve_storages.nfs.storages : s.storage => "${s.server}:${s.export}" }
}
