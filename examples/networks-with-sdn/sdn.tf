# The lab's networks: one vnet and one subnet each, in a simple zone. Each
# node routes the subnets, NATs their traffic to the outside (snat) and
# hands out addresses by DHCP.
locals {
  networks = {
    web = { cidr = "10.10.1.0/24", alias = "web servers" }
    db  = { cidr = "10.10.2.0/24", alias = "databases" }
  }
}

# PVE's built-in IPAM records the addresses; dnsmasq (installed on every
# node) serves the DHCP ranges.
resource "pve_sdn_zone" "lab" {
  zone = "lab"
  type = "simple"
  ipam = "pve"
  dhcp = "dnsmasq"
}

resource "pve_sdn_vnet" "net" {
  for_each = local.networks

  vnet  = each.key
  zone  = pve_sdn_zone.lab.zone
  alias = each.value.alias
}

resource "pve_sdn_subnet" "net" {
  for_each = local.networks

  vnet    = pve_sdn_vnet.net[each.key].vnet
  cidr    = each.value.cidr
  gateway = cidrhost(each.value.cidr, 1)
  snat    = true
  dhcp_range = [
    { start_address = cidrhost(each.value.cidr, 100), end_address = cidrhost(each.value.cidr, 199) },
  ]
}

# Applies all SDN changes of a run at once. List every SDN resource here.
resource "pve_sdn_applier" "this" {
  objects = concat([pve_sdn_zone.lab], values(pve_sdn_vnet.net), values(pve_sdn_subnet.net))
}
