import {
  to = pve_disk_image.debian_cloud
  identity = {
    node      = "pve1"
    storage   = "local"
    file_name = "debian-13-genericcloud-amd64.qcow2"
  }
}
