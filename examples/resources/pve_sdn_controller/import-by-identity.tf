import {
  to = pve_sdn_controller.evpn
  identity = {
    controller = "evpn1"
  }
}
