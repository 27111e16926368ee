import {
  to = pve_storage_nfs.isos
  identity = {
    storage = "isos"
  }
}
