import {
  to = pve_sdn_zone.lab
  identity = {
    zone = "lab"
  }
}
