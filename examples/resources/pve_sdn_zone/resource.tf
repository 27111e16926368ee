# A simple zone: an isolated bridge on every node, with PVE's built-in IPAM
# and its DHCP server (dnsmasq must be installed on the nodes).
resource "pve_sdn_zone" "lab" {
  zone = "lab"
  type = "simple"
  ipam = "pve"
  dhcp = "dnsmasq"
}

# A VLAN zone: each vnet is a VLAN on the nodes' vmbr0.
resource "pve_sdn_zone" "office" {
  zone   = "office"
  type   = "vlan"
  bridge = "vmbr0"
  nodes  = ["pve1", "pve2"]
}

# Changes are only staged in PVE until applied: list every SDN resource in
# one pve_sdn_applier, which applies them all once per run.
resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.lab, pve_sdn_zone.office]
}
