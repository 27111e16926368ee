import {
  to = pve_container_template.debian
  id = "pve1/9100"
}
