import {
  to = pve_firewall_options.web
  id = "guest/120"
}
