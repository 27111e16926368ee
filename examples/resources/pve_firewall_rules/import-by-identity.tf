import {
  to = pve_firewall_rules.cluster
  identity = {
    firewall = "cluster"
  }
}
