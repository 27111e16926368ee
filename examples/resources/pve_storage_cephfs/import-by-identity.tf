import {
  to = pve_storage_cephfs.cephfs
  identity = {
    storage = "cephfs"
  }
}
