# The VMID and the name are enough: the container is looked up in the
# cluster. Add node = "..." to insist on the node it is on.
import {
  to = pve_container_snapshot.before_upgrade
  identity = {
    vmid = 130
    name = "before_upgrade"
  }
}
