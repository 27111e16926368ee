resource "pve_sdn_zone" "lab" {
  zone = "lab"
  type = "simple"
  ipam = "pve"
  dhcp = "dnsmasq"
}

resource "pve_sdn_vnet" "web" {
  vnet = "web"
  zone = pve_sdn_zone.lab.zone
}

# A routed, NATed subnet whose guests get addresses by DHCP.
resource "pve_sdn_subnet" "web" {
  vnet    = pve_sdn_vnet.web.vnet
  cidr    = "10.10.0.0/24"
  gateway = "10.10.0.1"
  snat    = true
  dhcp_range = [
    { start_address = "10.10.0.100", end_address = "10.10.0.199" },
  ]
}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.lab, pve_sdn_vnet.web, pve_sdn_subnet.web]
}
