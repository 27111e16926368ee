import {
  to = pve_ha_resource.web
  identity = {
    vmid = 100
    type = "vm"
  }
}
