import {
  to = pve_storage_btrfs.btrfs
  identity = {
    storage = "btrfs"
  }
}
