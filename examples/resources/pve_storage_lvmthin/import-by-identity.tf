import {
  to = pve_storage_lvmthin.thin
  identity = {
    storage = "thin"
  }
}
