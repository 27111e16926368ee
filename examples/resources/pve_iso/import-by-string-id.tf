import {
  to = pve_iso.debian
  id = "pve1/local/debian-13.1.0-amd64-netinst.iso"
}
