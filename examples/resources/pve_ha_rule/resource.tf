# PVE 9. The resources are HA resources, named by their sid.
resource "pve_ha_rule" "web_nodes" {
  rule      = "web-nodes"
  type      = "node-affinity"
  resources = [pve_ha_resource.web1.sid, pve_ha_resource.web2.sid]

  # node = priority: resources run on the online nodes of the highest priority.
  nodes = {
    pve1 = 2
    pve2 = 1
  }
  strict  = true # never run on other nodes
  comment = "web servers on the fast nodes"
}

# Keep the two web servers on different nodes.
resource "pve_ha_rule" "web_apart" {
  rule      = "web-apart"
  type      = "resource-affinity"
  resources = [pve_ha_resource.web1.sid, pve_ha_resource.web2.sid]
  affinity  = "negative"
}
