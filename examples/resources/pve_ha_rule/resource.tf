# PVE 9. The resources are HA resources, named by their sid. Refer to them
# as pve_ha_resource.NAME.sid so Terraform creates them first.
resource "pve_ha_rule" "web_nodes" {
  rule      = "web-nodes"
  type      = "node-affinity"
  resources = ["vm:101", "vm:102"]

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
  resources = ["vm:101", "vm:102"]
  affinity  = "negative"
}
