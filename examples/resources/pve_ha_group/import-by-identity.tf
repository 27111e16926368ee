import {
  to = pve_ha_group.web
  identity = {
    group = "web"
  }
}
