import {
  to = pve_firewall_security_group.web
  identity = {
    name = "web"
  }
}
