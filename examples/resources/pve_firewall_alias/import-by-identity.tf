import {
  to = pve_firewall_alias.office
  identity = {
    name = "office"
  }
}
