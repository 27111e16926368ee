import {
  to = pve_storage_cifs.share
  identity = {
    storage = "share"
  }
}
