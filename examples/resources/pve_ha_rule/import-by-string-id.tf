import {
  to = pve_ha_rule.web_nodes
  id = "web-nodes"
}
