import {
  to = pve_storage_iscsidirect.lun
  identity = {
    storage = "lun"
  }
}
