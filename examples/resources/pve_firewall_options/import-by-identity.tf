import {
  to = pve_firewall_options.web
  identity = {
    firewall = "guest/120"
  }
}
