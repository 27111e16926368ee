import {
  to = pve_storage_esxi.esxi
  identity = {
    storage = "esxi"
  }
}
