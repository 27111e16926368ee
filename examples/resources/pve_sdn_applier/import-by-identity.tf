import {
  to = pve_sdn_applier.this
  identity = {
    id = "sdn"
  }
}
