import {
  to = pve_storage_zfspool.tank
  identity = {
    storage = "tank"
  }
}
