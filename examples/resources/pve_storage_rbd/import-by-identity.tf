import {
  to = pve_storage_rbd.ceph
  identity = {
    storage = "ceph"
  }
}
