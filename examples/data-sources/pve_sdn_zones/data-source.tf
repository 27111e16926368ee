data "pve_sdn_zones" "all" {}

# Each zone's status per node: available, pending or error.
output "zone_status" {
  value = { for z in data.pve_sdn_zones.all.zones : z.zone => z.status }
}

# Zones with changes not applied yet.
output "pending_zones" {
  value = [for z in data.pve_sdn_zones.all.zones : z.zone if z.pending_state != null]
}
