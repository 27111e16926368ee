import {
  to = pve_ha_rule.web_nodes
  identity = {
    rule = "web-nodes"
  }
}
