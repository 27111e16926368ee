import {
  to = pve_usb_mapping.dongle
  identity = {
    id = "dongle"
  }
}
