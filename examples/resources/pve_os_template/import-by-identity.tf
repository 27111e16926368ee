import {
  to = pve_os_template.debian
  identity = {
    node      = "pve1"
    storage   = "shared-nfs"
    file_name = "debian-13-standard_13.1-1_amd64.tar.zst"
  }
}
