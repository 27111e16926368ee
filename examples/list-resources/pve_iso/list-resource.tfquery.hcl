# The Debian ISO images on the storages of node pve1, with each image as an
# import reads it (for -generate-config-out).
list "pve_iso" "debian" {
  provider         = pve
  include_resource = true

  config {
    node      = "pve1"
    file_name = "debian-*.iso"
  }
}
