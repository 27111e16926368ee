# The VMID and the name are enough: the VM is looked up in the cluster. Add
# node = "..." to insist on the node it is on.
import {
  to = pve_vm_snapshot.before_upgrade
  identity = {
    vmid = 120
    name = "before_upgrade"
  }
}
