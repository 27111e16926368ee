# The VMID is enough: the guest is looked up in the cluster. Add node = "..." to
# insist on the node it is on.
import {
  to = pve_vm_template.debian
  identity = {
    vmid = 9000
  }
}
