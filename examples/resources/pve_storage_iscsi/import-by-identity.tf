import {
  to = pve_storage_iscsi.lun
  identity = {
    storage = "lun"
  }
}
