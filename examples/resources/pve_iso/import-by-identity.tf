import {
  to = pve_iso.debian
  identity = {
    node      = "pve1"
    storage   = "local"
    file_name = "debian-13.1.0-amd64-netinst.iso"
  }
}
