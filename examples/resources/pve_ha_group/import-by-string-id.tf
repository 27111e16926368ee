import {
  to = pve_ha_group.web
  id = "web"
}
