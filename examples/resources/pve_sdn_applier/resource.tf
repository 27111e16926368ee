resource "pve_sdn_zone" "lab" {
  zone = "lab"
  type = "simple"
  ipam = "pve"
}

resource "pve_sdn_vnet" "web" {
  vnet = "web"
  zone = pve_sdn_zone.lab.zone
}

resource "pve_sdn_vnet" "db" {
  vnet = "db"
  zone = pve_sdn_zone.lab.zone
}

resource "pve_sdn_subnet" "web" {
  vnet    = pve_sdn_vnet.web.vnet
  cidr    = "10.10.1.0/24"
  gateway = "10.10.1.1"
  snat    = true
}

resource "pve_sdn_subnet" "db" {
  vnet    = pve_sdn_vnet.db.vnet
  cidr    = "10.10.2.0/24"
  gateway = "10.10.2.1"
}

# One apply for all five objects, under PVE 9's SDN lock: the provider takes
# the lock at the first SDN write of the run and the apply releases it.
resource "pve_sdn_applier" "this" {
  objects = [
    pve_sdn_zone.lab,
    pve_sdn_vnet.web,
    pve_sdn_vnet.db,
    pve_sdn_subnet.web,
    pve_sdn_subnet.db,
  ]
}
