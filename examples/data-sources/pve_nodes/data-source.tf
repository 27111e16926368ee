data "pve_nodes" "all" {}

# Spread guests over the nodes that are online.
output "online_nodes" {
  value = data.pve_nodes.all.online
}
