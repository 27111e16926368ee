import {
  to = pve_sdn_fabric.underlay
  identity = {
    fabric = "under1"
  }
}
