import {
  to = pve_disk_image.debian_cloud
  id = "pve1/local/debian-13-genericcloud-amd64.qcow2"
}
