import {
  to = pve_sdn_vnet.staff
  identity = {
    vnet = "staff"
  }
}
