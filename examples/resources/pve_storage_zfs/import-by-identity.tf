import {
  to = pve_storage_zfs.zfsiscsi
  identity = {
    storage = "zfsiscsi"
  }
}
