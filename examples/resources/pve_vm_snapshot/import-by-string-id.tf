import {
  to = pve_vm_snapshot.before_upgrade
  id = "pve1/120/before_upgrade"
}
