import {
  to = pve_storage_lvm.san
  identity = {
    storage = "san"
  }
}
