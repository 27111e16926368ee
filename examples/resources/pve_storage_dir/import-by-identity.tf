import {
  to = pve_storage_dir.backup
  identity = {
    storage = "backup"
  }
}
