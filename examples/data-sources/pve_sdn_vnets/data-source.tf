data "pve_sdn_vnets" "office" {
  zone = "office"
}

# Each vnet of the zone with its VLAN tag and its status per node.
output "office_vnets" {
  value = { for v in data.pve_sdn_vnets.office.vnets : v.vnet => { tag = v.tag, status = v.status } }
}
