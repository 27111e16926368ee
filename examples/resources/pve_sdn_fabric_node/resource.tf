resource "pve_sdn_fabric" "underlay" {
  fabric    = "under1"
  protocol  = "openfabric"
  ip_prefix = "10.77.0.0/24"
}

# Each node joins the fabric with a router address from its prefix and the
# interfaces facing the other nodes (unnumbered here).
resource "pve_sdn_fabric_node" "node" {
  for_each = { pve1 = "10.77.0.1", pve2 = "10.77.0.2", pve3 = "10.77.0.3" }

  fabric = pve_sdn_fabric.underlay.fabric
  node   = each.key
  ip     = each.value
  interfaces = {
    ens19 = {}
    ens20 = { hello_multiplier = 3 }
  }
}

resource "pve_sdn_applier" "sdn" {
  objects = concat([pve_sdn_fabric.underlay], values(pve_sdn_fabric_node.node))
}
