import {
  to = pve_os_template.debian
  id = "pve1/shared-nfs/debian-13-standard_13.1-1_amd64.tar.zst"
}
