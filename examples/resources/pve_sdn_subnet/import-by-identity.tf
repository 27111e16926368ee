import {
  to = pve_sdn_subnet.web
  identity = {
    vnet = "web"
    cidr = "10.10.0.0/24"
  }
}
