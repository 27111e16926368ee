import {
  to = pve_firewall_ipset.trusted
  identity = {
    name = "trusted"
  }
}
