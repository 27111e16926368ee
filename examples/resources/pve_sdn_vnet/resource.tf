resource "pve_sdn_zone" "office" {
  zone   = "office"
  type   = "vlan"
  bridge = "vmbr0"
}

# VLAN 20 on vmbr0, as a bridge named "staff" on every node. Guests attach
# to it with bridge = "staff" (they need SDN.Use on /sdn/zones/office/staff).
resource "pve_sdn_vnet" "staff" {
  vnet  = "staff"
  zone  = pve_sdn_zone.office.zone
  tag   = 20
  alias = "staff network"
}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.office, pve_sdn_vnet.staff]
}
