import {
  to = pve_storage_pbs.pbs
  identity = {
    storage = "pbs"
  }
}
