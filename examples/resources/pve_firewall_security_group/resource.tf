# A security group: a rule list that many firewalls apply with one rule.
resource "pve_firewall_security_group" "web" {
  name    = "web"
  comment = "HTTP and HTTPS from anywhere"
}

# Its rules.
resource "pve_firewall_rules" "web_group" {
  security_group = pve_firewall_security_group.web.name

  rules = [
    { type = "in", action = "ACCEPT", macro = "HTTP" },
    { type = "in", action = "ACCEPT", macro = "HTTPS" },
  ]
}
