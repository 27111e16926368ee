import {
  to = pve_sdn_fabric_node.node["pve1"]
  identity = {
    fabric = "under1"
    node   = "pve1"
  }
}
