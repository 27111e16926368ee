data "pve_ha_status" "current" {}

output "ha_master" {
  value = data.pve_ha_status.current.master_node
}

# Where each HA resource runs now, and in which state.
output "ha_resources" {
  value = {
    for r in data.pve_ha_status.current.resources : r.sid => "${r.node}: ${r.state}"
  }
}
