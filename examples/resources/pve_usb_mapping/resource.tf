# A license dongle, found by its vendor and product id on pve1 and by the
# port it is plugged into on pve2.
resource "pve_usb_mapping" "dongle" {
  id          = "dongle"
  description = "License key"

  map = {
    pve1 = {
      id = "0529:0001"
    }
    pve2 = {
      id   = "0529:0001"
      path = "1-2.3"
    }
  }
}
