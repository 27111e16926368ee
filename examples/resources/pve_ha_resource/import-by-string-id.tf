import {
  to = pve_ha_resource.web
  id = "vm:100"
}
